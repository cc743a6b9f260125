import { isRecord } from "../wire/is-record.js";
import type { WireShape } from "../wire/shape.js";
import type { AssistantTurn } from "./turn.js";

/**
 * The assistant turn of a non-streaming response body, or undefined when the body is not a
 * single-choice response of the shape (the response then goes back as it is). `text` is the
 * body as received: a Responses turn carries its output items back as written.
 */
export function parseJsonResponse(
  shape: Pick<WireShape, "response">,
  body: unknown,
  text: string = JSON.stringify(body),
): AssistantTurn | undefined {
  return isRecord(body) ? shape.response.json(body, text) : undefined;
}
