import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type RequestView, readRequest, type Shape } from "../conversation.js";
import { EXCHANGE_HEADER, headerValue, type UpstreamRequest } from "../records.js";
import { planReply } from "./plan.js";
import { PromptCache, promptTokens } from "./prompt-cache.js";
import { kindOfPlan, wireReply } from "./wire-reply.js";

/**
 * The scripted model on a loopback socket: Anthropic Messages (`/v1/messages`, its
 * `count_tokens`, `/v1/models`) and OpenAI Responses (`/v1/responses`, `/v1/models`), streamed
 * when asked. It records every request it gets, and answers each from what it received.
 */

const MODEL_IDS = ["claude-opus-4-8", "gpt-5.5"];

export interface ScriptedModelOptions {
  readonly repoDir: string;
  /** The harness's clock (ms). */
  readonly now: () => number;
}

export class ScriptedModel {
  readonly requests: UpstreamRequest[] = [];
  private readonly cache = new PromptCache();
  private readonly expandedSessions = new Set<string>();
  private expandCalls = 0;
  private server: Server | undefined;

  constructor(private readonly options: ScriptedModelOptions) {}

  async listen(): Promise<string> {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () =>
        this.answer(request, Buffer.concat(chunks).toString("utf8"), response),
      );
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private answer(request: IncomingMessage, body: string, response: ServerResponse): void {
    const url = new URL(request.url ?? "/", "http://model");
    const record: UpstreamRequest = {
      seq: this.requests.length + 1,
      at: this.options.now(),
      method: request.method ?? "GET",
      path: url.pathname,
      rawHeaders: request.rawHeaders,
      exchange: headerValue(request.rawHeaders, EXCHANGE_HEADER),
      body,
      kind: "unknown",
      emitted: [],
    };
    this.requests.push(record);
    const send = (status: number, type: string, text: string) => {
      record.status = status;
      response.writeHead(status, { "content-type": type });
      response.end(text);
    };
    if (record.method === "GET" && url.pathname.startsWith("/v1/models")) {
      record.kind = "models";
      send(200, "application/json", modelsList(request, url.pathname));
      return;
    }
    const shape: Shape | undefined = url.pathname.startsWith("/v1/messages")
      ? "anthropic"
      : url.pathname === "/v1/responses"
        ? "responses"
        : undefined;
    const view = shape && record.method === "POST" ? readRequest(shape, body) : undefined;
    if (view === undefined) {
      send(
        404,
        "application/json",
        JSON.stringify({ error: { type: "not_found_error", message: "no such route" } }),
      );
      return;
    }
    if (url.pathname === "/v1/messages/count_tokens") {
      record.kind = "count_tokens";
      record.counted = promptTokens(view);
      send(200, "application/json", JSON.stringify({ input_tokens: record.counted }));
      return;
    }
    if (url.pathname !== "/v1/messages" && url.pathname !== "/v1/responses") {
      send(
        404,
        "application/json",
        JSON.stringify({ error: { type: "not_found_error", message: "no such route" } }),
      );
      return;
    }
    this.reply(record, view, response);
  }

  private reply(record: UpstreamRequest, view: RequestView, response: ServerResponse): void {
    const session =
      headerValue(record.rawHeaders, "x-claude-code-session-id") ??
      headerValue(record.rawHeaders, "session-id") ??
      "default";
    const plan = planReply(view, this.expandedSessions.has(session));
    record.kind = kindOfPlan(plan);
    record.plan = plan;
    let expandCall = "";
    if (plan.kind === "expand") {
      this.expandedSessions.add(session);
      this.expandCalls++;
      expandCall = `${view.shape === "anthropic" ? "toolu" : "call"}_e2e_expand_${this.expandCalls}`;
      record.expandCall = expandCall;
    }
    const usage = this.cache.read(session, view);
    record.usage = usage;
    const reply = wireReply(view, plan, {
      repoDir: this.options.repoDir,
      seed: `${session}:${record.seq}`,
      seq: record.seq,
      expandCall,
      usage,
    });
    record.emitted = reply.emitted;
    writeReply(record, response, reply.stream, reply.text);
  }
}

function writeReply(
  record: UpstreamRequest,
  response: ServerResponse,
  stream: boolean,
  text: string,
): void {
  record.status = 200;
  response.writeHead(200, {
    "content-type": stream ? "text/event-stream" : "application/json",
    ...(stream ? { "cache-control": "no-cache" } : {}),
  });
  if (!stream) {
    response.end(text);
    return;
  }
  // One write per event, as a server streams them.
  const events = text.split(/(?<=\n\n)/);
  for (const event of events) response.write(event);
  response.end();
}

function modelsList(request: IncomingMessage, path: string): string {
  const anthropic = request.headers["anthropic-version"] !== undefined;
  const single = path.split("/")[3];
  const entry = (id: string) =>
    anthropic
      ? { type: "model", id, display_name: id, created_at: "2026-01-01T00:00:00Z" }
      : { id, object: "model", created: 1_767_225_600, owned_by: "e2e" };
  if (single !== undefined && single !== "")
    return JSON.stringify(entry(decodeURIComponent(single)));
  const data = MODEL_IDS.map(entry);
  return JSON.stringify(
    anthropic
      ? { data, has_more: false, first_id: MODEL_IDS[0], last_id: MODEL_IDS.at(-1) }
      : { object: "list", data },
  );
}
