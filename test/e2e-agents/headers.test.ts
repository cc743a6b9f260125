import { describe, expect, it } from "vitest";
import { headerDifference } from "../../scripts/e2e-agents/checks/headers.js";

const sent = [
  "Host",
  "127.0.0.1:9",
  "Connection",
  "keep-alive, x-hop",
  "x-hop",
  "1",
  "Content-Length",
  "120",
  "accept-encoding",
  "zstd,gzip",
  "x-context-guru-cache",
  "cold",
  "anthropic-beta",
  "a,b",
  "x-api-key",
  "k",
  "X-Stainless-Retry-Count",
  "0",
];

describe("client headers at the upstream", () => {
  it("passes what a proxy forwards, whatever the case and order, and reports what its client added", () => {
    const received = [
      "x-stainless-retry-count",
      "0",
      "x-api-key",
      "k",
      "anthropic-beta",
      "a,b",
      "content-length",
      "80",
      "accept-language",
      "*",
      "x-e2e-exchange",
      "E001",
    ];
    expect(headerDifference(sent, received)).toEqual({
      missing: [],
      changed: [],
      added: ["accept-language"],
    });
  });

  it("names a header that did not arrive and one that arrived changed", () => {
    const received = ["x-api-key", "other", "anthropic-beta", "a,b"];
    expect(headerDifference(sent, received)).toEqual({
      missing: ["x-stainless-retry-count"],
      changed: ["x-api-key: k → other"],
      added: [],
    });
  });
});
