import { describe, expect, it } from "vitest";
import { analyseTurns } from "../../scripts/e2e-agents/checks/turn-analysis.js";
import { renderRun, renderTable, saving } from "../../scripts/e2e-agents/table.js";
import { buildTurns } from "../../scripts/e2e-agents/turns.js";
import { anthropicBody, exchange, toolTurn, upstream, userPrompt } from "./fixtures.js";

describe("the run table", () => {
  it("aligns columns: the first to the left, the others to the right", () => {
    expect(
      renderTable(
        ["#", "tokens"],
        [
          ["1", "12→3"],
          ["10", "7"],
        ],
      ),
    ).toBe(["#   tokens", "--  ------", "1     12→3", "10       7"].join("\n"));
  });

  it.each([
    [200, 50, "−75.0 %"],
    [100, 110, "+10.0 %"],
    [0, 0, "n/a"],
  ])("writes the saving of %i → %i as %s", (before, after, text) => {
    expect(saving(before, after)).toBe(text);
  });

  it("writes a row per request, the run's totals and each promise", () => {
    const big = "x ".repeat(400);
    const turns = buildTurns(
      [
        exchange("E001", "", { method: "HEAD", url: "/", status: 404 }),
        exchange("E002", anthropicBody([userPrompt]), {
          responseHeaders: [
            "x-context-guru-cache",
            "warm",
            "x-context-guru-cache-reason",
            "unknown",
          ],
        }),
        exchange("E003", anthropicBody([userPrompt, ...toolTurn("t1", big)]), {
          responseHeaders: [
            "x-context-guru-cache",
            "warm",
            "x-context-guru-cache-reason",
            "recent",
          ],
        }),
      ],
      [
        upstream("E002", anthropicBody([userPrompt])),
        upstream(
          "E003",
          anthropicBody([userPrompt, ...toolTurn("t1", "x … (399 more) <<cg:0123456789abcdef>>")]),
        ),
      ],
    );
    const text = renderRun({
      label: "claude",
      title: "Claude Code, reversible",
      exitCode: 0,
      durationMs: 12_345,
      turns,
      analyses: analyseTurns(turns),
      promises: [{ name: "exit 0 with the scripted answer", verdict: "PASS", evidence: "exit 0" }],
    });
    expect(text).toBe(
      [
        "== claude: Claude Code, reversible",
        "exit 0, 12.3 s",
        "#  exch       request  items  expand tool  markers  outputs m/u/r         cache  rounds  tokens client→upstream  sent changed u/a/cc",
        "-  ----  ------------  -----  -----------  -------  -------------  ------------  ------  ----------------------  -------------------",
        "   E001  HEAD / → 404",
        "1  E002      messages      1           no        0          0/0/0  warm/unknown       0                     2→2                    —",
        "2  E003      messages      3           no        1          1/0/0   warm/recent       0                  409→23                0/0/0",
        "turns 2, upstream requests 2, expand tool from never, markers 1, expand rounds 0",
        "already-sent items changed on later turns: 0 unannounced, 0 announced (cold), 0 cache_control moves by the client",
        "message tokens over the session: 411 client → 25 upstream (−93.9 %)",
        "promises:",
        "  PASS  exit 0 with the scripted answer: exit 0",
      ].join("\n"),
    );
  });
});
