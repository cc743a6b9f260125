import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { codeAt, pointAt } from "../../src/text/char-code.js";

const SRC = resolve(import.meta.dirname, "../../src");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sources(join(dir, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(dir, entry.name)]
        : [],
  );
}

describe("character access", () => {
  it("answers as the String methods do, past the end and across surrogate pairs", () => {
    const text = "a😀é";
    for (let at = -1; at <= text.length; at++) {
      expect(codeAt(text, at)).toEqual(text.charCodeAt(at));
      expect(pointAt(text, at)).toEqual(text.codePointAt(at));
    }
  });

  it("no module calls charCodeAt or codePointAt as a method, which slows once String is subclassed", () => {
    const calls = sources(SRC).flatMap((file) => {
      const lines = readFileSync(file, "utf8").split("\n");
      return lines
        .map((line, index) => ({ line, at: `${relative(SRC, file)}:${index + 1}` }))
        .filter(({ line }) => /\.(charCodeAt|codePointAt)\(/.test(line))
        .filter(({ line }) => !/^\s*(\/\*|\*|\/\/)/.test(line))
        .map(({ at }) => at);
    });
    expect(calls).toEqual([]);
  });
});
