import type { ComponentName, MarkerMode } from "../config/schema.js";
import type { Decision } from "../session/ledger.js";
import type { Slot, ToolOutput } from "../wire/types.js";
import { currentOutput } from "./context.js";
import type { ComponentReport } from "./report.js";
import { modeOf, type ReportEntries } from "./report-entries.js";
import type { RunRequest } from "./run.js";
import type { SlotChange, SlotLane } from "./slot-state.js";
import type { ComponentKind } from "./types.js";

/** The report's counters a replay adds to, by component. */
type Counters = Pick<ComponentReport, "tokensBefore" | "tokensAfter" | "changed" | "dropped"> & {
  unfaithful: number;
};

/** What the replay of one slot did: every entry it asked for, every change applied, every count. */
export interface SlotReplay {
  readonly decision: Decision;
  /** The replay of the lane's frozen slot before this one, as it went (undefined: none before). */
  readonly previous: SlotReplay | undefined;
  readonly redecide: boolean;
  /** The report entries asked for, in order, each with its mode. */
  readonly entries: readonly { name: ComponentName; kind: ComponentKind; mode: MarkerMode }[];
  /** The changes applied to the slot, in order. */
  readonly changes: readonly { text: string; change: Omit<SlotChange, "entry"> }[];
  /** What it added to each entry's counters. */
  readonly counted: ReadonlyMap<ComponentName, Counters>;
}

/**
 * What replaying each slot did (§4a: a warm turn gives every already-sent slot back as it was
 * returned), kept per slot while the slot is: a warm turn re-sends its history, and a slot of
 * bytes it shares with the last request is the same slot (compact/read-memo.ts), so its replay is
 * taken as it went instead of running its components and guards again.
 *
 * A replay is taken only where it would go exactly as it went: the same slot, the same
 * recorded decision, every component in the same mode, the request re-deciding alike, and the
 * lane's slots before it replayed exactly as before (each replay names the one before it, so a
 * lane's replays are taken as a run from its first). A run held apart for ambiguous records, or
 * cut one-way, replays in full.
 */
export class ReplayTraces {
  readonly #bySlot = new WeakMap<Slot, SlotReplay>();

  /** The replay recorded for `slot` that this request would repeat, if any. */
  find(
    slot: Slot,
    decision: Decision,
    previous: SlotReplay | undefined,
    request: RunRequest,
  ): SlotReplay | undefined {
    const known = this.#bySlot.get(slot);
    if (known === undefined || known.previous !== previous) return undefined;
    if (known.redecide !== request.redecide || !sameDecision(known.decision, decision)) {
      return undefined;
    }
    for (const entry of known.entries)
      if (modeOf(request, entry.name) !== entry.mode) return undefined;
    return known;
  }

  /** Starts recording the replay of slot `index` of `lane`. */
  record(lane: SlotLane, index: number, entries: ReportEntries): SlotRecorder {
    return new SlotRecorder(this.#bySlot, lane, index, entries);
  }
}

/** Records one slot's replay: the entries it asks for, the changes applied, the counts added. */
export class SlotRecorder {
  readonly #asked: Array<{ name: ComponentName; kind: ComponentKind; mode: MarkerMode }> = [];
  readonly #changes: Array<{ text: string; change: Omit<SlotChange, "entry"> }> = [];
  readonly #before = new Map<ComponentReport, Counters & { calls: number }>();

  constructor(
    private readonly bySlot: WeakMap<Slot, SlotReplay>,
    private readonly lane: SlotLane,
    private readonly index: number,
    private readonly entries: ReportEntries,
  ) {
    for (const entry of entries.report.components) this.#before.set(entry, countersOf(entry));
    lane.observe((at, text, change) => {
      if (at !== index) return;
      const { entry: _entry, ...rest } = change;
      this.#changes.push({ text, change: rest });
    });
  }

  /** The entry `name` for a replay, as `entries.entryFor` gives it, recorded. */
  entryFor(name: ComponentName, kind: ComponentKind | undefined, replaying: boolean) {
    const entry = this.entries.entryFor(name, kind, replaying);
    this.#asked.push({ name, kind: entry.kind, mode: entry.mode });
    return entry;
  }

  /** The slot's replay went as recorded: kept, unless a model was called (its report can't be). */
  finish(
    decision: Decision,
    previous: SlotReplay | undefined,
    redecide: boolean,
  ): SlotReplay | undefined {
    this.lane.observe(undefined);
    const counted = new Map<ComponentName, Counters>();
    for (const entry of this.entries.report.components) {
      const before = this.#before.get(entry) ?? { ...ZERO, calls: 0 };
      const after = countersOf(entry);
      if (after.calls !== before.calls) return undefined;
      const added: Counters = {
        tokensBefore: after.tokensBefore - before.tokensBefore,
        tokensAfter: after.tokensAfter - before.tokensAfter,
        changed: after.changed - before.changed,
        dropped: after.dropped - before.dropped,
        unfaithful: after.unfaithful - before.unfaithful,
      };
      if (Object.values(added).some((value) => value !== 0)) counted.set(entry.name, added);
    }
    const slot = this.lane.at(this.index).slot;
    const replay: SlotReplay = {
      decision,
      previous,
      redecide,
      entries: this.#asked,
      changes: this.#changes,
      counted,
    };
    this.bySlot.set(slot, replay);
    return replay;
  }

  /** The replay failed part way: nothing is kept. */
  abandon(): void {
    this.lane.observe(undefined);
  }
}

/** Repeats a recorded replay on slot `index` of `lane`: its entries, changes and counts. */
export function repeatReplay(
  replay: SlotReplay,
  lane: SlotLane,
  index: number,
  entries: ReportEntries,
  outputs: ToolOutput[],
): void {
  for (const { name, kind } of replay.entries) entries.entryFor(name, kind, true);
  for (const { text, change } of replay.changes) {
    const entry = entries.entryFor(change.name, change.kind, true);
    lane.apply(index, text, { ...change, entry });
    outputs[index] = currentOutput(lane, index);
  }
  for (const [name, added] of replay.counted) {
    const entry = entries.entryFor(name, undefined, true);
    entry.tokensBefore += added.tokensBefore;
    entry.tokensAfter += added.tokensAfter;
    entry.changed += added.changed;
    entry.dropped += added.dropped;
    if (added.unfaithful !== 0) entry.unfaithful = (entry.unfaithful ?? 0) + added.unfaithful;
  }
}

const ZERO: Counters = { tokensBefore: 0, tokensAfter: 0, changed: 0, dropped: 0, unfaithful: 0 };

function countersOf(entry: ComponentReport): Counters & { calls: number } {
  return {
    tokensBefore: entry.tokensBefore,
    tokensAfter: entry.tokensAfter,
    changed: entry.changed,
    dropped: entry.dropped,
    unfaithful: entry.unfaithful ?? 0,
    calls: entry.modelCalls?.length ?? 0,
  };
}

function sameDecision(a: Decision, b: Decision): boolean {
  return a === b || (a.length === b.length && a.every((name, at) => name === b[at]));
}
