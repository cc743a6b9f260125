import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { postCompact, testApp } from "../support/app.js";
import { MASKABLE_OUTPUTS, openaiBody } from "../support/bodies.js";
import { TEST_HASH_KEY } from "../support/hash-key.js";

const body = openaiBody(MASKABLE_OUTPUTS);
const plain = Buffer.from(body);
const threeLayers = gzipSync(brotliCompressSync(gzipSync(plain)));
// Decided whole (§4a), so the older outputs are masked and the body is compacted.
const session = { "x-context-guru-session": "encoded-bodies", "x-context-guru-cache": "cold" };

describe("POST /compact with a content-encoded body", () => {
  it.each<[string, Buffer]>([
    ["gzip", gzipSync(plain)],
    ["x-gzip", gzipSync(plain)],
    ["deflate", deflateSync(plain)],
    ["deflate", deflateRawSync(plain)],
    ["br", brotliCompressSync(plain)],
    ["gzip, br", brotliCompressSync(gzipSync(plain))],
    ["gzip, gzip", gzipSync(gzipSync(plain))],
    ["identity, deflate, identity, gzip", gzipSync(deflateSync(plain))],
  ])("%s is decompressed and compacted like the plain body", async (coding, encoded) => {
    // One deployment's key, so both apps write the same marker ids.
    const deployment = { store: { hash_key: TEST_HASH_KEY } };
    const { app } = testApp(deployment);
    const reference = await postCompact(testApp(deployment).app, body, { headers: session });
    const expected = await reference.text();
    const response = await postCompact(app, encoded, {
      headers: { ...session, "content-encoding": coding },
    });
    const text = await response.text();
    expect({
      status: response.status,
      type: response.headers.get("content-type"),
      encoding: response.headers.get("content-encoding"),
      markers: Number(response.headers.get("x-context-guru-markers")),
    }).toEqual({
      status: 200,
      type: "application/json",
      encoding: null,
      markers: Number(reference.headers.get("x-context-guru-markers")),
    });
    expect(expected).not.toBe(body);
    expect(text).toBe(expected);
  });

  it.each<[string, string, Buffer]>([
    ["an unknown coding", "compress", Buffer.from("\x1f\x9d\x90not-really-lzw")],
    ["bytes that do not decompress", "gzip", Buffer.from("this is not gzip at all")],
    ["one unknown coding among known ones", "gzip, compress", gzipSync(plain)],
    // Each layer would be a decompression of up to the body limit; no client stacks three.
    ["three codings, more than a client stacks", "gzip, br, gzip", threeLayers],
  ])("%s comes back as its own bytes under its own content-encoding", async (_, coding, bytes) => {
    const { app } = testApp();
    const response = await postCompact(app, bytes, { headers: { "content-encoding": coding } });
    expect({
      status: response.status,
      type: response.headers.get("content-type"),
      encoding: response.headers.get("content-encoding"),
      body: Buffer.from(await response.arrayBuffer()).equals(bytes),
    }).toEqual({ status: 200, type: "application/json", encoding: coding, body: true });
  });

  it("a body that decompresses past the body limit is 413, however small it came", async () => {
    const { app } = testApp({ limits: { body_bytes: 64 * 1024 } });
    const bomb = gzipSync(Buffer.alloc(1024 * 1024, 0x20));
    expect(bomb.byteLength).toBeLessThan(64 * 1024);
    const response = await postCompact(app, bomb, { headers: { "content-encoding": "gzip" } });
    expect([response.status, await response.json()]).toEqual([
      413,
      { error: "decompressed request body exceeds 65536 bytes" },
    ]);
  });

  it("identity is the same as no coding", async () => {
    const { app } = testApp();
    const response = await postCompact(app, "not json", {
      headers: { "content-encoding": "identity" },
    });
    expect([
      response.status,
      response.headers.get("content-encoding"),
      await response.text(),
    ]).toEqual([200, null, "not json"]);
  });
});
