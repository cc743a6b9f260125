import { type CommandFilter, dropWhere, type LinePlan } from "./filter.js";
import type { OutputLines } from "./output-lines.js";

/**
 * Package installs: `pip install` (also `pip3`, `python -m pip`, `uv pip`), `npm|pnpm install`
 * (`i`, `ci`, `add`, `update`), `yarn` (`install`, `add`), `apt|apt-get install|update|upgrade`.
 *
 * Drops progress and bookkeeping lines:
 * - pip: `Collecting x`, `Downloading x`, `Using cached x`, `Requirement already satisfied: x`,
 *   `Obtaining`, `Preparing metadata`, `Getting requirements`, `Installing build dependencies`,
 *   `Building wheel(s) for`, `Created wheel for`, `Stored in directory:`, `Looking in indexes:`,
 *   `Found existing installation:`, `Attempting uninstall:`, `Uninstalling x:`;
 * - npm: `npm http fetch`, `npm timing`, `npm sill`, `npm verb` log lines;
 * - apt: `Get:`, `Hit:`, `Ign:` fetch lines, `Reading package lists...`, `Building dependency
 *   tree...`, `Reading state information...`, `Selecting previously unselected package`,
 *   `Preparing to unpack`, `Unpacking`, `Setting up`, `Processing triggers for`, `(Reading
 *   database ...`, `debconf: delaying package configuration`;
 * - any tool: progress bars, transfer rates and percentage-only redraws.
 * Keeps warnings, errors and the summaries (`Successfully installed …`, `added 12 packages …`,
 * `0 upgraded, 3 newly installed …`, `Fetched 12 MB in 2s`), and always the first and the last
 * non-blank line: what ran and how it ended, even when every line between is bookkeeping.
 * Notes name what a run of dropped lines was by its opening words:
 * `… (37 "Requirement already satisfied" lines)`, `… (3 "Collecting" lines, 3 progress lines)`.
 */

const BOOKKEEPING = new RegExp(
  [
    // pip
    /^\s*(Collecting|Downloading|Using cached|Requirement already satisfied|Obtaining|Preparing metadata|Getting requirements|Installing build dependencies|Building wheels? for|Created wheel for|Stored in directory:|Looking in indexes:|Found existing installation:|Attempting uninstall:|Uninstalling(?= \S+:))/
      .source,
    // npm
    /^(npm (?:http|timing|sill|verb))\b/.source,
    // apt
    /^(Get|Hit|Ign):\d+\s|^(Reading package lists|Building dependency tree|Reading state information)\.\.\.|^(Selecting previously unselected package|Preparing to unpack|Unpacking|Setting up|Processing triggers for) |^\((Reading database) \.\.\.|^(debconf: delaying package configuration)/
      .source,
  ].join("|"),
);
const BAR = /[━█▓▒░#=]{3,}/;
const RATE = /\d(?:\.\d+)?\s?(?:[kKMG]i?)?B\/s\b/;
const PERCENT_ONLY = /^[\s\d.,:/()[\]|-]*\d(?:\.\d+)?\s?%[\s\d.,:/()[\]%|-]*$/;
const SPINNER = /^\s*[\u2800-\u28ff]/u;

function isProgress(line: string): boolean {
  return (
    (BAR.test(line) && (RATE.test(line) || /%|\beta\b/.test(line))) ||
    PERCENT_ONLY.test(line) ||
    SPINNER.test(line)
  );
}

const SUBCOMMANDS: Readonly<Record<string, readonly string[]>> = {
  pip: ["install", "download"],
  pip3: ["install", "download"],
  npm: ["install", "i", "ci", "add", "update"],
  pnpm: ["install", "i", "add", "update", "up"],
  yarn: ["install", "add", "upgrade"],
  apt: ["install", "update", "upgrade", "full-upgrade", "reinstall"],
  "apt-get": ["install", "update", "upgrade", "dist-upgrade", "reinstall"],
};

export const install: CommandFilter = {
  name: "install",
  matches(argv) {
    const [program, ...rest] = argv;
    const subcommand = rest.find((word) => !word.startsWith("-"));
    if (program === "yarn" && subcommand === undefined) return true;
    return SUBCOMMANDS[program ?? ""]?.includes(subcommand ?? "") ?? false;
  },
  plan,
};

/** What a bookkeeping line is, by its opening words. */
function kindOf(line: string): string | undefined {
  const bookkeeping = BOOKKEEPING.exec(line);
  if (bookkeeping) {
    const words = bookkeeping.slice(1).find((group) => group !== undefined) ?? "";
    return `${JSON.stringify(words.replace(/:$/, ""))} line`;
  }
  return isProgress(line) ? "progress line" : undefined;
}

function plan(lines: OutputLines): LinePlan {
  const { drop, notes } = dropWhere(lines, kindOf);
  const kept = drop.slice();
  const filled: number[] = [];
  for (let index = 0; index < lines.count; index++) {
    if (lines.at(index).trim() !== "") filled.push(index);
  }
  for (const index of [filled[0], filled[filled.length - 1]]) {
    if (index !== undefined) kept[index] = undefined;
  }
  return { drop: kept, notes };
}
