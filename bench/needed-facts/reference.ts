/**
 * A reference of the agent's next action (SPEC §11, needed facts): a path, a code identifier, a
 * number or a copied line, and the rule that finds it in a text.
 */

export type FactKind = "path" | "identifier" | "number" | "line";
export const FACT_KINDS: readonly FactKind[] = ["path", "identifier", "number", "line"];

export interface Reference {
  readonly kind: FactKind;
  readonly text: string;
}

/** Characters that continue a word: a reference must not start or end inside a longer word. */
function continuesWord(code: number, kind: FactKind): boolean {
  return (
    (code >= 48 && code <= 57) ||
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    code === 95 ||
    // `app.py` is not a reference to `my-app.py`.
    (kind === "path" && code === 45)
  );
}

/**
 * Whether `text` holds the reference: its exact characters, not glued to a longer word on either
 * side (`alias_map` is not in `alias_mapping`, `557` not in `1557`, `query.py` not in
 * `query.pyc`). A side that starts or ends with punctuation (`/testbed`, `foo(`) needs no such
 * edge; a path may be part of a longer path (`django/db` is in `/testbed/django/db/models`).
 * A passage of copied lines is held where every one of its lines is.
 */
export function holds(text: string, reference: Reference): boolean {
  if (reference.kind === "line" && reference.text.includes("\n")) {
    return reference.text.split("\n").every((line) => holdsOne(text, line, "line"));
  }
  return holdsOne(text, reference.text, reference.kind);
}

function holdsOne(text: string, needle: string, kind: FactKind): boolean {
  if (needle === "") return false;
  const first = needle.charCodeAt(0);
  const last = needle.charCodeAt(needle.length - 1);
  const guardStart = continuesWord(first, kind);
  const guardEnd = continuesWord(last, kind);
  let at = text.indexOf(needle);
  while (at >= 0) {
    const end = at + needle.length;
    const startFree = !guardStart || at === 0 || !continuesWord(text.charCodeAt(at - 1), kind);
    const endFree = !guardEnd || end === text.length || !continuesWord(text.charCodeAt(end), kind);
    if (startFree && endFree) return true;
    at = text.indexOf(needle, at + 1);
  }
  return false;
}

/** `kind:text`, one key per distinct reference. */
export function referenceKey(reference: Reference): string {
  return `${reference.kind}:${reference.text}`;
}
