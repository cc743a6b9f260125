import { ChainMemo } from "../../../src/session/chain.js";

/**
 * Feeds a ChainMemo one small message sliced out of each of many large bodies, none of which is
 * kept; prints the heap used afterwards. Run with a small heap: a memo that held the slices
 * themselves would keep every body alive and run out of heap.
 */
const bodies = Number(process.argv[2] ?? 40);
const bodyChars = Number(process.argv[3] ?? 4_000_000);
const memo = new ChainMemo(64 * 1024 * 1024);
for (let index = 0; index < bodies; index++) {
  const body = `${String(index).padStart(8, "0")}${"x".repeat(bodyChars)}`;
  const raw = body.slice(0, 200);
  memo.chain(`session-${index}`, "received", [raw], () => JSON.parse(raw), {
    bodyChars: body.length,
  });
}
globalThis.gc?.();
process.stdout.write(String(process.memoryUsage().heapUsed));
