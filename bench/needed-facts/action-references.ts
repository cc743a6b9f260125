import type { Reference } from "./reference.js";

/**
 * The references of an agent's action (SPEC §11, needed facts): what the agent wrote in its next
 * assistant turn — the string and number values of its calls' arguments (never their keys) and
 * its text — read as paths, code identifiers, numbers and copied lines.
 *
 * - **path**: a URL; a run of path characters holding a `/` and a letter (`/testbed/setup.py`,
 *   `src/`, `./run.sh`, `~/x`); a file name with a known extension (`query.py`, `package.json`);
 *   a module path of three or more lowercase names (`django.db.models`; not `self.x.y`, an
 *   attribute chain, whose parts are identifiers).
 * - **identifier**: a word of at least 4 characters that starts with a letter or `_` and is
 *   shaped like code, not like prose: with an underscore (`alias_map`, `__init__`), a case change
 *   inside it (`distinctFields`, `IsNull`, `JSONField`) or letters and digits side by side
 *   (`E015`, `sha256`); or an id of 7 or more hex digits (`6e58a5c`). Plain words (`combine`,
 *   `Literal`, `TODO`) are not identifiers: the agent's prose is not a fact.
 * - **number**: an integer of at least 3 digits that is not part of a word or a decimal
 *   (`557` in `query.py:557:`, an `offset` of 843).
 * - **line**: a line of an argument's string value, trimmed, of at least 10 characters with a
 *   space inside (an edit's `old_string` line, a command). Consecutive such lines that one
 *   earlier output or call holds are one copied passage (needed.ts); a line no source holds
 *   counts by the paths, identifiers and numbers on it.
 */

/** One line of the action and the references on it. */
export interface ActionLine {
  /** The line trimmed, when it is long enough to be copied whole. */
  readonly copy?: string | undefined;
  readonly tokens: readonly Reference[];
}

/** The agent's next action: its text and its calls' parsed arguments. */
export interface Action {
  readonly texts: readonly string[];
  readonly inputs: readonly unknown[];
}

const MIN_LINE = 10;
const MIN_IDENTIFIER = 4;
const MIN_NUMBER = 100;

const URL = /https?:\/\/[^\s"'`<>(){}[\]]+/g;
const SLASH_PATH = /[\w.@+~-]*\/[\w.@+~/-]*/g;
const EXTENSIONS =
  "py|pyi|ipynb|js|mjs|cjs|jsx|ts|tsx|go|rs|java|kt|rb|php|c|h|cc|cpp|hpp|cs|swift|scala|sh|bash|zsh|md|rst|txt|json|jsonl|yaml|yml|toml|ini|cfg|conf|lock|xml|html|css|scss|sql|csv|log|out|mod|sum|gradle|proto|env";
const FILE_NAME = new RegExp(
  `(?<![\\w.-])[\\w-]+(?:\\.[\\w-]+)*\\.(?:${EXTENSIONS})(?![\\w-])`,
  "g",
);
const MODULE_PATH = /(?<![\w.])[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*){2,}(?!\w)/g;
const ATTRIBUTE_OWNERS = new Set(["self", "this", "cls"]);
const WORD = /\w+/g;
const NUMBER = /(?<![\w.])\d{3,}(?!\w|\.\d)/g;
/** Punctuation that ends a sentence or a `path:line:` rather than a path. */
const TRAILING = /[.,:;!?]+$/;

/** A commit or object id: 7 or more lowercase hex digits. */
const HEX_ID = /^[0-9a-f]{7,}$/;
const CODE_SHAPES = [
  /[A-Za-z0-9]_|_[A-Za-z0-9]/,
  /[a-z][A-Z]/,
  /[A-Z]{2}[a-z]/,
  /[A-Za-z]\d|\d[A-Za-z]/,
];

/** Whether a word reads as a code identifier rather than as a word of prose. */
export function isCodeShaped(word: string): boolean {
  if (HEX_ID.test(word)) return /[a-f]/.test(word) && /\d/.test(word);
  return (
    word.length >= MIN_IDENTIFIER &&
    /^[A-Za-z_]/.test(word) &&
    CODE_SHAPES.some((shape) => shape.test(word))
  );
}

/**
 * The values an action wrote, each as its lines, in the order written: every string value of its
 * calls' arguments, every number of at least 3 digits (as a line of one number), then its text.
 * Only argument lines may be copied lines; the text's lines count by their tokens.
 */
export function actionValues(action: Action): ActionLine[][] {
  const values: ActionLine[][] = [];
  for (const input of action.inputs) collectValues(input, values);
  for (const text of action.texts) {
    values.push(text.split("\n").map((line) => ({ tokens: tokensOf(line) })));
  }
  return values;
}

function collectValues(value: unknown, values: ActionLine[][]): void {
  if (typeof value === "string") {
    values.push(
      value.split("\n").map((line) => {
        const trimmed = line.trim();
        const whole = trimmed.length >= MIN_LINE && /\S\s+\S/.test(trimmed);
        return { copy: whole ? trimmed : undefined, tokens: tokensOf(trimmed) };
      }),
    );
  } else if (typeof value === "number") {
    if (Number.isInteger(value) && Math.abs(value) >= MIN_NUMBER) {
      values.push([{ tokens: [{ kind: "number", text: String(Math.abs(value)) }] }]);
    }
  } else if (Array.isArray(value)) {
    for (const item of value) collectValues(item, values);
  } else if (typeof value === "object" && value !== null) {
    for (const item of Object.values(value)) collectValues(item, values);
  }
}

/** The paths, identifiers and numbers of one line of text, each once, in order. */
export function tokensOf(text: string): Reference[] {
  const found: Reference[] = [];
  let rest = text;
  const take = (pattern: RegExp, accept: (match: string) => string | undefined) => {
    rest = rest.replace(pattern, (match) => {
      const path = accept(match);
      if (path === undefined) return match;
      found.push({ kind: "path", text: path });
      return " ".repeat(match.length);
    });
  };
  take(URL, (match) => match.replace(TRAILING, ""));
  take(SLASH_PATH, (match) => {
    const path = match.replace(TRAILING, "");
    return /[A-Za-z]/.test(path) ? path : undefined;
  });
  take(FILE_NAME, (match) => match);
  take(MODULE_PATH, (match) =>
    ATTRIBUTE_OWNERS.has(match.slice(0, match.indexOf("."))) ? undefined : match,
  );
  for (const match of rest.matchAll(NUMBER)) found.push({ kind: "number", text: match[0] });
  for (const match of rest.matchAll(WORD)) {
    if (isCodeShaped(match[0]) && !/^\d+$/.test(match[0])) {
      found.push({ kind: "identifier", text: match[0] });
    }
  }
  const seen = new Set<string>();
  return found.filter((reference) => {
    const key = `${reference.kind}:${reference.text}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
