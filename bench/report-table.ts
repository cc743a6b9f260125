import type { Provider } from "../src/wire/types.js";
import type { CostResult } from "./cost.js";
import { change, costByShape, worstSession } from "./cost-replay.js";
import { renderFacts, withRecovery } from "./facts-table.js";
import type { ModeResult, PassSummary } from "./measure-mode.js";
import type { Savings } from "./metrics.js";
import { share } from "./needed-facts/tally.js";
import { percent, SCHEDULE_LABELS, signed, table } from "./text-table.js";

const ms = (value: number) => value.toFixed(value < 10 ? 2 : 1);
const ratio = (value: number) => `${value.toFixed(2)}×`;

function passRow(label: string, pass: PassSummary): string[] {
  return [
    label,
    ratio(pass.medianRatio),
    ratio(pass.totalRatio),
    ms(pass.medianMs),
    ms(pass.totalMs),
    ms(pass.medianWallMs),
  ];
}

function savings(label: string, value: Savings): string[] {
  return [label, String(value.before), String(value.after), percent(value.share)];
}

/** Per-body timings and tokens, then one summary block per mode. */
export function renderReport(results: readonly ModeResult[], verbose: boolean): string {
  const blocks: string[] = [];
  for (const result of results) {
    blocks.push(`\n== mode ${result.mode}, preset ${result.preset} ==`);
    if (verbose) {
      blocks.push(
        table(
          [
            "body",
            "bytes",
            "floor ms",
            "cold ms",
            "cold ×",
            "warm ms",
            "warm ×",
            "tokens",
            "saved",
          ],
          result.bodies.map((body) => [
            body.name,
            String(body.bytes),
            ms(body.floor.cpuMs),
            ms(body.cold.cpuMs),
            ratio(body.cold.cpuMs / body.floor.cpuMs),
            ms(body.warm.cpuMs),
            ratio(body.warm.cpuMs / body.floor.cpuMs),
            `${body.tokensBefore}→${body.tokensAfter}`,
            percent(body.tokensBefore > 0 ? 1 - body.tokensAfter / body.tokensBefore : null),
          ]),
        ),
        "",
      );
    }
    blocks.push(
      table(
        [
          "pass (CPU time)",
          "median ×floor",
          "total ×floor",
          "median ms",
          "total ms",
          "median wall ms",
        ],
        [
          passRow("cold, POST /compact", result.cold),
          passRow("cold, Compactor only", result.coldCore),
          passRow("warm, POST /compact", result.warm),
          passRow("warm, Compactor only", result.warmCore),
        ],
      ),
      "",
      table(
        [
          "message tokens of one request decided whole (not a session's cost)",
          "before",
          "after",
          "saved",
        ],
        [
          savings("all bodies", result.savings.all),
          savings("final checkpoints", result.savings.final),
        ],
      ),
    );
  }
  return blocks.join("\n");
}

/**
 * The headline (SPEC §11): per mode and preset, the cost of whole sessions against sending them
 * uncompacted, under each cache schedule, without and with the recovery of hidden needed facts,
 * and the share of those facts visible; warm prefix breaks; the worst session; the prompt tokens
 * of each session's last turn; then the needed facts in detail (facts-table.ts).
 */
export function renderCost(results: readonly CostResult[]): string {
  const blocks: string[] = [];
  for (const result of results) {
    blocks.push(
      `\n== session cost against bypass, ${result.sessionsOf}: mode ${result.mode}, preset ${result.preset}, cache.pricing ${result.pricing} (${result.sessions} sessions, ${result.turns} turns) ==`,
      table(
        [
          "schedule",
          "own pricing",
          "with recovery",
          "facts visible",
          "serving",
          "Anthropic",
          "vLLM prefill",
          "unannounced warm breaks",
          "announced",
          "worst session (own)",
          "last-turn prompt tokens",
        ],
        result.schedules.map((cost) => {
          const worst = worstSession(cost);
          const announced = Object.entries(cost.announced)
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([reason, count]) => `${reason} ${count}`)
            .join(", ");
          return [
            SCHEDULE_LABELS[cost.schedule],
            signed(change(cost.compacted.own, cost.bypass.own)),
            signed(withRecovery(cost)),
            percent(share(cost.facts.facts, "visible")),
            signed(change(cost.compacted.serving, cost.bypass.serving)),
            signed(change(cost.compacted.anthropic, cost.bypass.anthropic)),
            signed(change(cost.compacted.vllm, cost.bypass.vllm)),
            `${cost.breaks} of ${cost.warmTurns}`,
            announced === "" ? "none" : announced,
            worst ? `${worst.name} ${signed(worst.change)}` : "n/a",
            `${cost.compacted.finalTokens} vs ${cost.bypass.finalTokens}`,
          ];
        }),
      ),
      "",
      table(
        [
          "schedule, by wire format",
          "sessions",
          "own pricing",
          "serving",
          "vLLM prefill",
          "breaks",
        ],
        result.schedules.flatMap((cost) =>
          costByShape(cost).map((shape) => [
            `${SCHEDULE_LABELS[cost.schedule]}: ${SHAPE_LABELS[shape.provider]}`,
            String(shape.sessions),
            signed(change(shape.compacted.own, shape.bypass.own)),
            signed(change(shape.compacted.serving, shape.bypass.serving)),
            signed(change(shape.compacted.vllm, shape.bypass.vllm)),
            `${shape.breaks} of ${shape.warmTurns}`,
          ]),
        ),
      ),
      renderFacts(result),
    );
  }
  return blocks.join("\n");
}

const SHAPE_LABELS: Readonly<Record<Provider, string>> = {
  openai: "chat completions",
  anthropic: "anthropic messages",
  responses: "responses",
};
