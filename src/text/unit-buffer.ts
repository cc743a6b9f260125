/**
 * A text's UTF-16 units in a buffer, rewritten in place and read back as one string (the
 * terminal cleaning, src/text/terminal.ts): a byte a unit when every unit fits one (most logs),
 * else two. The units are copied in one write, a copy of memory (a one-byte string's as Latin-1,
 * any other's as UTF-16), where a loop reading the string unit by unit into the buffer cost
 * about 1.5 ns a unit.
 *
 * The buffer is held from one text to the next, up to HELD_BYTES: memory a process touches for
 * the first time costs a page fault a page (see working-arrays.ts), and a fresh buffer the size
 * of a 700 kB output, filled, took longer than the cleaning done in it. A longer text gets a
 * buffer of its own.
 */
export type Units = Uint8Array | Uint16Array;

/** A megabyte of two-byte text, or two of one-byte text. */
export const HELD_BYTES = 2 * 1024 * 1024;

const WIDER_THAN_A_BYTE = /[\u0100-\uffff]/;
const BIG_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 0;

let held: ArrayBuffer | undefined;

function bufferOf(bytes: number): ArrayBuffer {
  if (bytes > HELD_BYTES) return new ArrayBuffer(bytes);
  if (held === undefined || held.byteLength < bytes) held = new ArrayBuffer(bytes);
  return held;
}

/**
 * `text`'s units, exactly as many (a unit past them reads as undefined). They may share their
 * buffer with the next text's: read them back (textOf) before units of another text are asked
 * for.
 */
export function unitsOf(text: string): Units {
  if (!WIDER_THAN_A_BYTE.test(text)) {
    const buffer = bufferOf(text.length);
    Buffer.from(buffer, 0, text.length).write(text, 0, "latin1");
    return new Uint8Array(buffer, 0, text.length);
  }
  const buffer = bufferOf(text.length * 2);
  const bytes = Buffer.from(buffer, 0, text.length * 2);
  bytes.write(text, 0, "utf16le");
  if (BIG_ENDIAN) bytes.swap16();
  return new Uint16Array(buffer, 0, text.length);
}

/**
 * `units[0, length)` as a string: a byte a unit read as Latin-1 (a one-byte string, as the
 * text's own), else two read as UTF-16 (every unit as it was, a lone surrogate too).
 */
export function textOf(units: Units, length: number): string {
  if (units instanceof Uint8Array) {
    return Buffer.from(units.buffer, units.byteOffset, length).toString("latin1");
  }
  const bytes = Buffer.from(units.buffer, units.byteOffset, length * 2);
  if (BIG_ENDIAN) bytes.swap16();
  return bytes.toString("utf16le");
}
