import type { Random } from "./random.js";

export type Language = "python" | "node";

/** The repository a generated session works in: its language, files and vocabulary. */
export interface Project {
  readonly language: Language;
  readonly root: string;
  readonly name: string;
  readonly sources: readonly string[];
  readonly tests: readonly string[];
  /** Identifiers that appear in the code, grep patterns and test names. */
  readonly words: readonly string[];
}

const NOUNS = [
  "query",
  "alias",
  "session",
  "router",
  "payload",
  "schema",
  "token",
  "cache",
  "record",
  "handler",
  "field",
  "queue",
  "worker",
  "config",
  "request",
  "response",
  "manifest",
  "resolver",
];
const VERBS = ["build", "resolve", "parse", "combine", "render", "load", "flush", "apply", "merge"];

const PYTHON_PACKAGES = ["orm", "http", "scheduler", "billing", "auth"];
const NODE_PACKAGES = ["api", "jobs", "store", "cli", "gateway"];

export function makeProject(random: Random): Project {
  const language: Language = random.chance(0.5) ? "python" : "node";
  const words = Array.from(
    { length: 12 },
    () => `${random.pick(VERBS)}_${random.pick(NOUNS)}`,
  ).filter((word, index, all) => all.indexOf(word) === index);
  if (language === "python") {
    const pkg = random.pick(PYTHON_PACKAGES);
    const root = "/testbed";
    const modules = Array.from(new Set(Array.from({ length: 6 }, () => random.pick(NOUNS))));
    return {
      language,
      root,
      name: pkg,
      sources: modules.map((module) => `${root}/${pkg}/${module}.py`),
      tests: modules.slice(0, 3).map((module) => `tests/test_${module}.py`),
      words,
    };
  }
  const pkg = random.pick(NODE_PACKAGES);
  const root = `/home/dev/${pkg}`;
  const modules = Array.from(new Set(Array.from({ length: 6 }, () => random.pick(NOUNS))));
  return {
    language,
    root,
    name: pkg,
    sources: modules.map((module) => `${root}/src/${module}.ts`),
    tests: modules.slice(0, 3).map((module) => `test/${module}.test.ts`),
    words: words.map(camel),
  };
}

export function camel(word: string): string {
  return word.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
}
