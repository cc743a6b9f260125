import { decode, encode } from "@toon-format/toon";
import type { OutputComponent } from "../pipeline/types.js";
import { parsedExactly, parseJsonDocument } from "./json-document.js";

/**
 * Reformat: JSON whose payload is an array of uniform objects (the root itself, or a property of
 * a root object envelope) becomes TOON, a tabular notation that states the keys once.
 *
 * Adopted only when it is lossless and smaller: the JSON parsed exactly (no precision lost, no
 * repeated keys), TOON decodes back to the same value with the same key order, and the TOON text
 * has fewer tokens than the current text.
 */
export const toon = {
  name: "toon",
  kind: "reformat",
  scope: "output",
  reachesBack: false,
  bounds: false,
  readsLines: false,
  reduce(output, options, context) {
    const document = parseJsonDocument(output.text);
    if (document === undefined || !holdsUniformArray(document.value)) return undefined;
    if (!context.atLeastTokens(output.text, options.min_tokens)) return undefined;
    if (!parsedExactly(document)) return undefined;
    const encoded = encode(document.value);
    if (!decodesTo(encoded, document.value)) return undefined;
    return context.tokens(encoded) < context.tokens(output.text) ? encoded : undefined;
  },
} satisfies OutputComponent<"toon">;

/** The root is a uniform array of objects, or an object with such an array as a property. */
function holdsUniformArray(value: object): boolean {
  if (Array.isArray(value)) return isUniformArray(value);
  return Object.values(value).some(
    (property) => Array.isArray(property) && isUniformArray(property),
  );
}

/** At least two objects, all with the same keys in the same order, every value a primitive. */
function isUniformArray(items: readonly unknown[]): boolean {
  if (items.length < 2) return false;
  let keys: string | undefined;
  for (const item of items) {
    if (typeof item !== "object" || item === null || Array.isArray(item)) return false;
    const values = Object.values(item);
    if (
      values.length === 0 ||
      values.some((value) => typeof value === "object" && value !== null)
    ) {
      return false;
    }
    const itemKeys = JSON.stringify(Object.keys(item));
    if (keys === undefined) keys = itemKeys;
    else if (itemKeys !== keys) return false;
  }
  return true;
}

function decodesTo(encoded: string, value: object): boolean {
  try {
    return JSON.stringify(decode(encoded)) === JSON.stringify(value);
  } catch {
    return false;
  }
}
