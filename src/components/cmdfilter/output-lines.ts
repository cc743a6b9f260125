/**
 * The lines of a tool output as the command filters read them: those `text.split("\n")` gives
 * (a final newline ends an empty last line, so the kept lines joined by `\n` give back the text
 * they came from), found by where each starts. A line is made a string only when it is read: a
 * 1 MB test log has 15,000 lines, most of them passing tests that a filter recognises by how
 * they start and drops, and making every one a string took over a quarter of the filter's time.
 */
export class OutputLines {
  readonly text: string;
  /** Where each line starts, then the text's length + 1. */
  readonly #starts: number[];

  constructor(text: string) {
    this.text = text;
    const starts = [0];
    for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) {
      starts.push(at + 1);
    }
    starts.push(text.length + 1);
    this.#starts = starts;
  }

  get count(): number {
    return this.#starts.length - 1;
  }

  /** Where line `index` starts in the text. */
  start(index: number): number {
    return this.#starts[index] as number;
  }

  /** Where line `index` ends: at its `\n`, or at the text's end. */
  end(index: number): number {
    return (this.#starts[index + 1] as number) - 1;
  }

  /** Line `index`, without its `\n`. */
  at(index: number): string {
    return this.text.slice(this.start(index), this.end(index));
  }
}
