import { describe, expect, it } from "vitest";
import { BodyReader, nextAction } from "../../../bench/needed-facts/body-reading.js";
import { neededFacts } from "../../../bench/needed-facts/needed.js";
import type { Provider } from "../../../src/wire/types.js";
import { fileView, type Step, sessionTurns } from "./agent-session.js";

const read: Step = {
  tool: "Read",
  input: { file_path: "/repo/app/config.py", offset: 140, limit: 5 },
  output: fileView(
    [
      "def parse_config(text):",
      "    for raw_line in text.splitlines():",
      "        if raw_line == '':",
      "            return None",
      "    return load_value(raw_line)",
    ],
    140,
  ),
};
const grep: Step = {
  text: "Let me search for load_value.",
  tool: "Bash",
  input: { command: 'grep -rn "load_value" app/' },
  output:
    "app/loader.py:118:def load_value(raw):\napp/config.py:144:    return load_value(raw_line)",
};
const edit: Step = {
  text: "The check at line 142 is wrong; load_value at loader.py:118 is fine.",
  tool: "Edit",
  input: {
    file_path: "/repo/app/config.py",
    old_string: "        if raw_line == '':\n            return None",
    new_string: "        if raw_line.strip() == '':\n            continue",
  },
  output: "The file /repo/app/config.py has been updated.",
};

/** The needed facts of turn `turn` (1-based) of a session, as `kind text <- holders`. */
function factsOf(provider: Provider, steps: readonly Step[], turn: number): string[] {
  const reader = new BodyReader();
  const turns = sessionTurns(provider, steps);
  const received = reader.read(provider, turns[turn - 1] as string);
  const next = reader.read(provider, turns[turn] as string);
  return neededFacts(received, nextAction(received, next)).map(
    ({ reference, holders }) =>
      `${reference.kind} ${reference.text} <- ${holders.map((source) => `${source.kind} ${source.output}`).join(", ")}`,
  );
}

describe("neededFacts: what the next action took from outputs and earlier calls", () => {
  it.each(["openai", "anthropic", "responses"] as const)(
    "%s: copied lines, paths, identifiers and numbers; not listing columns, not the agent's own or the user's words",
    (provider) => {
      expect(factsOf(provider, [read, grep, edit], 2)).toEqual([
        // The Read's own argument: the agent's earlier call held it.
        "path /repo/app/config.py <- call 0",
        // old_string: two lines of the Read's view, one passage.
        "line if raw_line == '':\nreturn None <- output 0",
        // new_string's first line is new; the identifier on it came from the outputs.
        "identifier raw_line <- output 0, output 1",
        // The agent's text: `142` is only a listing column, `load_value` its own earlier words.
        "path loader.py <- output 1",
        "number 118 <- output 1",
      ]);
    },
  );

  it("counts a passage the edit repeats in its new text once", () => {
    const rewrite: Step = {
      tool: "Edit",
      input: {
        file_path: "/repo/app/config.py",
        old_string: "        if raw_line == '':\n            return None",
        new_string: "        if raw_line == '':\n            return None\n        return None",
      },
      output: "updated",
    };
    expect(factsOf("openai", [read, rewrite], 1)).toEqual([
      "path /repo/app/config.py <- call 0",
      "line if raw_line == '':\nreturn None <- output 0",
    ]);
  });

  it.each([
    ["a command of general knowledge", { command: "ls -la" }],
    ["the goal's own function", { command: "grep -rn parse_config ." }],
    ["a value no output holds", { file_path: "/repo/app/other_module.py" }],
  ])("finds none in %s", (_, input) => {
    const next: Step = { tool: "Bash", input, output: "ok" };
    expect(factsOf("openai", [read, next], 1)).toEqual([]);
  });
});
