/** Splitting a shell command line into words, the little of POSIX shell syntax a filter needs. */

/** Index of the quote closing the one at `open` (a `"` may be escaped), or the text's length. */
function closingQuote(command: string, open: number): number {
  const quote = command[open];
  for (let at = open + 1; at < command.length; at++) {
    if (command[at] === quote) return at;
    if (quote === '"' && command[at] === "\\") at++;
  }
  return command.length;
}

/**
 * Pipelines of words, `[pipeline][stage][word]`: pipelines are separated by `;`, `&&`, `||`, `&`,
 * newlines and parentheses, stages by `|`. Quotes and escapes are resolved; comments and
 * redirections (with their targets) are left out.
 */
export function tokenize(command: string): string[][][] {
  const pipelines: string[][][] = [];
  let stages: string[][] = [];
  let words: string[] = [];
  let word: string | undefined;
  let skipNextWord = false;
  const endWord = () => {
    if (word !== undefined) {
      if (skipNextWord) skipNextWord = false;
      else words.push(word);
    }
    word = undefined;
  };
  const endStage = () => {
    endWord();
    if (words.length > 0) stages.push(words);
    words = [];
  };
  const endPipeline = () => {
    endStage();
    if (stages.length > 0) pipelines.push(stages);
    stages = [];
  };
  for (let at = 0; at < command.length; at++) {
    const char = command[at] as string;
    const next = command[at + 1];
    if (char === "'" || char === '"') {
      const end = closingQuote(command, at);
      const quoted = command.slice(at + 1, end);
      word = (word ?? "") + (char === '"' ? quoted.replace(/\\(["\\$`])/g, "$1") : quoted);
      at = end;
    } else if (char === "\\") {
      if (next !== "\n" && next !== undefined) word = (word ?? "") + next;
      at++;
    } else if (char === "#" && word === undefined) {
      const newline = command.indexOf("\n", at);
      at = (newline === -1 ? command.length : newline) - 1;
    } else if (char === ">" || char === "<" || (char === "&" && next === ">")) {
      // A redirection: drop its file-descriptor number, its operator and its target word.
      if (word !== undefined && /^\d+$/.test(word)) word = undefined;
      endWord();
      while (/[<>&|-]/.test(command[at + 1] ?? "")) at++;
      skipNextWord = true;
    } else if (char === " " || char === "\t") {
      endWord();
    } else if (char === "|" && next !== "|") {
      endStage();
      if (next === "&") at++;
    } else if (
      char === "\n" ||
      char === ";" ||
      char === "&" ||
      char === "|" ||
      char === "(" ||
      char === ")"
    ) {
      endPipeline();
      if ((char === "&" || char === "|") && next === char) at++;
    } else {
      word = (word ?? "") + char;
    }
  }
  endPipeline();
  return pipelines;
}
