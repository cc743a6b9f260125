import { describe, expect, it } from "vitest";
import {
  actionValues,
  isCodeShaped,
  tokensOf,
} from "../../../bench/needed-facts/action-references.js";

describe("tokensOf: the paths, identifiers and numbers of a line", () => {
  it.each([
    ["/testbed/django/db/models/sql/query.py", ["path /testbed/django/db/models/sql/query.py"]],
    ["see query.py:557: def combine", ["path query.py", "number 557"]],
    [
      "alias_map, distinctFields, IsNull, JSONField, E015, a6e58a5c",
      [
        "identifier alias_map",
        "identifier distinctFields",
        "identifier IsNull",
        "identifier JSONField",
        "identifier E015",
        "identifier a6e58a5c",
      ],
    ],
    ["the combine method is Literal and TODO, fine", []],
    [
      "import django.db.models; self.where.relabel_aliases(change_map)",
      ["path django.db.models", "identifier relabel_aliases", "identifier change_map"],
    ],
    ["ls /testbed/.tox 2>/dev/null", ["path /testbed/.tox", "path /dev/null"]],
    [
      "curl -s https://status.internal/api/v1/services?team=jobs.",
      ["path https://status.internal/api/v1/services?team=jobs"],
    ],
    ["pi is 3.14159 and 42 items, 1e10 not 12", []],
    [
      "pytest tests/test_parse.py::TestConfig::test_empty_value",
      ["path tests/test_parse.py", "identifier TestConfig", "identifier test_empty_value"],
    ],
    ["cd src/ && cat ./run.sh README.md", ["path src/", "path ./run.sh", "path README.md"]],
    ["a fraction 1/2 is no path; the_answer again the_answer", ["identifier the_answer"]],
  ])("%s", (line, expected) => {
    expect(tokensOf(line).map((reference) => `${reference.kind} ${reference.text}`)).toEqual(
      expected,
    );
  });

  it.each([
    ["alias_map", true],
    ["__init__", true],
    ["parseConfig", true],
    ["HTTPServer", true],
    ["sha256", true],
    ["Literal", false],
    ["combine", false],
    ["TODO", false],
    ["qs1", false],
    ["6e58a5c", true],
    ["1e10", false],
    ["1234567", false],
  ])("isCodeShaped(%s) is %s", (word, shaped) => {
    expect(isCodeShaped(word)).toBe(shaped);
  });
});

describe("actionValues: the lines an action wrote", () => {
  it("reads argument values (never keys) as lines, numbers of 3 digits or more, then the text", () => {
    const values = actionValues({
      texts: ["Fix parse_config now."],
      inputs: [
        {
          file_path: "/repo/app/config.py",
          old_string: "    if value == '':\n\n        return None",
          offset: 557,
          limit: 40,
          replace_all: false,
        },
      ],
    });
    expect(values).toEqual([
      [{ tokens: [{ kind: "path", text: "/repo/app/config.py" }] }],
      [
        { copy: "if value == '':", tokens: [] },
        { tokens: [] },
        { copy: "return None", tokens: [] },
      ],
      [{ tokens: [{ kind: "number", text: "557" }] }],
      [{ tokens: [{ kind: "identifier", text: "parse_config" }] }],
    ]);
  });

  it("takes no copied lines from the agent's text, and none shorter than 10 characters", () => {
    const values = actionValues({
      texts: ["The line `if value == '':` is wrong."],
      inputs: [{ command: "ls -la" }, { command: "git diff src/app.ts" }],
    });
    expect(values.flat().map((line) => line.copy)).toEqual([
      undefined,
      "git diff src/app.ts",
      undefined,
    ]);
  });
});
