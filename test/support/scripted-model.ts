import {
  createServer,
  type IncomingHttpHeaders,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** How the model answers one request. */
export type ModelReply =
  /** A completion with this text, in the shape of the endpoint that was called. */
  | { readonly text: string; readonly usage?: { readonly input: number; readonly output: number } }
  /** An error status with an optional body and headers (e.g. `retry-after`). */
  | {
      readonly status: number;
      readonly body?: string;
      readonly headers?: Readonly<Record<string, string>>;
    }
  /** Never answers: the connection stays open until the caller gives up or the server closes. */
  | { readonly hang: true }
  /** A 200 whose body is this raw text. */
  | { readonly garbage: string }
  /** Waits for `until`, then answers with `reply`. */
  | { readonly until: Promise<void>; readonly reply: ModelReply };

export interface ModelRequest {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** Which API shape was called, by path. */
  readonly api: "openai" | "anthropic" | "unknown";
  readonly model: string;
  readonly system: string;
  /** The user message's text. */
  readonly prompt: string;
}

type Script = (request: ModelRequest, index: number) => ModelReply;

/**
 * A cheap model on a real loopback socket (port 0), speaking OpenAI chat completions at
 * `/v1/chat/completions` and Anthropic messages at `/v1/messages`. Records every request and
 * answers from a queue of replies or a script; counts requests in flight.
 */
export class ScriptedModel {
  readonly requests: ModelRequest[] = [];
  inFlight = 0;
  maxInFlight = 0;
  #queue: ModelReply[] = [];
  #script: Script | undefined;
  readonly #sockets = new Set<Socket>();

  private constructor(private readonly server: Server) {
    server.on("connection", (socket) => {
      this.#sockets.add(socket);
      socket.on("close", () => this.#sockets.delete(socket));
    });
    server.on("request", (request, response) => {
      const parts: Buffer[] = [];
      request.on("data", (part: Buffer) => parts.push(part));
      request.on("end", () => {
        const recorded = record(request.url ?? "", request.headers, Buffer.concat(parts));
        const index = this.requests.push(recorded) - 1;
        const reply = this.#script?.(recorded, index) ?? this.#queue.shift();
        this.inFlight++;
        this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
        response.on("close", () => this.inFlight--);
        void answer(
          reply ?? { status: 500, body: '{"error":"no scripted reply"}' },
          recorded,
          response,
        );
      });
    });
  }

  static async start(): Promise<ScriptedModel> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return new ScriptedModel(server);
  }

  /** Base URL as configured for an OpenAI-compatible endpoint (with `/v1`). */
  get openaiUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  /** Base URL as configured for an Anthropic-compatible endpoint (without `/v1`). */
  get anthropicUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Replies for the next requests, in order (a missing reply is a 500). */
  reply(...replies: ModelReply[]): this {
    this.#queue.push(...replies);
    return this;
  }

  /** Answers every request with a function of it. */
  script(script: Script): this {
    this.#script = script;
    return this;
  }

  reset(): void {
    this.requests.length = 0;
    this.#queue = [];
    this.#script = undefined;
    this.maxInFlight = this.inFlight;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function record(path: string, headers: IncomingHttpHeaders, bytes: Buffer): ModelRequest {
  const body = bytes.toString("utf8");
  const api = path.endsWith("/chat/completions")
    ? "openai"
    : path.endsWith("/v1/messages")
      ? "anthropic"
      : "unknown";
  let json: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed === "object" && parsed !== null) json = parsed as Record<string, unknown>;
  } catch {}
  const messages = Array.isArray(json.messages) ? (json.messages as unknown[]) : [];
  const text = (role: string) =>
    messages
      .filter((message): message is { role: string; content: string } => {
        const item = message as { role?: unknown; content?: unknown };
        return item.role === role && typeof item.content === "string";
      })
      .map((message) => message.content)
      .join("\n");
  return {
    path,
    headers,
    body,
    api,
    model: typeof json.model === "string" ? json.model : "",
    system: typeof json.system === "string" ? json.system : text("system"),
    prompt: text("user"),
  };
}

async function answer(
  reply: ModelReply,
  request: ModelRequest,
  response: ServerResponse,
): Promise<void> {
  if ("until" in reply) {
    await reply.until;
    return answer(reply.reply, request, response);
  }
  if ("hang" in reply) return;
  if ("garbage" in reply) {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(reply.garbage);
    return;
  }
  if ("status" in reply) {
    response.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
    response.end(reply.body ?? '{"error":{"message":"scripted failure"}}');
    return;
  }
  const usage = reply.usage ?? { input: 100, output: 10 };
  const json =
    request.api === "anthropic"
      ? {
          id: "msg_scripted",
          type: "message",
          role: "assistant",
          model: request.model,
          content: [{ type: "text", text: reply.text }],
          stop_reason: "end_turn",
          usage: { input_tokens: usage.input, output_tokens: usage.output },
        }
      : {
          id: "chatcmpl-scripted",
          object: "chat.completion",
          model: request.model,
          choices: [
            {
              index: 0,
              message: { role: "assistant", content: reply.text },
              finish_reason: "stop",
            },
          ],
          usage: { prompt_tokens: usage.input, completion_tokens: usage.output },
        };
  response.writeHead(200, { "content-type": "application/json" });
  response.end(JSON.stringify(json));
}
