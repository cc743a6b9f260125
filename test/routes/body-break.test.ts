import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openaiEvents } from "../support/model-replies.js";
import { type Harness, openaiConversation, startHarness } from "../support/proxy-harness.js";
import { sseText } from "../support/scripted-upstream.js";

/** The body's text until it ended or broke, and whether it broke. */
async function readAll(response: Response): Promise<{ text: string; broken: boolean }> {
  const reader = response.body?.getReader();
  const parts: Uint8Array[] = [];
  try {
    for (;;) {
      const result = await reader?.read();
      if (!result || result.done) return { text: Buffer.concat(parts).toString(), broken: false };
      parts.push(result.value);
    }
  } catch {
    return { text: Buffer.concat(parts).toString(), broken: true };
  }
}

describe("a proxied stream the upstream breaks off, over a real socket", () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(() => harness.close());

  it("reaches the client as the bytes sent so far and a broken body, with nothing printed", async () => {
    const events = openaiEvents(["partial ", "answer"]);
    harness.upstream.reply({ sse: events, reset: { before: 3 } });
    const printed = [vi.spyOn(console, "error"), vi.spyOn(console, "info")];
    const stderr = vi.spyOn(process.stderr, "write");
    try {
      const response = await fetch(`http://127.0.0.1:${harness.port}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer sk-client" },
        body: JSON.stringify({ ...openaiConversation(), stream: true }),
      });
      expect(response.status).toBe(200);
      const { text, broken } = await readAll(response);
      expect(broken).toBe(true);
      expect(text).toBe(events.slice(0, 3).map(sseText).join(""));
      expect(text).not.toContain("Error");
      // Give the adapter the moment it would take to report the failure.
      await new Promise((done) => setTimeout(done, 50));
      for (const spy of printed) expect(spy).not.toHaveBeenCalled();
      expect(stderr).not.toHaveBeenCalled();
    } finally {
      for (const spy of [...printed, stderr]) spy.mockRestore();
    }
  });
});
