/**
 * Character access for loops over long texts (the body scanner, the JSON outline, token bounds).
 * `text.charCodeAt(at)` called as a method is inlined by V8 only while `String.prototype` keeps
 * fast properties, which it loses for good once any loaded module subclasses `String` (ioredis
 * does, for RESP3 verbatim strings): from then on each call is a property lookup, and a loop over
 * a megabyte runs several times slower. Called through a constant, the built-in stays inlined
 * whatever else the process has loaded.
 */
const charCodeAt = String.prototype.charCodeAt;
const codePointAt = String.prototype.codePointAt;

/** `text.charCodeAt(at)`: the UTF-16 unit at `at`, NaN past the end. */
export const codeAt = (text: string, at: number): number => charCodeAt.call(text, at);

/** `text.codePointAt(at)`: the code point starting at `at`, undefined past the end. */
export const pointAt = (text: string, at: number): number | undefined => codePointAt.call(text, at);

const SPACE = /\s/;

/** Whether a UTF-16 unit is white space as `\s` reads it (read by code below U+00A0). */
export function isBlankCode(code: number): boolean {
  if (code === 0x20 || (code >= 0x09 && code <= 0x0d)) return true;
  if (code < 0xa0) return false;
  return SPACE.test(String.fromCharCode(code));
}
