import type { CostResult, ScheduleResult } from "./cost.js";
import { change } from "./cost-replay.js";
import { FACT_STATES } from "./needed-facts/classify.js";
import { FACT_KINDS } from "./needed-facts/reference.js";
import { type FactsSummary, type StateCounts, share } from "./needed-facts/tally.js";
import { percent, SCHEDULE_LABELS, signed, table } from "./text-table.js";

/** Own pricing against bypass with the recovery of hidden facts added (SPEC §11's headline). */
export function withRecovery(cost: ScheduleResult): number {
  return change(cost.compacted.own + cost.facts.recovery, cost.bypass.own);
}

const total = (counts: StateCounts) => FACT_STATES.reduce((sum, state) => sum + counts[state], 0);

function stateCells(counts: StateCounts): string[] {
  return [
    String(total(counts)),
    percent(share(counts, "visible")),
    percent(share(counts, "marker")),
    percent(share(counts, "lost")),
  ];
}

function hiddenCount(facts: FactsSummary): number {
  return facts.facts.marker + facts.facts.lost;
}

/**
 * The needed facts of a cost replay (SPEC §11): per schedule, the facts of each turn's next
 * action visible, behind a marker or lost in the returned body, per reference and per turn, with
 * own pricing against bypass without and with the recovery of the hidden ones; then by kind, by
 * what held them, and by the component that hid them.
 */
export function renderFacts(result: CostResult): string {
  const first = result.schedules[0]?.facts;
  if (!first) return "";
  const blocks = [
    `\nneeded facts of each turn's next action (${first.turns} turns measured; the last turn of each of the ${first.skipped} sessions has no next action)`,
    table(
      [
        "schedule",
        "facts",
        "visible",
        "behind a marker",
        "lost",
        "turns with facts",
        "all visible",
        "with a loss",
        "own pricing",
        "with recovery",
      ],
      result.schedules.map((cost) => [
        SCHEDULE_LABELS[cost.schedule],
        ...stateCells(cost.facts.facts),
        String(cost.facts.turnsWithFacts),
        percent(
          cost.facts.turnsWithFacts === 0
            ? null
            : cost.facts.turnsAllVisible / cost.facts.turnsWithFacts,
        ),
        String(cost.facts.turnsWithLost),
        signed(change(cost.compacted.own, cost.bypass.own)),
        signed(withRecovery(cost)),
      ]),
    ),
    "",
    table(
      ["schedule: facts by kind, by holder", "facts", "visible", "behind a marker", "lost"],
      result.schedules.flatMap((cost) => [
        ...FACT_KINDS.map((kind) => [
          `${SCHEDULE_LABELS[cost.schedule]}: ${kind}`,
          ...stateCells(cost.facts.byKind[kind]),
        ]),
        [
          `${SCHEDULE_LABELS[cost.schedule]}: held by an output`,
          ...stateCells(cost.facts.byHolder.output),
        ],
        [
          `${SCHEDULE_LABELS[cost.schedule]}: held by earlier calls only`,
          ...stateCells(cost.facts.byHolder.call),
        ],
      ]),
    ),
  ];
  const components = result.schedules.flatMap((cost) =>
    Object.entries(cost.facts.byComponent)
      .sort(([a, x], [b, y]) => y.marker + y.lost - (x.marker + x.lost) || a.localeCompare(b))
      .map(([name, counts]) => [
        `${SCHEDULE_LABELS[cost.schedule]}: ${name}`,
        String(counts.marker),
        String(counts.lost),
        percent((counts.marker + counts.lost) / hiddenCount(cost.facts)),
      ]),
  );
  if (components.length > 0) {
    blocks.push(
      "",
      table(["schedule: hidden by", "behind a marker", "lost", "of hidden"], components),
    );
  }
  return blocks.join("\n");
}
