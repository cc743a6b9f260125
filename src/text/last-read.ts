/**
 * What was read of the last text: the components that reduce a long output and the fidelity
 * check of their change read the same text again (its lines, its line index, its records) in
 * the same turn of the event loop, so the last answer is remembered with the text it was read
 * from and what else it was asked with (`tag`). Held weakly: a text of megabytes is not kept
 * beyond its request. Texts shorter than `minChars` are read in no time and neither remembered
 * nor displace the one that is.
 */
/** A text this long or longer is worth remembering what was read of it. */
export const LONG_TEXT_CHARS = 64 * 1024;

export class LastRead<V> {
  #last: WeakRef<{ readonly text: string; readonly tag: string; readonly value: V }> | undefined;

  constructor(private readonly minChars = 0) {}

  read(text: string, tag: string, compute: () => V): V {
    if (text.length < this.minChars) return compute();
    const known = this.#last?.deref();
    if (
      known !== undefined &&
      known.tag === tag &&
      known.text.length === text.length &&
      known.text === text
    ) {
      return known.value;
    }
    const value = compute();
    this.#last = new WeakRef({ text, tag, value });
    return value;
  }
}
