import { isAscii } from "node:buffer";

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * A request body's text: its bytes read as UTF-8 (a byte order mark kept as a character),
 * undefined when they are not UTF-8. Bytes that are all ASCII, as most bodies are (JSON escapes
 * what is not), are read a byte a character: a check of a few hundred microseconds for 9 MB
 * against 20–30 ms to decode them.
 */
export function utf8Text(bytes: Uint8Array | ArrayBuffer): string | undefined {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  if (isAscii(view)) return asciiText(view);
  try {
    return utf8.decode(view);
  } catch {
    return undefined;
  }
}

/**
 * Node keeps a one-byte string decoded from this many bytes or more outside the JavaScript heap,
 * in memory its allocator hands out again (EXTERN_APEX in its src/string_bytes.cc); a shorter
 * one is copied into the heap, into pages touched for the first time for each body.
 */
const EXTERNAL_CHARS = 0xfbee9;
/**
 * Bodies shorter than this are read as they are: their pages cost less than the detour, and a
 * string kept of one (a slice) keeps at most twice its length alive.
 */
const DETOUR_CHARS = 512 * 1024;

/**
 * ASCII bytes as a string. A body of half a megabyte up to EXTERNAL_CHARS, in a buffer
 * that goes on at least that far (the kept buffers bodies are received into: src/routes/
 * body-buffers.ts), is read that far and cut to its own length: a slice of an external string,
 * no copy. A megabyte read into fresh heap pages took 3.3 ms on a 2-core VM; this way, 0.3 ms.
 * What the buffer holds past the body is in the external string only, never in the text.
 */
function asciiText(view: Uint8Array): string {
  const length = view.byteLength;
  const room = view.buffer.byteLength - view.byteOffset;
  if (length >= DETOUR_CHARS && length < EXTERNAL_CHARS && room >= EXTERNAL_CHARS) {
    const wide = Buffer.from(view.buffer, view.byteOffset, EXTERNAL_CHARS);
    return wide.toString("latin1").slice(0, length);
  }
  return Buffer.from(view.buffer, view.byteOffset, length).toString("latin1");
}

/** A body as text: a string as it is, bytes as utf8Text reads them. */
export function bodyText(body: string | Uint8Array): string | undefined {
  return typeof body === "string" ? body : utf8Text(body);
}
