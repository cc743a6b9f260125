/**
 * `git diff --cached` of two files: a modified one whose hunk deletes blank lines (lone `-`)
 * and a new one whose lines are `added` — the shape in which a diff is most easily corrupted.
 */
export function stagedDiff(added: readonly string[]): string {
  return [
    "diff --git a/src/app.py b/src/app.py",
    "index 3b18e51..a9c4f2d 100644",
    "--- a/src/app.py",
    "+++ b/src/app.py",
    "@@ -1,9 +1,7 @@",
    " import os",
    "-",
    "-",
    " def main():",
    "-    value = compute_the_value(argument)",
    "+    value = compute_the_value(argument, retries=3)",
    "     return value",
    "-",
    " ",
    "diff --git a/src/extra.py b/src/extra.py",
    "new file mode 100644",
    "index 0000000..5d1c2b9",
    "--- /dev/null",
    "+++ b/src/extra.py",
    `@@ -0,0 +1,${added.length} @@`,
    ...added,
  ].join("\n");
}
