import type { CommandFilter, LinePlan } from "./filter.js";
import type { OutputLines } from "./output-lines.js";

/**
 * Containers: `docker` / `podman` (pull, build, run, compose, buildx, …) and `kubectl` (any
 * subcommand).
 *
 * Drops:
 * - image layer progress: `<layer id>: Pulling fs layer | Waiting | Downloading … | Verifying
 *   Checksum | Download complete | Extracting … | Pull complete | Already exists` (with or
 *   without compose's `✔`/`⠿` prefix);
 * - BuildKit progress: `#5 sha256:… 12MB / 45MB 0.5s`, `#5 extracting sha256:…`,
 *   `#5 transferring context: …`; legacy builder ` ---> 1a2b3c4d` and
 *   `Removing intermediate container …` lines;
 * - kubectl: `… unchanged` lines of an apply, and every `Waiting for … rollout to finish` line
 *   but the last;
 * - any tool: progress bars and percentage-only redraws.
 * Keeps errors, `Digest:`, `Status:`, build steps and their output, and the final status lines.
 * Notes: `… (6 layer progress lines)`, `… (2 build progress lines)`, `… (2 unchanged resources)`,
 * `… (1 rollout wait)`, `… (3 progress lines)`.
 */

// The spaces before a layer id's colon are read with the colon, so that a run of spaces after
// the id is not split between two `\s` quantifiers in every way.
const LAYER =
  /^\s*(?:[✔⠿\u2800-\u28ff]\s+)?[0-9a-f]{12}(?:\s*:)?\s+(?:Pulling fs layer|Waiting|Downloading|Verifying Checksum|Download complete|Extracting|Pull complete|Already exists)/u;
const BUILDKIT =
  /^#\d+ (?:sha256:[0-9a-f]+ |extracting sha256:|transferring (?:context|dockerfile):)/;
const LEGACY_BUILD = /^ ---> [0-9a-f]{6,}$|^ ---> Running in |^Removing intermediate container /;
const UNCHANGED = /^\S+ unchanged$/;
const ROLLOUT_WAIT = /^Waiting for (?:deployment|daemon set|statefulset|rollout)\b.* to finish/;
const BAR = /\[[=>\- ]{5,}\]|[━█▓▒░]{3,}/;
const PERCENT_ONLY = /^[\s\d.,:/()[\]|-]*\d(?:\.\d+)?\s?%[\s\d.,:/()[\]%|-]*$/;

function kindOf(line: string): string | undefined {
  if (LAYER.test(line)) return "layer progress line";
  if (BUILDKIT.test(line) || LEGACY_BUILD.test(line)) return "build progress line";
  if (UNCHANGED.test(line)) return "unchanged resource";
  if ((BAR.test(line) && /\d/.test(line)) || PERCENT_ONLY.test(line)) return "progress line";
  return undefined;
}

function plan(lines: OutputLines): LinePlan {
  const drop: Array<string | undefined> = new Array(lines.count);
  let lastWait = -1;
  for (let index = 0; index < lines.count; index++) {
    const line = lines.at(index);
    if (ROLLOUT_WAIT.test(line)) {
      if (lastWait >= 0) drop[lastWait] = "rollout wait";
      lastWait = index;
      continue;
    }
    const kind = kindOf(line);
    if (kind !== undefined) drop[index] = kind;
  }
  return { drop, notes: new Map() };
}

export const containers: CommandFilter = {
  name: "containers",
  matches: (argv) =>
    ["docker", "podman", "kubectl", "docker-compose", "nerdctl"].includes(argv[0] ?? ""),
  plan,
};
