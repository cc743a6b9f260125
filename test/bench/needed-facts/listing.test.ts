import { describe, expect, it } from "vitest";
import { withoutListingColumn } from "../../../bench/needed-facts/listing.js";
import { holds, type Reference } from "../../../bench/needed-facts/reference.js";

describe("withoutListingColumn", () => {
  it.each([
    ["a Read view", "   556→def combine(self):\n   557→    pass", "def combine(self):\n    pass"],
    ["cat -n", "     1\timport os\n     2\t\n     3\tx = 557", "import os\n\nx = 557"],
    ["nl with a blank line", "12\tone\n\n13\ttwo", "one\n\ntwo"],
    [
      "grep -n matches",
      "app.py:557:def combine\napp.py:612:x",
      "app.py:557:def combine\napp.py:612:x",
    ],
    [
      "numbers that do not go up",
      "300\tcpu\n120\tmemory\n200\tdisk",
      "300\tcpu\n120\tmemory\n200\tdisk",
    ],
    ["one numbered line among prose", "total 3\n1\tfile\nok", "total 3\n1\tfile\nok"],
  ])("%s", (_, text, expected) => {
    expect(withoutListingColumn(text)).toBe(expected);
  });
});

describe("holds: a reference in a text, never inside a longer word", () => {
  const path = (text: string): Reference => ({ kind: "path", text });
  const identifier = (text: string): Reference => ({ kind: "identifier", text });
  const number = (text: string): Reference => ({ kind: "number", text });
  const line = (text: string): Reference => ({ kind: "line", text });

  it.each([
    ["alias_map in self.alias_map[x]", identifier("alias_map"), true],
    ["alias_mapping", identifier("alias_map"), false],
    ["query.py:557:", number("557"), true],
    ["line 1557", number("557"), false],
    ["/testbed/django/db/models/query.py", path("django/db/models"), true],
    ["compiled query.pyc", path("query.py"), false],
    ["my-app.py", path("app.py"), false],
    ["/repo/src/app.py", path("/repo/src"), true],
    ["    if value == '':  (x3)", line("if value == '':"), true],
    ["a\nif x:\nb\nreturn y\n", line("if x:\nreturn y"), true],
    ["a\nif x:\nb\n", line("if x:\nreturn y"), false],
  ])("%s holds %o: %s", (text, reference, expected) => {
    expect(holds(text, reference)).toBe(expected);
  });
});
