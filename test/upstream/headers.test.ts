import { describe, expect, it } from "vitest";
import { relayedResponseHeaders, upstreamRequestHeaders } from "../../src/upstream/headers.js";
import { wireShape } from "../../src/wire/registry.js";

const entries = (headers: Headers) => Object.fromEntries(headers.entries());

describe("upstream request headers", () => {
  const incoming = new Headers({
    authorization: "Bearer client",
    "x-api-key": "client-key",
    "anthropic-version": "2023-06-01",
    connection: "keep-alive, x-drop-me",
    "x-drop-me": "1",
    "keep-alive": "timeout=5",
    "transfer-encoding": "chunked",
    te: "trailers",
    upgrade: "h2c",
    "proxy-authorization": "Basic x",
    host: "proxy.local",
    "content-length": "12",
    "content-type": "text/plain",
    cookie: "a=b",
    "accept-encoding": "br",
    "x-context-guru-session": "s",
    "user-agent": "sdk",
  });

  it.each([
    [
      "client credentials pass through",
      "openai",
      undefined,
      {
        authorization: "Bearer client",
        "x-api-key": "client-key",
        "anthropic-version": "2023-06-01",
        "content-type": "application/json",
        "user-agent": "sdk",
      },
    ],
    [
      "an OpenAI gateway key replaces them",
      "openai",
      "gw",
      {
        authorization: "Bearer gw",
        "anthropic-version": "2023-06-01",
        "content-type": "application/json",
        "user-agent": "sdk",
      },
    ],
    [
      "an Anthropic gateway key replaces them",
      "anthropic",
      "gw",
      {
        "x-api-key": "gw",
        "anthropic-version": "2023-06-01",
        "content-type": "application/json",
        "user-agent": "sdk",
      },
    ],
  ] as const)("%s", (_, provider, key, expected) => {
    expect(entries(upstreamRequestHeaders(incoming, wireShape(provider).upstream, key))).toEqual(
      expected,
    );
  });
});

describe("relayed response headers", () => {
  it("drops framing, encoding, cookies, hop-by-hop headers and the upstream's x-context-guru-*", () => {
    const upstream = new Headers({
      "content-type": "text/event-stream",
      "content-encoding": "gzip",
      "content-length": "100",
      "transfer-encoding": "chunked",
      connection: "close",
      "set-cookie": "a=b",
      "x-request-id": "req_1",
      "retry-after": "3",
      "x-context-guru-markers": "7",
      "X-Context-Guru-Session": "someone-else",
      "x-context-guru-expand-rounds": "3",
    });
    expect(entries(relayedResponseHeaders(upstream))).toEqual({
      "content-type": "text/event-stream",
      "x-request-id": "req_1",
      "retry-after": "3",
    });
  });
});
