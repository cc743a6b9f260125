import fc from "fast-check";

/**
 * fast-check arbitraries for structured tool outputs (SPEC §5 "Fidelity"): lists of records
 * (pods, services) rendered as pretty or one-line JSON (an API response, `kubectl -o json`),
 * YAML (`kubectl get -o yaml`), CSV, TSV and aligned tables (`kubectl get`, `docker ps`). Each
 * record has a unique name and a status; some statuses are not normal and some records carry an
 * error, so a reducer that keeps the first and last records must keep those too. Records repeat
 * their field lines, to tempt reducers that fold repeated lines across records.
 */
export interface StructuredRecord {
  readonly name: string;
  readonly status: string;
  readonly message: string;
  /** True when the record must survive any reduction: an error, or a status that is not normal. */
  readonly notable: boolean;
}

export type StructuredKind = "json" | "json-line" | "envelope" | "yaml" | "csv" | "tsv" | "table";

export interface StructuredOutput {
  readonly kind: StructuredKind;
  readonly records: readonly StructuredRecord[];
  readonly text: string;
  readonly name: string;
  readonly input: Record<string, unknown>;
}

const NORMAL = ["Running", "Running", "Running", "Succeeded", "Completed"];
const NOT_NORMAL = ["Pending", "CrashLoopBackOff", "Unknown", "Terminating", "ImagePullBackOff"];
const MESSAGES = [
  "",
  "",
  "",
  "ok",
  "Error: connection refused to db:5432",
  "readiness probe failed",
];

const record = (index: number) =>
  fc
    .tuple(fc.nat(99), fc.constantFrom(...NORMAL, ...NOT_NORMAL), fc.constantFrom(...MESSAGES))
    .map(([seed, status, message]) => ({
      name: `web-${index}-${seed.toString(36).padStart(2, "0")}`,
      status,
      message,
      notable: NOT_NORMAL.includes(status) || /error|fail/i.test(message),
    }));

const records = fc
  .integer({ min: 3, max: 45 })
  .chain((count) => fc.tuple(...Array.from({ length: count }, (_, index) => record(index))));

function render(kind: StructuredKind, list: readonly StructuredRecord[]): string {
  const objects = list.map((item) => ({
    name: item.name,
    namespace: "default",
    status: item.status,
    active: false,
    restarts: 0,
    message: item.message,
  }));
  switch (kind) {
    case "json":
      return JSON.stringify(objects, null, 2);
    case "json-line":
      return JSON.stringify(objects);
    case "envelope":
      return JSON.stringify({ kind: "PodList", total: objects.length, items: objects }, null, 2);
    case "yaml":
      return [
        "apiVersion: v1",
        "items:",
        ...list.flatMap((item) => [
          "- apiVersion: v1",
          "  kind: Pod",
          "  metadata:",
          `    name: ${item.name}`,
          "    namespace: default",
          "  spec:",
          "    restartPolicy: Always",
          "  status:",
          `    phase: ${item.status}`,
          ...(item.message === "" ? [] : [`    message: ${JSON.stringify(item.message)}`]),
        ]),
        "kind: List",
        "metadata:",
        '  resourceVersion: ""',
      ].join("\n");
    case "csv":
      return [
        "name,namespace,status,restarts,message",
        ...list.map((item) => `${item.name},default,${item.status},0,"${item.message}"`),
      ].join("\n");
    case "tsv":
      return [
        "name\tnamespace\tstatus\trestarts\tmessage",
        ...list.map((item) => `${item.name}\tdefault\t${item.status}\t0\t${item.message}`),
      ].join("\n");
    case "table": {
      const width = Math.max(4, ...list.map((item) => item.name.length)) + 3;
      const pad = (text: string, size: number) => text.padEnd(size);
      return [
        `${pad("NAME", width)}${pad("READY", 8)}${pad("STATUS", 19)}${pad("RESTARTS", 11)}AGE`,
        ...list.map(
          (item) =>
            `${pad(item.name, width)}${pad(item.status === "Running" ? "1/1" : "0/1", 8)}${pad(item.status, 19)}${pad("0", 11)}5d`,
        ),
      ].join("\n");
    }
  }
}

const COMMANDS: Record<StructuredKind, string> = {
  json: "curl -s http://api.internal/v1/pods",
  "json-line": "curl -s http://api.internal/v1/pods?compact=1",
  envelope: "kubectl get pods -o json",
  yaml: "kubectl get pods -o yaml",
  csv: "python export.py --format csv",
  tsv: "python export.py --format tsv",
  table: "kubectl get pods",
};

export const structuredOutput: fc.Arbitrary<StructuredOutput> = fc
  .tuple(fc.constantFrom<StructuredKind>(...(Object.keys(COMMANDS) as StructuredKind[])), records)
  .map(([kind, list]) => ({
    kind,
    // An aligned table shows no message column: there a record is notable by its status alone.
    records:
      kind === "table"
        ? list.map((item) => ({ ...item, notable: NOT_NORMAL.includes(item.status) }))
        : list,
    text: render(kind, list),
    name: "Bash",
    input: { command: COMMANDS[kind] },
  }));

export const structuredOutputs: fc.Arbitrary<StructuredOutput[]> = fc.array(structuredOutput, {
  minLength: 1,
  maxLength: 4,
});

export { render as renderStructured };
