import { decode } from "@toon-format/toon";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { classifyOutput } from "../../src/content/classify.js";
import { notableRecord, notableRow } from "../../src/content/notable.js";
import { documentRecords, type Records, recordsOf } from "../../src/content/records.js";
import { checkFidelity } from "../../src/pipeline/fidelity.js";
import { CLEAN, COLD, postCompact, testApp } from "../support/app.js";
import { outputTexts, transcriptOf } from "../support/fact-arbitraries.js";
import { PROPERTY_RUNS } from "../support/property-runs.js";

const bash = (command: string) => ({ name: "Bash", input: { command } });

/** `kubectl get pods -o yaml` of `count` pods; those in `pending` are Pending. */
function podsYaml(count: number, pending: ReadonlySet<number>): string {
  const pods = Array.from({ length: count }, (_, index) => [
    "- apiVersion: v1",
    "  kind: Pod",
    "  metadata:",
    `    name: api-${index}`,
    "    namespace: default",
    "  spec:",
    "    containers:",
    "    - image: registry.local/api:1.4.2",
    "      imagePullPolicy: IfNotPresent",
    "      name: api",
    "  status:",
    "    conditions:",
    '    - status: "True"',
    "      type: Initialized",
    `    phase: ${pending.has(index) ? "Pending" : "Running"}`,
    "    qosClass: BestEffort",
  ]);
  return [
    "apiVersion: v1",
    "items:",
    ...pods.flat(),
    "kind: List",
    "metadata:",
    '  resourceVersion: ""',
  ].join("\n");
}

/** A pretty-printed JSON array of `count` users, as `curl` of an API prints it. */
function usersJson(count: number): string {
  const users = Array.from({ length: count }, (_, index) => ({
    id: index + 1,
    name: `user-${index + 1}`,
    email: `user-${index + 1}@example.com`,
    active: index % 7 === 3,
    role: index % 5 === 0 ? "admin" : "member",
    created_at: `2026-0${(index % 9) + 1}-1${index % 10}T10:00:00Z`,
    // Not uniform: TOON's tables do not fit, so the array stays JSON.
    ...(index % 4 === 0 ? { groups: ["ops", `team-${index}`] } : {}),
  }));
  return JSON.stringify(users, null, 2);
}

const KUBECTL_GET = [
  "NAME                     READY   STATUS             RESTARTS   AGE",
  "api-7d9f8b6c5-2xkqp      1/1     Running            0          3d",
  "api-7d9f8b6c5-9wzlm      1/1     Running            0          3d",
  "worker-5c7b9d8f4-h2jkl   0/1     CrashLoopBackOff   14         3d",
  "redis-0                  1/1     Running            0          12d",
].join("\n");

describe("structured documents are classed by shape", () => {
  it.each([
    ["kubectl get pods -o yaml", podsYaml(3, new Set([1])), "yaml"],
    ["helm get values web", "replicaCount: 3\nimage:\n  repository: web\n  tag: 1.2.0\n", "yaml"],
    ["kubectl get pods", KUBECTL_GET, "table"],
    [
      "docker ps",
      'CONTAINER ID   IMAGE          COMMAND       CREATED        STATUS        PORTS     NAMES\n1a2b3c4d5e6f   nginx:1.27     "nginx -g…"   2 hours ago    Up 2 hours    80/tcp    web\n9f8e7d6c5b4a   redis:7        "redis-se…"   3 hours ago    Up 3 hours              cache',
      "table",
    ],
    ["python export.py", "id,name,status\n1,a,ok\n2,b,failed\n3,c,ok", "table"],
    ["python export.py", "id\tname\tstatus\n1\ta\tok\n2\tb\tfailed", "table"],
    ["python export.py", 'name,note\n"a, b",\u{1f600} ok\nc,"\u{1f680}, d"\ne,f', "table"],
    ["python export.py", 'name,note\na,"b, c"\nd,"e, f"\ng,h', "table"],
    ["python export.py", "name,note\na,b, c\nd,e, f\ng,h", "log"],
    [
      "psql -c 'select * from jobs'",
      " id | state\n----+--------\n  1 | done\n  2 | failed\n(2 rows)",
      "table",
    ],
    ["curl -s api/users", usersJson(3), "json"],
    ["./run.sh", "INFO: starting\nINFO: loading config\nWARNING: cache cold\nINFO: done", "log"],
    ["./run.sh", "building module a\nbuilding module b\nall done, 2 modules", "log"],
  ])("%s → %s", (command, text, expected) => {
    expect(classifyOutput(text, { id: "c", ...bash(command) })).toBe(expected);
  });
});

describe("records and what is notable", () => {
  it("reads a kubectl list's items as records, the list's keys as header and trailer", () => {
    const lines = podsYaml(3, new Set()).split("\n");
    const found = recordsOf(lines, "yaml");
    expect(found?.head).toBe(2);
    expect(found?.starts.slice(0, -1).map((start) => lines[start])).toEqual([
      "- apiVersion: v1",
      "- apiVersion: v1",
      "- apiVersion: v1",
    ]);
    expect(lines.slice(found?.end)).toEqual(["kind: List", "metadata:", '  resourceVersion: ""']);
  });

  it.each([
    ['{"name":"a","status":"Running"}', false],
    ['{"name":"a","status":"down"}', true],
    ["  status:\n    phase: Pending", true],
    ['  status:\n    phase: Running\n    conditions:\n    - status: "True"', false],
    ['{"name":"a","error":"connection refused"}', true],
  ])("notableRecord(%j) is %s", (text, expected) => {
    expect(notableRecord(text)).toBe(expected);
  });

  it("reads each record from its start, whatever the record before it held", () => {
    // The first record stops at its second field; the next one is shorter than that.
    const long = '{"name":"a","phase":"Running","status":"Pending","other":"padding padding"}';
    expect(notableRecord(long)).toBe(true);
    expect(notableRecord('{"status":"down"}')).toBe(true);
    expect(notableRecord('{"phase":"Running"}')).toBe(false);
    expect(notableRecord(long)).toBe(true);
  });

  it.each([
    ["api-7d9f8b6c5-2xkqp      1/1     Running            0          3d", false],
    ["worker-5c7b9d8f4-h2jkl   0/1     CrashLoopBackOff   14         3d", true],
    ["api-7d9f8b6c5-9wzlm      0/1     Running            0          3d", true],
  ])("notableRow(%j) is %s", (row, expected) => {
    expect(notableRow(KUBECTL_GET.split("\n")[0] as string, row)).toBe(expected);
  });
});

describe("documentRecords", () => {
  it("reads a document once for the reducer and the fidelity check, each with lines of its own", () => {
    const read = documentRecords(KUBECTL_GET.split("\n"), "table");
    expect(read?.notable).toEqual(
      (read?.starts.slice(0, -1) ?? []).map((start) =>
        notableRow(KUBECTL_GET.split("\n")[0] as string, KUBECTL_GET.split("\n")[start] as string),
      ),
    );
    expect(read?.notable).toContain(true);
    // The same lines split again: the same answer, not a second reading.
    expect(documentRecords(KUBECTL_GET.split("\n"), "table")).toBe(read);
    // Lines that differ in one record, or the same lines read as YAML: read afresh.
    const healed = KUBECTL_GET.replace(
      "0/1     CrashLoopBackOff",
      "1/1     Running         ",
    ).split("\n");
    const other = documentRecords(healed, "table");
    expect(other).not.toBe(read);
    expect(other?.notable.filter(Boolean).length).toBeLessThan(
      read?.notable.filter(Boolean).length ?? 0,
    );
    expect(documentRecords(healed, "yaml")).not.toBe(other);
  });
});

describe("the fidelity check keeps records whole", () => {
  const table = KUBECTL_GET;
  it.each([
    [
      "a row cut in the middle",
      table.replace("Running            0          12d", "Running ...[cut]..."),
      "record_cut",
    ],
    [
      "a notable row left out with a count",
      table.replace(/\nworker.*\n/, "\n… (1 more row)\n"),
      "record_cut",
    ],
    [
      "a row left out without a count",
      table.replace(/\napi-7d9f8b6c5-9wzlm.*\n/, "\n"),
      "record_cut",
    ],
    [
      "a normal row left out with a count",
      table.replace(/\napi-7d9f8b6c5-9wzlm.*\n/, "\n… (1 more row)\n"),
      undefined,
    ],
  ])("%s", (_, returned, expected) => {
    expect(checkFidelity(table, returned, "table", [])).toBe(expected);
  });

  // Every pod of `kubectl get -o yaml` opens with the same line, as duplicate rows of a table
  // do: a note's count says where the records it stands for end.
  const pods = podsYaml(8, new Set([6]));
  const podLines = pods.split("\n");
  /** The pods' lines with pods `from`..`to` (inclusive) replaced by `note`. */
  const withoutPods = (from: number, to: number, note: string) =>
    [...podLines.slice(0, 2 + 16 * from), note, ...podLines.slice(2 + 16 * (to + 1))].join("\n");
  it.each([
    ["three pods left out, counted", withoutPods(1, 3, "\u2026 (3 more records)"), undefined],
    [
      "three pods left out, counted as two",
      withoutPods(1, 3, "\u2026 (2 more records)"),
      "record_cut",
    ],
    [
      "two pods left out, counted as three",
      withoutPods(1, 2, "\u2026 (3 more records)"),
      "record_cut",
    ],
    ["a Pending pod left out, counted", withoutPods(5, 6, "\u2026 (2 more records)"), "record_cut"],
    ["the last pods left out, counted", withoutPods(7, 7, "\u2026 (1 more record)"), undefined],
  ])("YAML records that open alike: %s", (_, returned, expected) => {
    expect(checkFidelity(pods, returned, "yaml", [])).toBe(expected);
  });

  it.each([
    ["two of three equal rows left out, counted", 1, 2, "\u2026 (2 more rows)", undefined],
    ["two of three equal rows left out, counted as one", 1, 2, "\u2026 (1 more row)", "record_cut"],
  ])("a table of equal rows: %s", (_, from, to, note, expected) => {
    const rows = KUBECTL_GET.split("\n");
    const row = rows[1] as string;
    const table = [rows[0], row, row, row, row, rows.at(-1)].join("\n");
    const lines = table.split("\n");
    const returned = [...lines.slice(0, 1 + from), note, ...lines.slice(2 + to)].join("\n");
    expect(checkFidelity(table, returned, "table", [])).toBe(expected);
  });

  it.each([
    ["cut in the middle", '[{"id":1},{"id":2},...[cut]...{"id":9}]', "json_broken"],
    ["fewer items with a count", '[{"id":1},{"id":9}] [2 of 9 items shown]', undefined],
    ["fewer items without a count", '[{"id":1},{"id":9}]', "json_broken"],
  ])("JSON %s", (_, returned, expected) => {
    const original = JSON.stringify(Array.from({ length: 9 }, (_, index) => ({ id: index + 1 })));
    expect(checkFidelity(original, returned, "json", [])).toBe(expected);
  });
});

describe("structured outputs through the default preset, clean mode", () => {
  const { app } = testApp(CLEAN);

  async function compactOne(command: string, text: string): Promise<string> {
    const body = transcriptOf("openai", [{ text, ...bash(command) }]);
    const response = await postCompact(app, body, { headers: COLD });
    return outputTexts("openai", await response.text())[0] as string;
  }

  it("a pretty JSON array of 50 objects stays valid JSON with every object and field", async () => {
    const text = usersJson(50);
    const returned = await compactOne("curl -s https://api.example.com/users", text);
    // Compact JSON (format) or TOON (toon): lossless either way, nothing cut or folded.
    const value = returned.startsWith("[{") ? JSON.parse(returned) : decode(returned);
    expect(value).toEqual(JSON.parse(text));
    expect(returned).not.toContain("...[cut]...");
    expect(returned).not.toMatch(/\(x\d+\)/);
    for (let id = 1; id <= 50; id++) expect(returned).toContain(`user-${id}@example.com`);
  });

  it("kubectl get pods -o yaml of 40 pods keeps all 6 Pending phases", async () => {
    const pending = new Set([3, 9, 17, 22, 30, 38]);
    const returned = await compactOne("kubectl get pods -o yaml", podsYaml(40, pending));
    expect(returned.match(/phase: Pending/g)).toHaveLength(6);
    for (const index of pending) expect(returned).toContain(`name: api-${index}\n`);
    expect(returned).not.toMatch(/repeated \d+ lines|\(x\d+\)/);
  });

  it("kubectl get pods -o yaml of 400 pods is shortened by whole pods, keeping the Pending ones", async () => {
    const pending = new Set([3, 170, 398]);
    const text = podsYaml(400, pending);
    const returned = await compactOne("kubectl get pods -o yaml", text);
    expect(returned.length).toBeLessThan(text.length / 10);
    expect(returned.match(/phase: Pending/g)).toHaveLength(3);
    for (const index of pending) expect(returned).toContain(`name: api-${index}\n`);
    const counts = [...returned.matchAll(/\u2026 \((\d+) more records?\)/g)];
    const kept = returned.match(/^- apiVersion: v1$/gm)?.length ?? 0;
    expect(counts.length).toBeGreaterThan(0);
    expect(kept + counts.reduce((sum, match) => sum + Number(match[1]), 0)).toBe(400);
  });
});

describe("records read by where their lines start", () => {
  /** Records as the line ranges the reference reads: each record's first line and the next's. */
  function asRanges(found: Records | undefined) {
    return (
      found && {
        head: found.head,
        records: found.starts
          .slice(0, found.count)
          .map((start, at) => ({ start, end: found.starts[at + 1] as number })),
        end: found.end,
      }
    );
  }

  /** The reference: the records as first read, from each line made a string and trimmed. */
  function referenceYamlRecords(lines: readonly string[]) {
    const ITEM = /^(\s*)- /;
    const sequence = () => {
      for (let first = 0; first < lines.length; first++) {
        const opening = ITEM.exec(lines[first] as string);
        if (!opening) continue;
        const indent = (opening[1] as string).length;
        const records: Array<{ start: number; end: number }> = [];
        let start = first;
        let line = first + 1;
        for (; line < lines.length; line++) {
          const text = lines[line] as string;
          if (text.trim() === "") continue;
          const depth = text.length - text.trimStart().length;
          if (depth > indent) continue;
          if (depth === indent && text.startsWith("- ", indent)) {
            records.push({ start, end: line });
            start = line;
            continue;
          }
          break;
        }
        let end = line;
        while (end > start + 1 && (lines[end - 1] as string).trim() === "") end--;
        records.push({ start, end });
        if (records.length >= 2) return { head: first, records, end };
        first = line - 1;
      }
      return undefined;
    };
    const split = (opens: (line: string) => boolean) => {
      const starts = lines.flatMap((line, index) => (opens(line) ? [index] : []));
      if (starts.length < 2) return undefined;
      let end = lines.length;
      while (end > (starts.at(-1) as number) + 1 && (lines[end - 1] as string).trim() === "") end--;
      const records = starts.map((start, index) => ({ start, end: starts[index + 1] ?? end }));
      return { head: starts[0] as number, records, end };
    };
    const found =
      sequence() ??
      split((line) => /^---(?:\s|$)/.test(line)) ??
      split((line) => /^[^\s#-][^:]*:(?:\s|$)/.test(line));
    return found !== undefined && found.records.length >= 2 ? found : undefined;
  }

  it("are those of the lines made strings, for any indentation and white space", () => {
    const line = fc.constantFrom(
      "items:",
      "- a: 1",
      "  - b: 2",
      "\t- c",
      "-  d",
      "-x",
      "- ",
      "-",
      "  key: v",
      "\u00a0- e",
      "---",
      "--- x",
      "top: 1",
      "# note",
      "",
      "   ",
      "\r",
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 16 }), (lines) => {
        expect(asRanges(recordsOf(lines, "yaml"))).toEqual(referenceYamlRecords(lines));
      }),
      { numRuns: PROPERTY_RUNS * 10 },
    );
  });
});
