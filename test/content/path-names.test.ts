import { describe, expect, it } from "vitest";
import { isPathWord, namesFile, pathsIn, samePath } from "../../src/content/path-names.js";

describe("samePath: one file however it was written", () => {
  it.each([
    ["/testbed/django/db/models/sql/query.py", "/testbed/django/db/models/sql/query.py", true],
    ["/testbed/django/db/models/sql/query.py", "django/db/models/sql/query.py", true],
    ["sql/query.py", "/testbed/django/db/models/sql/query.py", true],
    ["query.py", "/testbed/django/db/models/sql/query.py", true],
    ["./src/app.ts", "src/app.ts", true],
    ["src//app.ts", "/repo/src/app.ts", true],
    ["/testbed/django/db/models/query.py", "/testbed/django/db/models/sql/query.py", false],
    ["y.py", "/testbed/query.py", false],
    ["/a/x.py", "/b/x.py", false],
    [".", "/testbed/x.py", false],
    ["/", "/testbed/x.py", false],
  ])("%s and %s: %s", (first, second, same) => {
    expect(samePath(first, second)).toBe(same);
    expect(samePath(second, first)).toBe(same);
  });
});

describe("namesFile: the file, a directory holding it, a glob matching it", () => {
  it.each([
    ["/testbed/django/", "/testbed/django/db/models/sql/query.py", true],
    ["/testbed/django", "/testbed/django/db/models/sql/query.py", true],
    ["django/db", "/testbed/django/db/models/sql/query.py", true],
    ["tests", "/testbed/tests/queries/tests.py", true],
    ["/testbed/requests/*.py", "/testbed/requests/adapters.py", true],
    [
      "/testbed/django/db/backends/*/operations.py",
      "/testbed/django/db/backends/mysql/operations.py",
      true,
    ],
    ["**/*.ts", "/repo/src/deep/app.ts", true],
    ["*.py", "/testbed/x/setup.py", true],
    ["query.py", "/testbed/django/db/models/sql/query.py", true],
    ["/testbed/requests/*.py", "/testbed/requests/sub/adapters.py", false],
    ["/testbed/tests", "/testbed/django/db/models/query.py", false],
    ["/testbed/djan", "/testbed/django/db/models/query.py", false],
    ["src", "/repo/lib/src.ts", false],
    [".", "/testbed/x.py", false],
    ["~", "/home/me/x.py", false],
    ["**", "/testbed/x.py", false],
  ])("%s names %s: %s", (named, file, names) => {
    expect(namesFile(named, file)).toBe(names);
  });
});

describe("isPathWord", () => {
  it.each([
    ["/tmp/bugtest/run_test.py", true],
    ["src/", true],
    ["query.py", true],
    ["tests/test_sqlite.py", true],
    ["README.md", true],
    ["-rn", false],
    ["--include=*.py", false],
    ["3.14", false],
    ["https://example.com/a.py", false],
    ["a=b/c", false],
    ["//", false],
    ["ab", false],
    ["hello", false],
  ])("%s: %s", (word, path) => {
    expect(isPathWord(word)).toBe(path);
  });
});

describe("pathsIn: the paths a text names", () => {
  it.each([
    ["Let me look at `query.py` again.", ["query.py"]],
    [
      "The failure is in src/app.ts:120, see tests/test_app.py::test_login and src/app.ts.",
      ["src/app.ts", "tests/test_app.py"],
    ],
    ["Running Read.", []],
    ["Version 3.2 of numpy, see https://numpy.org/doc.html", []],
    ["(edit /testbed/django/forms/boundfield.py)", ["/testbed/django/forms/boundfield.py"]],
  ])("%j", (text, paths) => {
    expect(pathsIn(text)).toEqual(paths);
  });
});
