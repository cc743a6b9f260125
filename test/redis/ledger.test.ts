import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scanBody } from "../../src/wire/json-scan.js";
import { logOutput, openaiBody } from "../support/bodies.js";
import { type RedisServer, startRedisServer } from "../support/redis-server.js";
import { type Replica, redisSuiteSkipped, replica, whenReady } from "./replicas.js";

const skipped = redisSuiteSkipped("the Redis session-ledger tests");
const OUTPUTS = Array.from({ length: 7 }, (_, index) => logOutput(120, `r${index}`));
const turn = (k: number) => openaiBody(OUTPUTS.slice(0, k));
const messageTexts = (text: string) =>
  (scanBody(text)?.messages ?? []).map((span) => text.slice(span.start, span.end));

describe.skipIf(skipped)("the session ledger shared by two replicas on one Redis (§4a)", () => {
  let server: RedisServer;
  let a: Replica;
  let b: Replica;
  let clean: Replica;
  let clean2: Replica;

  beforeAll(async () => {
    server = await startRedisServer();
    a = await replica(server.url);
    b = await replica(server.url);
    clean = await replica(server.url, { store: { enabled: false }, marker_mode: "off" });
    clean2 = await replica(server.url, { store: { enabled: false }, marker_mode: "off" });
    await Promise.all([a, b, clean, clean2].map((target) => whenReady(target)));
  });
  afterAll(async () => {
    await Promise.all([a, b, clean, clean2].map((target) => target?.close()));
    await server?.close();
  });

  const post = async (target: Replica, body: string, headers: Record<string, string>) => {
    const response = await target.app.request("/compact", {
      method: "POST",
      body,
      headers: { "content-type": "application/json", ...headers },
    });
    return { text: await response.text(), cache: response.headers.get("x-context-guru-cache") };
  };

  it.each([
    ["reversible", () => [a, b] as const],
    ["clean (stashes off, ledger on)", () => [clean, clean2] as const],
  ])(
    "%s: a turn decided on one replica comes back byte for byte from the other",
    async (_, pick) => {
      const [first, second] = pick();
      const session = { "x-context-guru-session": `ledger-${first === clean ? "clean" : "rev"}` };
      const cold = await post(first, turn(5), { ...session, "x-context-guru-cache": "cold" });
      const warm = await post(second, turn(6), session);
      const sent = messageTexts(cold.text);
      expect(cold.text).toContain("[older tool output masked");
      expect(warm.cache).toBe("warm");
      expect(messageTexts(warm.text).slice(0, sent.length)).toEqual(sent);
    },
  );
});
