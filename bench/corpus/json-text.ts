/** JSON text written verbatim: number spellings such as `1.0`, `1e3` or integers beyond 2^53. */
export class RawJson {
  constructor(readonly text: string) {
    JSON.parse(text);
  }
}

/** A string literal with every non-ASCII character and `/` escaped, as some clients write them. */
export function escapedString(text: string): RawJson {
  let out = '"';
  for (const char of JSON.stringify(text).slice(1, -1)) {
    const code = char.charCodeAt(0);
    if (char === "/") out += "\\/";
    else if (code > 0x7e) {
      for (let at = 0; at < char.length; at++) {
        out += `\\u${char.charCodeAt(at).toString(16).padStart(4, "0")}`;
      }
    } else out += char;
  }
  return new RawJson(`${out}"`);
}

/**
 * Serialises like `JSON.stringify(value, null, indent)` but keeps RawJson fragments verbatim,
 * so a body can carry the spellings a byte-preserving service must not normalise.
 */
export function serialize(value: unknown, indent = 0, depth = 0): string {
  if (value instanceof RawJson) return value.text;
  if (value === null || typeof value !== "object") {
    const text = JSON.stringify(value);
    if (text === undefined) throw new TypeError(`cannot serialise a ${typeof value}`);
    return text;
  }
  const pad = indent > 0 ? `\n${" ".repeat(indent * (depth + 1))}` : "";
  const close = indent > 0 ? `\n${" ".repeat(indent * depth)}` : "";
  const colon = indent > 0 ? ": " : ":";
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    const items = value.map((item) => pad + serialize(item, indent, depth + 1));
    return `[${items.join(",")}${close}]`;
  }
  const entries = Object.entries(value).filter(([, item]) => item !== undefined);
  if (entries.length === 0) return "{}";
  const members = entries.map(
    ([key, item]) => `${pad}${JSON.stringify(key)}${colon}${serialize(item, indent, depth + 1)}`,
  );
  return `{${members.join(",")}${close}}`;
}
