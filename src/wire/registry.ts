import type { UpstreamRoute, WireShape } from "./shape.js";
import { anthropicMessages } from "./shapes/anthropic-messages/index.js";
import { openaiChat } from "./shapes/openai-chat/index.js";
import { openaiResponses } from "./shapes/responses/index.js";
import type { Provider, Upstream } from "./types.js";

/**
 * Every wire shape the service reads (§3), one line each, in the order `auto` sniffing asks them
 * (§2): the first whose `detects` holds is a body's shape. OpenAI chat, last, takes any body.
 */
export const SHAPES = [openaiResponses, anthropicMessages, openaiChat] as const;

const BY_NAME: ReadonlyMap<string, WireShape> = new Map(SHAPES.map((shape) => [shape.name, shape]));

/** The shape called `name`. */
export function wireShape(name: Provider): WireShape {
  const shape = BY_NAME.get(name);
  if (shape === undefined) throw new RangeError(`no wire shape ${name}`);
  return shape;
}

/** Whether `name` names a registered shape. */
export function isProvider(name: string): name is Provider {
  return BY_NAME.has(name);
}

/** The shape `auto` sniffing (§2) reads `body` as. */
export function detectShape(body: Record<string, unknown>): WireShape {
  // OpenAI chat, last, claims every body: the search always ends on a shape.
  return SHAPES.find((shape) => shape.detects(body)) ?? openaiChat;
}

/**
 * How a configured gateway key is sent to an upstream family, as the shapes it serves send it:
 * for requests to that upstream that belong to no shape (`/v1/models`, a token count).
 */
export function familyCredential(upstream: Upstream): Pick<UpstreamRoute, "gatewayCredential"> {
  const shape = SHAPES.find((candidate) => candidate.upstream.family === upstream);
  if (shape === undefined) throw new RangeError(`no wire shape is served by ${upstream}`);
  return shape.upstream;
}
