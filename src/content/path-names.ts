/**
 * How a path the agent wrote (in a call's arguments, a command line, its own text) names a file:
 * the same file however it was written (`/testbed/tests/models.py`, `tests/models.py`,
 * `models.py`), a directory that holds it, or a glob that matches it. Paths are compared as
 * written, never resolved against a working directory: a relative path names every file it is
 * the tail of.
 */

/** Paths too broad to say which files the agent means. */
const TOO_BROAD = new Set(["", ".", "..", "/", "~", "*", "**"]);
const GLOB = /[*?[]/;

/** `path` made comparable: `./` at the start and `/` at the end gone, runs of `/` one. */
export function normalPath(path: string): string {
  let normal = path.replace(/\/{2,}/g, "/");
  while (normal.startsWith("./")) normal = normal.slice(2);
  return normal.length > 1 && normal.endsWith("/") ? normal.slice(0, -1) : normal;
}

/** True when `a` and `b` are the same file: equal, or one is the other's tail after a `/`. */
export function samePath(a: string, b: string): boolean {
  const first = normalPath(a);
  const second = normalPath(b);
  if (TOO_BROAD.has(first) || TOO_BROAD.has(second)) return false;
  return first === second || first.endsWith(`/${second}`) || second.endsWith(`/${first}`);
}

/** True when `named` names `file`: the same file, a directory that holds it, a glob matching it. */
export function namesFile(named: string, file: string): boolean {
  const scope = normalPath(named);
  const path = normalPath(file);
  if (TOO_BROAD.has(scope) || TOO_BROAD.has(path)) return false;
  if (GLOB.test(scope)) return globPattern(scope).test(path);
  if (samePath(scope, path)) return true;
  if (path.startsWith(`${scope}/`)) return true;
  return !scope.startsWith("/") && path.includes(`/${scope}/`);
}

/** A glob as a pattern over a whole path or its tail after a `/`: `*` and `?` stay in one name. */
function globPattern(glob: string): RegExp {
  let source = "";
  for (let at = 0; at < glob.length; at++) {
    const char = glob[at] as string;
    if (char === "*" && glob[at + 1] === "*") {
      source += ".*";
      at++;
    } else if (char === "*") source += "[^/]*";
    else if (char === "?") source += "[^/]";
    else source += char.replace(/[\\^$.|+()[\]{}]/g, "\\$&");
  }
  return new RegExp(glob.startsWith("/") ? `^${source}$` : `(?:^|/)${source}$`);
}

/** A name and an extension of letters and digits, with a letter: `query.py`, `run_test.py`. */
const FILE_NAME = /^[\w.@+-]*\w\.[A-Za-z0-9]*[A-Za-z][A-Za-z0-9]*$/;

/**
 * True when a word reads as a path: holds a `/` beside a letter or `_` (`src/`, `/tmp/x`), or is
 * a file name with an extension. Options (`-n`), assignments and URLs are not paths.
 */
export function isPathWord(word: string): boolean {
  if (word.length < 3 || word.length > 1024 || /[\s=]|:\/\//.test(word)) return false;
  if (word.startsWith("-")) return false;
  if (word.includes("/")) return /[A-Za-z_]/.test(word);
  return FILE_NAME.test(word);
}

/**
 * The paths a text names, in order, each once: runs of path characters that read as paths
 * (isPathWord), a trailing `.`, `,` or `)` left out (`see query.py.` names `query.py`); a
 * `:line` or `::test` after a path ends it.
 */
export function pathsIn(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(/[\w.~/@+*?-]+/g)) {
    const word = match[0].replace(/[.,]+$/, "");
    // `//host/…` is the rest of a URL, not a path.
    if (isPathWord(word) && !word.startsWith("//")) found.add(word);
  }
  return [...found];
}
