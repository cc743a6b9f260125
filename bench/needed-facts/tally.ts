import { isRecord } from "../../src/wire/is-record.js";
import type { Source } from "./body-reading.js";
import { FACT_STATES, type FactState, OTHER } from "./classify.js";
import { FACT_KINDS, type FactKind } from "./reference.js";
import type { TurnFacts } from "./turn-facts.js";

export type StateCounts = Record<FactState, number>;

/** A needed fact the returned body did not show, with where it came from. */
export interface HiddenFact {
  readonly session: string;
  /** The turn (1-based) whose returned body hid it. */
  readonly turn: number;
  readonly kind: FactKind;
  /** The reference (a passage: its lines joined by newlines), cut at 200 characters. */
  readonly fact: string;
  readonly state: Exclude<FactState, "visible">;
  readonly hiddenBy: string;
  /** The newest output or call that held it, and how many outputs back it was (1: the last). */
  readonly holder: {
    readonly kind: Source["kind"];
    readonly call: string;
    readonly outputsBack: number;
  };
}

/** Needed facts of one schedule's replay (SPEC §11), per reference and per turn. */
export interface FactsSummary {
  /** Turns measured: every turn but each session's last, which has no next action. */
  readonly turns: number;
  readonly skipped: number;
  readonly turnsWithFacts: number;
  /** Turns whose every needed fact was visible, and turns that lost at least one. */
  readonly turnsAllVisible: number;
  readonly turnsWithLost: number;
  readonly facts: StateCounts;
  readonly byKind: Record<FactKind, StateCounts>;
  /** Facts an output held, and facts only earlier calls held. */
  readonly byHolder: Record<Source["kind"], StateCounts>;
  /** Facts not visible, by the component that hid their holder. */
  readonly byComponent: Readonly<Record<string, Omit<StateCounts, "visible">>>;
  /** What recovering the hidden facts costs, summed in each session's own pricing. */
  readonly recovery: number;
  /** Turns that pay a recovery. */
  readonly recoveries: number;
  readonly hidden: readonly HiddenFact[];
}

const FACT_TEXT = 200;
const CALL_TEXT = 100;

function counts(): StateCounts {
  return { visible: 0, marker: 0, lost: 0 };
}

/** Adds up the needed facts of a schedule's turns. */
export class FactsTally {
  #turns = 0;
  #skipped = 0;
  #withFacts = 0;
  #allVisible = 0;
  #withLost = 0;
  #recovery = 0;
  #recoveries = 0;
  readonly #facts = counts();
  readonly #byKind = Object.fromEntries(FACT_KINDS.map((kind) => [kind, counts()])) as Record<
    FactKind,
    StateCounts
  >;
  readonly #byHolder: Record<Source["kind"], StateCounts> = { output: counts(), call: counts() };
  readonly #byComponent: Record<string, Omit<StateCounts, "visible">> = {};
  readonly #hidden: HiddenFact[] = [];

  /** A session's last turn: no next action to take facts from. */
  skip(): void {
    this.#skipped++;
  }

  add(session: string, turn: number, result: TurnFacts): void {
    this.#turns++;
    if (result.facts.length > 0) this.#withFacts++;
    if (result.facts.length > 0 && result.facts.every((item) => item.state === "visible")) {
      this.#allVisible++;
    }
    if (result.facts.some((item) => item.state === "lost")) this.#withLost++;
    if (result.recovery > 0) this.#recoveries++;
    this.#recovery += result.recovery;
    for (const item of result.facts) {
      const { reference, holders } = item.fact;
      this.#facts[item.state]++;
      this.#byKind[reference.kind][item.state]++;
      const heldBy = holders.some((source) => source.kind === "output") ? "output" : "call";
      this.#byHolder[heldBy][item.state]++;
      if (item.state === "visible") continue;
      const hiddenBy = item.hiddenBy ?? OTHER;
      const component = this.#byComponent[hiddenBy] ?? { marker: 0, lost: 0 };
      component[item.state]++;
      this.#byComponent[hiddenBy] = component;
      this.#hidden.push({
        session,
        turn,
        kind: reference.kind,
        fact: reference.text.slice(0, FACT_TEXT),
        state: item.state,
        hiddenBy,
        holder: {
          kind: item.holder.kind,
          call: brief(item.holder),
          outputsBack: result.outputs - item.holder.output,
        },
      });
    }
  }

  summary(): FactsSummary {
    return {
      turns: this.#turns,
      skipped: this.#skipped,
      turnsWithFacts: this.#withFacts,
      turnsAllVisible: this.#allVisible,
      turnsWithLost: this.#withLost,
      facts: { ...this.#facts },
      byKind: structuredClone(this.#byKind),
      byHolder: structuredClone(this.#byHolder),
      byComponent: structuredClone(this.#byComponent),
      recovery: this.#recovery,
      recoveries: this.#recoveries,
      hidden: [...this.#hidden],
    };
  }
}

/** `Read /testbed/setup.py`: the tool and the first line of its first string argument. */
function brief(source: Source): string {
  const values = isRecord(source.input) ? Object.values(source.input) : [source.input];
  const first = values.find((value): value is string => typeof value === "string") ?? "";
  return `${source.tool} ${first.split("\n")[0] ?? ""}`.trim().slice(0, CALL_TEXT);
}

/** Facts in `state` as a share of all counted, or null when there were none. */
export function share(counted: StateCounts, state: FactState): number | null {
  const total = FACT_STATES.reduce((sum, each) => sum + counted[each], 0);
  return total === 0 ? null : counted[state] / total;
}
