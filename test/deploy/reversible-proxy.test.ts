import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expandCall, openaiJson } from "../support/model-replies.js";
import { type RecordedRequest, ScriptedUpstream } from "../support/scripted-upstream.js";
import { compactorOf, literalEnv, mountedFile, render, root } from "./k8s-objects.js";

/** A check's log well over collapse's max_tokens (2000), with one line only its middle holds. */
const NEEDLE = "line 0200: checksum mismatch in shard 7f3a";
const output = Array.from({ length: 400 }, (_, index) =>
  index === 199 ? NEEDLE : `line ${String(index + 1).padStart(4, "0")}: ok shard ${index}`,
).join("\n");

const tools: OpenAI.ChatCompletionTool[] = [
  {
    type: "function",
    function: {
      name: "bash",
      description: "Run a shell command",
      parameters: { type: "object", properties: { command: { type: "string" } } },
    },
  },
];

const history: OpenAI.ChatCompletionMessageParam[] = [
  { role: "system", content: "You are a careful operator." },
  { role: "user", content: "Check the shard log." },
  {
    role: "assistant",
    content: null,
    tool_calls: [
      {
        id: "call_log",
        type: "function",
        function: { name: "bash", arguments: '{"command":"./check-shards --all"}' },
      },
    ],
  },
  { role: "tool", tool_call_id: "call_log", content: output },
];

type Message = { role: string; content?: unknown; tool_call_id?: string };
const messagesOf = (request: RecordedRequest) => (request.json as { messages: Message[] }).messages;
const toolNames = (request: RecordedRequest) =>
  ((request.json as { tools?: Array<{ function: { name: string } }> }).tools ?? []).map(
    (tool) => tool.function.name,
  );
const markerIn = (request: RecordedRequest) =>
  /<<cg:([A-Za-z0-9_-]+)>>/.exec(
    String(messagesOf(request).find((message) => message.role === "tool")?.content),
  )?.[1];

/**
 * The llm-d coordinator as the reversible-proxy overlay sees it: Chat Completions only. Its model
 * answers turn 1 directly; on turn 2 it asks for the original behind the marker it was shown,
 * and answers from what the expand loop gives back.
 */
function coordinatorScript(request: RecordedRequest) {
  if (request.url !== "/v1/chat/completions") return { status: 404, body: "404 page not found" };
  const messages = messagesOf(request);
  const last = messages.at(-1);
  if (last?.role === "tool" && last.tool_call_id === "call_expand") {
    const found = String(last.content)
      .split("\n")
      .find((line) => line.includes("mismatch"));
    return openaiJson(`Found it: ${found}`);
  }
  if (last?.role === "user" && last.content === "Which shard failed?") {
    return openaiJson(null, [expandCall(markerIn(request) ?? "none", "call_expand")]);
  }
  return openaiJson("The log is long; the head and tail look fine.");
}

describe("k8s/overlays/reversible-proxy end to end: agent → compactor → coordinator → model", () => {
  let coordinator: ScriptedUpstream;
  let compactor: ChildProcess;
  let client: OpenAI;
  let stderr = "";

  beforeAll(async () => {
    coordinator = await ScriptedUpstream.start();
    coordinator.script(coordinatorScript);
    // The overlay's Deployment as the kubelet starts it: its ConfigMap's config.yaml, its literal
    // environment, the Secret's values, and the coordinator's Service replaced by loopback.
    const objects = render("overlays/reversible-proxy");
    const { pod, container } = compactorOf(objects);
    const env = literalEnv(container);
    const dir = mkdtempSync(join(tmpdir(), "cg-reversible-proxy-"));
    const configFile = join(dir, "config.yaml");
    writeFileSync(configFile, mountedFile(objects, pod, container, env.CONFIG_FILE ?? ""));
    compactor = spawn(process.execPath, ["--import", "tsx", "src/server.ts"], {
      cwd: root,
      env: {
        ...process.env,
        ...env,
        NODE_OPTIONS: "",
        CONFIG_FILE: configFile,
        AUTH_TOKEN: "a".repeat(32),
        STORE_HASH_KEY: "b".repeat(32),
        OPENAI_BASE_URL: `http://127.0.0.1:${coordinator.port}/v1`,
        HOST: "127.0.0.1",
        PORT: "0",
        PROBE_PORT: "0",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    compactor.stderr?.on("data", (chunk) => {
      stderr += String(chunk);
    });
    const port = await new Promise<string>((done, fail) => {
      let stdout = "";
      compactor.stdout?.on("data", (chunk) => {
        stdout += String(chunk);
        const found = /"msg":"listening".*?"port":(\d+)/.exec(stdout)?.[1];
        if (found) done(found);
      });
      compactor.once("exit", (code) => fail(new Error(`compactor exited ${code}: ${stderr}`)));
    });
    client = new OpenAI({
      baseURL: `http://127.0.0.1:${port}/v1`,
      apiKey: "sk-agent",
      maxRetries: 0,
      // Collapse reduces an oversized output at first sight, so turn 1 writes a marker.
      defaultHeaders: { "x-context-guru-pipeline": "collapse" },
    });
  }, 30_000);

  afterAll(async () => {
    if (compactor.exitCode === null) compactor.kill("SIGKILL");
    await coordinator.close();
  });

  it("expands on turn 2 a marker written on turn 1; the agent only sees final answers", async () => {
    const first = await client.chat.completions
      .create({ model: "qwen", messages: history, tools })
      .withResponse();
    expect(first.data.choices[0]?.message).toMatchObject({
      content: "The log is long; the head and tail look fine.",
    });
    expect(coordinator.requests).toHaveLength(1);
    const [turn1] = coordinator.requests as [RecordedRequest];
    const id = markerIn(turn1);
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(turn1.body).not.toContain(NEEDLE);
    expect(toolNames(turn1)).toEqual(["bash", "context_guru_expand"]);
    expect(Object.keys(turn1.headers).filter((name) => name.startsWith("x-context-guru"))).toEqual(
      [],
    );

    const assistant = first.data.choices[0]?.message;
    const second = await client.chat.completions
      .create({
        model: "qwen",
        tools,
        messages: [
          ...history,
          { role: "assistant", content: assistant?.content ?? "" },
          { role: "user", content: "Which shard failed?" },
        ],
      })
      .withResponse();

    const message = second.data.choices[0]?.message;
    expect(message?.content).toBe(`Found it: ${NEEDLE}`);
    expect(message?.tool_calls ?? []).toEqual([]);
    expect(second.response.headers.get("x-context-guru-expand-rounds")).toBe("1");
    // Turn 2 asked, the loop answered with the original and asked again.
    expect(coordinator.requests).toHaveLength(3);
    const [, asked, answered] = coordinator.requests as [
      RecordedRequest,
      RecordedRequest,
      RecordedRequest,
    ];
    expect(markerIn(asked)).toBe(id);
    const result = messagesOf(answered).at(-1);
    expect(result).toEqual({ role: "tool", tool_call_id: "call_expand", content: output });
  }, 30_000);
});
