import { describe, expect, it } from "vitest";
import { measureCost } from "../../../bench/cost.js";
import { change } from "../../../bench/cost-replay.js";
import { renderFacts, withRecovery } from "../../../bench/facts-table.js";
import { fileView, type Step, sessionTurns } from "./agent-session.js";

const source = Array.from(
  { length: 40 },
  (_, index) =>
    `    option_${index} = read_option(parsed_args, "flag_${index}", fallback=${index})`,
);
const steps: Step[] = [
  { tool: "Read", input: { file_path: "/repo/cli/options.py" }, output: fileView(source) },
  ...[1, 2, 3, 4].map(
    (part): Step => ({
      tool: "Bash",
      input: { command: `./audit.sh section${part}` },
      output: Array.from(
        { length: 30 },
        (_, row) => `audit section${part} entry ${row}: checksum ${part * 7000 + row * 13} ok`,
      ).join("\n"),
    }),
  ),
  {
    tool: "Edit",
    input: {
      file_path: "/repo/cli/options.py",
      old_string: source[7] as string,
      new_string: "    pass",
    },
    output: "updated",
  },
];

describe("measureCost: needed facts beside the cost of a replay", () => {
  it("counts each turn's facts, skips the last turn, and adds the recovery of hidden ones", async () => {
    const result = await measureCost(
      [{ name: "options", provider: "openai", turns: sessionTurns("openai", steps) }],
      { mode: "reversible", schedules: ["cold"] },
    );
    const [cold] = result.schedules;
    if (!cold) throw new Error("no schedule replayed");
    const { facts } = cold;
    // Turns 2 to 4 need the script's path of the call before (visible); turn 5 (a cold turn:
    // mask keeps the newest three outputs) needs the file's path (visible) and a line of the Read.
    expect(facts).toMatchObject({
      turns: 5,
      skipped: 1,
      turnsWithFacts: 4,
      turnsAllVisible: 3,
      turnsWithLost: 0,
      facts: { visible: 4, marker: 1, lost: 0 },
      byComponent: { mask: { marker: 1, lost: 0 } },
      recoveries: 1,
    });
    expect(facts.hidden).toEqual([
      {
        session: "options",
        turn: 5,
        kind: "line",
        fact: 'option_7 = read_option(parsed_args, "flag_7", fallback=7)',
        state: "marker",
        hiddenBy: "mask",
        holder: { kind: "output", call: "Read /repo/cli/options.py", outputsBack: 5 },
      },
    ]);
    expect(facts.recovery).toBeGreaterThan(0);
    expect(withRecovery(cold)).toBeCloseTo(
      change(cold.compacted.own + facts.recovery, cold.bypass.own),
      12,
    );
    expect(withRecovery(cold)).toBeGreaterThan(change(cold.compacted.own, cold.bypass.own));
    expect(renderFacts(result)).toContain(
      "every turn cold: mask                1     0     100.0%",
    );
  });
});
