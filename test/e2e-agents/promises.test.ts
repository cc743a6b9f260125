import { describe, expect, it } from "vitest";
import { type PromiseResult, runPromises } from "../../scripts/e2e-agents/checks/promises.js";
import { analyseTurns } from "../../scripts/e2e-agents/checks/turn-analysis.js";
import type { CliResult } from "../../scripts/e2e-agents/cli-run.js";
import { SESSION_ANSWER } from "../../scripts/e2e-agents/model/session-script.js";
import type {
  Exchange,
  UpgradeAttempt,
  UpstreamRequest,
} from "../../scripts/e2e-agents/records.js";
import { SCENARIOS, type Scenario } from "../../scripts/e2e-agents/scenarios.js";
import { buildTurns } from "../../scripts/e2e-agents/turns.js";
import { anthropicBody, exchange, toolTurn, upstream, userPrompt } from "./fixtures.js";

const scenario = (name: string): Scenario => SCENARIOS.find((entry) => entry.name === name)!;
const result = (stdout = `{"result":"${SESSION_ANSWER}"}`): CliResult => ({
  exitCode: 0,
  signal: null,
  timedOut: false,
  durationMs: 1000,
  stdout,
  stderr: "",
});
const cached = (state: string, reason: string) => [
  "content-type",
  "application/json",
  "x-context-guru-cache",
  state,
  "x-context-guru-cache-reason",
  reason,
];

function promises(
  name: string,
  exchanges: Exchange[],
  upstreamRequests: UpstreamRequest[],
  options: { upgrades?: UpgradeAttempt[]; stdout?: string } = {},
): Map<string, PromiseResult> {
  const turns = buildTurns(exchanges, upstreamRequests);
  const chosen = scenario(name);
  const results = runPromises({
    scenario: chosen,
    run: { spec: chosen.runs[0]!, result: result(options.stdout), sessionId: undefined },
    turns,
    analyses: analyseTurns(turns),
    upgrades: options.upgrades ?? [],
    serviceErrors: [],
  });
  return new Map(results.map((entry) => [entry.name, entry]));
}

const FIRST = "first turn decided as a session's first (reason first), not warm";
const WEBSOCKET = "WebSocket attempt answered, first HTTP request ≤ 500 ms later, no reconnect";
const CARRIED = "own compaction: its request carries the conversation byte for byte as last sent";
const DIVERGED = "own compaction: the turn after it is announced diverged";
const COUNT = "count_tokens answers what the following /v1/messages costs";
const MARKED = "reduced outputs carry markers";
const ROUND_TRIP = "expand round trip answered with the client's original";

describe("the promises of a run", () => {
  it("wants a session's first turn decided as such, not warm", () => {
    const body = anthropicBody([userPrompt]);
    const first = (state: string, reason: string) =>
      promises(
        "claude",
        [exchange("E001", body, { responseHeaders: cached(state, reason) })],
        [upstream("E001", body)],
      ).get(FIRST);
    expect(first("cold", "first")).toMatchObject({ verdict: "PASS" });
    expect(first("warm", "unknown")).toEqual({
      name: FIRST,
      verdict: "FAIL",
      evidence: "#1 E001 answered warm/unknown",
    });
  });

  it("times Codex's first HTTP request from its WebSocket attempt", () => {
    const body = {
      model: "gpt-5.5",
      input: [{ role: "user", content: "fix it" }],
      tools: [{ name: "exec_command" }],
    };
    const post = (startedAt: number) => exchange("E009", body, { url: "/v1/responses", startedAt });
    const attempt = (id: string, startedAt: number, statusLine: string): UpgradeAttempt => ({
      id,
      run: "run",
      url: "/v1/responses",
      requestHeaders: [],
      startedAt,
      statusLine,
      answeredAt: startedAt + 30,
    });
    const quick = promises("codex-builtin", [post(1180)], [upstream("E009", body)], {
      upgrades: [attempt("E001", 1000, "HTTP/1.1 426 Upgrade Required")],
    }).get(WEBSOCKET);
    expect(quick).toEqual({
      name: WEBSOCKET,
      verdict: "PASS",
      evidence:
        'answered "HTTP/1.1 426 Upgrade Required" in 30 ms, first POST 180 ms after the attempt',
    });
    const late = promises("codex-builtin", [post(1501)], [upstream("E009", body)], {
      upgrades: [attempt("E001", 1000, "HTTP/1.1 426 Upgrade Required")],
    }).get(WEBSOCKET);
    expect(late).toMatchObject({
      verdict: "FAIL",
      evidence: "first POST 501 ms after the attempt",
    });
    const slow = promises("codex-builtin", [post(8200)], [upstream("E009", body)], {
      upgrades: [
        attempt("E001", 1000, "HTTP/1.1 405 Method Not Allowed"),
        attempt("E002", 1400, "HTTP/1.1 405 Method Not Allowed"),
      ],
      stdout: '{"type":"error","message":"Reconnecting... 2/5"}',
    }).get(WEBSOCKET);
    expect(slow?.verdict).toBe("FAIL");
    expect(slow?.evidence).toBe(
      'first POST 7200 ms after the attempt; 2 upgrade attempts before it; 1 "Reconnecting" messages',
    );
  });

  it("wants the agent's own summary request to carry what was last sent, and the next turn announced diverged", () => {
    const reduced = "1\n… (4998 lines omitted) <<cg:0123456789abcdef>>\n5000";
    const original = Array.from({ length: 5000 }, (_, index) => String(index + 1)).join("\n");
    const turn = [userPrompt, ...toolTurn("toolu_e2e_m04", original)];
    const asked = {
      role: "user",
      content: [
        {
          type: "text",
          text: "Your task is to create a detailed summary of the conversation so far",
        },
      ],
    };
    const sentTurn = [userPrompt, ...toolTurn("toolu_e2e_m04", reduced)];
    const after = [
      { role: "user", content: "This session is being continued. Summary: [e2e-m04]" },
    ];
    const run = (summaryForwarded: unknown[], nextReason: string) =>
      promises(
        "claude-compact",
        [
          exchange("E001", anthropicBody(turn), { responseHeaders: cached("warm", "recent") }),
          exchange("E002", anthropicBody([...turn, asked])),
          exchange("E003", anthropicBody(after), {
            responseHeaders: cached(nextReason === "diverged" ? "cold" : "warm", nextReason),
          }),
        ],
        [
          upstream("E001", anthropicBody(sentTurn)),
          upstream("E002", anthropicBody(summaryForwarded), { kind: "summary" }),
          upstream("E003", anthropicBody(after)),
        ],
      );
    const kept = run([...sentTurn, asked], "diverged");
    expect(kept.get(CARRIED)).toMatchObject({ verdict: "PASS" });
    expect(kept.get(DIVERGED)).toMatchObject({ verdict: "PASS" });
    const resent = run([...turn, asked], "recent");
    expect(resent.get(CARRIED)).toEqual({
      name: CARRIED,
      verdict: "FAIL",
      evidence: "#2 E002: item 2 differs from #1 E001 as forwarded",
    });
    expect(resent.get(DIVERGED)).toEqual({
      name: DIVERGED,
      verdict: "FAIL",
      evidence: "#3 E003 answered warm/recent",
    });
  });

  it("counts markers written in the agent's own summary request; no round is required where it compacts", () => {
    const original = "1\n2\n3\n".repeat(500);
    const reduced = "1\n… (1497 lines omitted) <<cg:0123456789abcdef>>\n3";
    const asked = {
      role: "user",
      content: "Your task is to create a detailed summary of the conversation so far",
    };
    const body = (output: string) =>
      anthropicBody([userPrompt, ...toolTurn("toolu_e2e_m04", output), asked]);
    const run = (name: string) =>
      promises(
        name,
        [exchange("E001", body(original))],
        [upstream("E001", body(reduced), { kind: "summary" })],
      );
    const compacting = run("claude-compact");
    expect(compacting.get(MARKED)).toEqual({
      name: MARKED,
      verdict: "PASS",
      evidence: "1 markers",
    });
    expect(compacting.get(ROUND_TRIP)).toEqual({
      name: ROUND_TRIP,
      verdict: "n/a",
      evidence: "no turn offered a marker with the tool",
    });
    expect(run("claude").get(ROUND_TRIP)?.verdict).toBe("FAIL");
  });

  it("wants each count_tokens call counted by the model and its number given back", () => {
    const file = {
      model: "m",
      messages: [{ role: "user", content: "the text of a file" }],
      tools: [],
    };
    const count = (status: number, answer: string, forwarded: unknown = file) =>
      promises(
        "claude-compact",
        [
          exchange("E001", file, {
            url: "/v1/messages/count_tokens?beta=true",
            status,
            responseBody: answer,
          }),
        ],
        status === 200
          ? [
              upstream("E001", forwarded, {
                path: "/v1/messages/count_tokens",
                kind: "count_tokens",
                counted: 7,
              }),
            ]
          : [],
      ).get(COUNT);
    expect(count(200, '{"input_tokens":7}')).toMatchObject({ verdict: "PASS" });
    expect(count(404, '{"error":"not found"}')?.evidence).toBe(
      "E001: answered 404, never reached the model",
    );
    expect(count(200, '{"input_tokens":9}')?.evidence).toBe(
      "E001: the model counted 7, the client got 9",
    );
    const changed = { ...file, messages: [{ role: "user", content: "another text" }] };
    expect(count(200, '{"input_tokens":7}', changed)?.evidence).toBe(
      "E001: message 0 (no tool output) changed",
    );
  });
});
