import { camel, type Project } from "./project.js";
import type { Random } from "./random.js";

const PY_BODIES: readonly ((a: string, b: string) => string[])[] = [
  (a, b) => [
    `if ${a} in self._cache:`,
    `    return self._cache[${a}]`,
    `for key, value in self.${b}.items():`,
    `    if value.name == ${a}:`,
    `        self._cache[${a}] = key`,
    `        return key`,
    `raise LookupError("Cannot resolve %r into a ${b}." % ${a})`,
  ],
  (a, b) => [
    `result = []`,
    `for item in ${a}:`,
    `    if item is None:`,
    `        continue`,
    `    # Skip entries the ${b} already holds.`,
    `    if item.pk in self.${b}:`,
    `        continue`,
    `    result.append(self._prepare(item))`,
    `return result`,
  ],
  (a, b) => [
    `assert ${a} is not None, "${a} must be set"`,
    `clone = self.__class__(self.model)`,
    `clone.${b} = self.${b}.copy()`,
    `clone.where = self.where.clone()`,
    `clone.${a} = ${a}`,
    `return clone`,
  ],
  (a, b) => [
    `try:`,
    `    value = self.${b}[${a}]`,
    `except KeyError:`,
    `    logger.warning("missing ${b} entry: %s", ${a})`,
    `    value = self.default_${b}`,
    `return value`,
  ],
];

const TS_BODIES: readonly ((a: string, b: string) => string[])[] = [
  (a, b) => [
    `const cached = this.cache.get(${a});`,
    `if (cached !== undefined) return cached;`,
    `for (const [key, value] of this.${b}) {`,
    `  if (value.name === ${a}) {`,
    `    this.cache.set(${a}, key);`,
    `    return key;`,
    `  }`,
    `}`,
    `throw new Error(\`cannot resolve \${${a}} into a ${b}\`);`,
  ],
  (a, b) => [
    `const result: Item[] = [];`,
    `for (const item of ${a}) {`,
    `  if (item === null) continue;`,
    `  // Skip entries the ${b} already holds.`,
    `  if (this.${b}.has(item.id)) continue;`,
    `  result.push(this.prepare(item));`,
    `}`,
    `return result;`,
  ],
  (a, b) => [
    `if (!${a}) throw new TypeError("${a} is required");`,
    `const next = { ...this.${b}, [${a}.id]: ${a} };`,
    `this.emit("change", next);`,
    `return next;`,
  ],
  (a, b) => [
    `try {`,
    `  return await this.${b}.load(${a});`,
    `} catch (error) {`,
    `  logger.warn({ err: error, ${a} }, "${b} lookup failed");`,
    `  return this.defaults.${b};`,
    `}`,
  ],
];

/** A source file of the project: plausible code built from its vocabulary, one line per entry. */
export function sourceFile(project: Project, random: Random): string[] {
  const lines: string[] = [];
  const target = random.int(120, 520);
  const python = project.language === "python";
  if (python) {
    lines.push(
      '"""Core helpers for the package."""',
      "import logging",
      "from collections import OrderedDict",
      "",
      "logger = logging.getLogger(__name__)",
      "",
    );
  } else {
    lines.push(
      'import { EventEmitter } from "node:events";',
      'import { logger } from "./logger.js";',
      "",
      "type Item = { id: string; name: string };",
      "",
    );
  }
  while (lines.length < target) {
    const className = pascal(random.pick(project.words));
    lines.push(python ? `class ${className}:` : `export class ${className} extends EventEmitter {`);
    const methods = random.int(2, 6);
    for (let method = 0; method < methods; method++) {
      const name = random.pick(project.words);
      const a = random.pick(["name", "items", "alias", "value", "key", "rhs"]);
      const b = random.pick(["alias_map", "entries", "fields", "registry", "table_map"]);
      const body = random.pick(python ? PY_BODIES : TS_BODIES)(a, python ? b : camel(b));
      if (python) {
        lines.push(`    def ${name}(self, ${a}):`, `        """${sentence(name, random)}"""`);
        for (const line of body) lines.push(`        ${line}`);
        lines.push("");
      } else {
        lines.push(`  /** ${sentence(name, random)} */`, `  ${name}(${a}: unknown) {`);
        for (const line of body) lines.push(`    ${line}`);
        lines.push("  }", "");
      }
    }
    if (!python) lines.push("}", "");
  }
  return lines;
}

/** The Read tool's view of lines [offset, offset + limit): `cat -n` style numbering. */
export function numbered(lines: readonly string[], offset: number, limit: number): string {
  return lines
    .slice(offset - 1, offset - 1 + limit)
    .map((line, index) => `${String(offset + index).padStart(6)}\t${line}`)
    .join("\n");
}

function pascal(word: string): string {
  const joined = camel(word);
  return joined.charAt(0).toUpperCase() + joined.slice(1);
}

function sentence(name: string, random: Random): string {
  const words = name.split(/_|(?=[A-Z])/).map((word) => word.toLowerCase());
  return `${random.pick(["Return", "Compute", "Update", "Validate"])} the ${words.join(" ")} for this instance.`;
}
