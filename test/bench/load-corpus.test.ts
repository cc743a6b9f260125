import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadCorpus } from "../../bench/load-corpus.js";

const folders: string[] = [];

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "bench-corpus-"));
  folders.push(dir);
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

afterEach(() => {
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const openai = JSON.stringify({ provider: "openai", body: { messages: [], n: 1 } });
const anthropic = JSON.stringify({ provider: "anthropic", body: '{"system":"s","messages":[]}' });

describe("loadCorpus", () => {
  it("follows index.json order and its sessions", () => {
    const dir = folder({
      "a.json": openai,
      "b.json": anthropic,
      "index.json": JSON.stringify([
        { file: "b.json", session: 2 },
        { file: "a.json", session: "x" },
      ]),
    });
    expect(loadCorpus(dir)).toEqual([
      {
        name: "b",
        provider: "anthropic",
        session: "2/anthropic",
        body: '{"system":"s","messages":[]}',
      },
      { name: "a", provider: "openai", session: "x/openai", body: '{"messages":[],"n":1}' },
    ]);
  });

  it("reads sorted names without an index, taking the session from the name", () => {
    const dir = folder({ "s1-t002-openai.json": openai, "s1-t001-openai.json": openai });
    expect(loadCorpus(dir).map((body) => [body.name, body.session])).toEqual([
      ["s1-t001-openai", "s1/openai"],
      ["s1-t002-openai", "s1/openai"],
    ]);
  });

  it.each([
    [
      { "x.json": '{"provider":"gemini","body":{}}' },
      'x.json: expected {"provider": "openai"|"anthropic", "body": …}',
    ],
    [
      { "x.json": '{"provider":"openai","body":3}' },
      'x.json: "body" must be an object or a JSON string',
    ],
    [{ "index.json": '[{"name":"x"}]' }, 'has no "file"'],
    [{ "notes.txt": "" }, "no .json bodies in"],
  ])("rejects %j", (files, message) => {
    expect(() => loadCorpus(folder(files))).toThrow(message);
  });

  it("names a missing folder", () => {
    expect(() => loadCorpus("/nonexistent/corpus")).toThrow(
      "corpus folder not found: /nonexistent/corpus",
    );
  });
});
