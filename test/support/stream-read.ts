import { SseParser } from "../../src/expand/sse.js";
import { wireShape } from "../../src/wire/registry.js";
import type { Provider } from "../../src/wire/types.js";
import { type ScriptedEvent, sseText } from "./scripted-upstream.js";

/** Feeds events one by one; returns how many were needed to decide, and the aggregate. */
export function readStream(provider: Provider, events: readonly ScriptedEvent[]) {
  const aggregator = wireShape(provider).response.stream();
  const parser = new SseParser();
  let decidedAfter: number | undefined;
  events.forEach((event, index) => {
    for (const parsed of parser.push(sseText(event))) aggregator.push(parsed);
    if (decidedAfter === undefined && aggregator.opening !== undefined) decidedAfter = index + 1;
  });
  return { opening: aggregator.opening, decidedAfter, turn: aggregator.finish() };
}
