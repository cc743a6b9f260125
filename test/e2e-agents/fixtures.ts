import type { Plan } from "../../scripts/e2e-agents/model/plan.js";
import type { Exchange, UpstreamRequest } from "../../scripts/e2e-agents/records.js";

/** Exchanges and upstream requests as the tap and the scripted model record them. */

let clock = 0;

export function exchange(id: string, body: unknown, options: Partial<Exchange> = {}): Exchange {
  clock += 10;
  return {
    id,
    run: "run",
    method: "POST",
    url: "/v1/messages?beta=true",
    requestHeaders: ["content-type", "application/json", "x-api-key", "k"],
    requestBody: typeof body === "string" ? body : JSON.stringify(body),
    startedAt: clock,
    status: 200,
    responseHeaders: ["content-type", "application/json"],
    responseBody: "{}",
    endedAt: clock + 5,
    ...options,
  };
}

export function upstream(
  exchangeId: string,
  body: unknown,
  options: Partial<UpstreamRequest> & { plan?: Plan } = {},
): UpstreamRequest {
  clock += 1;
  return {
    seq: clock,
    at: clock,
    method: "POST",
    path: "/v1/messages",
    rawHeaders: [
      "content-type",
      "application/json",
      "x-api-key",
      "k",
      "x-e2e-exchange",
      exchangeId,
    ],
    exchange: exchangeId,
    body: typeof body === "string" ? body : JSON.stringify(body),
    kind: "turn",
    emitted: [],
    ...options,
  };
}

export const userPrompt = { role: "user", content: [{ type: "text", text: "fix it" }] };

export function toolTurn(id: string, output: string): unknown[] {
  return [
    {
      role: "assistant",
      content: [{ type: "tool_use", id, name: "Bash", input: { command: "seq 1 5000" } }],
    },
    { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: output }] },
  ];
}

export const anthropicBody = (messages: unknown[], tools: string[] = ["Bash"]) => ({
  model: "m",
  messages,
  tools: tools.map((name) => ({ name })),
});
