import type { ComponentName, MarkerMode } from "../config/schema.js";
import { carriesMarker, markerIds, SENTINEL } from "../expand/markers.js";
import { type Decision, internDecision } from "../session/ledger.js";
import type { PendingStash } from "../session/records.js";
import type { Slot, SlotKind } from "../wire/types.js";
import type { ComponentReport } from "./report.js";
import type { ComponentKind } from "./types.js";

/** One slot as a run changes it: the slot as received, its text now, and what was decided. */
export interface SlotState {
  readonly slot: Slot;
  /** Its text as it stands. */
  current: string;
  /** An offload reduced it: it no longer reads as received. */
  offloaded: boolean;
  /** Its current text carries a marker; kept up to date as the text changes. */
  carries: boolean;
  /** The text an offload stashed (its marker's content). */
  stashedAs: string | undefined;
  /** The text an `rf:` record names its original by. */
  reformatted: string | undefined;
  /** The components whose changes it kept, in order applied: its decision. */
  readonly applied: ComponentName[];
}

/** A change a component made to one slot, as the lane records it. */
export interface SlotChange {
  readonly name: ComponentName;
  readonly kind: ComponentKind;
  readonly mode: MarkerMode;
  /** What the component asked to stash, by marker id. */
  readonly pending: ReadonlyMap<string, string>;
  readonly entry: ComponentReport;
}

/**
 * What a run must stash before any marker is written, and the markers it wrote: shared by the
 * lanes of one run.
 */
export class StashBook {
  /** Markers' originals and reformat records, each with the messages that hold it. */
  readonly stashes = new Map<string, PendingStash & { readonly messages: Set<number> }>();
  /** Marker ids the run wrote or replayed, in order of first use. */
  readonly markerIds = new Set<string>();
  /** Markers and summary sentinels written. */
  markers = 0;

  constructor(
    readonly hash: (text: string) => string,
    /** Told each value stashed anew, with its marker id if it has one (PipelineDeps.stage). */
    private readonly stage?: (value: string, id?: string) => void,
  ) {}

  /** Keeps `value` under `key` (a marker id or a record), held by received message `message`. */
  stash(key: PendingStash["key"], value: string, message: number): void {
    // A record is scoped to its message (session/records.ts): one text may stand for different
    // originals in different messages.
    const name = typeof key === "string" ? key : `${key.kind}:${key.textId}:${message}`;
    const known = this.stashes.get(name);
    if (known && known.value === value) {
      known.messages.add(message);
      return;
    }
    this.stashes.set(name, { key, value, messages: new Set([message]) });
    this.stage?.(value, typeof key === "string" ? key : undefined);
  }
}

/**
 * The slots of one kind (tool outputs, or the agent's calls) as a run changes them: one record
 * a slot. A component works on the lane of the kind it takes, by index within the lane.
 */
export class SlotLane {
  readonly states: SlotState[];
  /** Slots a kept pointer refers to (dedup's target): offloads leave them readable. */
  readonly pointedTo = new Set<number>();

  constructor(
    readonly kind: SlotKind,
    slots: readonly Slot[],
    readonly book: StashBook,
  ) {
    this.states = slots.map((slot) => ({
      slot,
      current: slot.text,
      offloaded: false,
      carries: carriesMarker(slot.text),
      stashedAs: undefined,
      reformatted: undefined,
      applied: [],
    }));
  }

  #observer: ((index: number, text: string, change: SlotChange) => void) | undefined;

  /** Tells `observer` of every change applied from now on (undefined: no one). */
  observe(observer: ((index: number, text: string, change: SlotChange) => void) | undefined): void {
    this.#observer = observer;
  }

  /** The state of slot `index` (one the lane holds). */
  at(index: number): SlotState {
    return this.states[index] as SlotState;
  }

  /**
   * Slot `index` becomes `text`, kept from component `change.name`. An offload's marker ids are
   * resolved through `change.pending` (what the component asked to stash) and stashed; in full
   * mode a reformatted text that an offload then reduced gets an `rf:` record back to what was
   * received.
   */
  apply(index: number, text: string, change: SlotChange): void {
    this.#observer?.(index, text, change);
    const state = this.at(index);
    const { book } = this;
    const before = state.current;
    // A bound composed onto an earlier offload (bound.ts) writes that offload's marker, whose
    // original is already stashed: the slot keeps one marker and one original.
    if (change.kind === "offload" && !state.offloaded) {
      state.offloaded = true;
      const message = state.slot.messageIndex;
      if (change.mode === "full") {
        for (const id of new Set(markerIds(text))) {
          const original = change.pending.get(id);
          if (original === undefined) continue;
          book.stash(id, original, message);
          // The same original in two slots (an edit made twice) is one marker, written twice.
          if (!book.markerIds.has(id)) book.markers++;
          book.markerIds.add(id);
          change.entry.keys.push(id);
        }
        state.stashedAs = before;
        if (before !== state.slot.text) {
          book.stash({ kind: "rf", textId: book.hash(before) }, state.slot.text, message);
          state.reformatted = before;
        }
      } else if (change.mode === "summary" && text.includes(SENTINEL)) {
        book.markers++;
      }
    }
    state.current = text;
    state.carries = change.kind === "offload" || carriesMarker(text);
    state.applied.push(change.name);
  }

  /** Every slot's text as it stands. */
  texts(): string[] {
    return this.states.map((state) => state.current);
  }

  /** Every slot's decision: the components whose changes it kept, in order. */
  decisions(): Decision[] {
    return this.states.map((state) => internDecision(state.applied));
  }

  /**
   * `rf:` records for slots changed without a full marker, so /rehydrate gives back what came:
   * those only reformats changed, and those an offload reduced while full markers acted as off
   * (§1: the model could not call the expand tool, yet nothing is lost). A call's markers stand
   * for the values they replaced, not for the whole call: every changed call has its record.
   */
  recordReformats(): void {
    for (const state of this.states) {
      if (state.current === state.slot.text) continue;
      if (state.stashedAs !== undefined && this.kind === "output") continue;
      const textId = this.book.hash(state.current);
      this.book.stash({ kind: "rf", textId }, state.slot.text, state.slot.messageIndex);
      state.reformatted = state.current;
    }
  }
}

/** The lanes of one run, by kind, sharing one stash book. */
export type SlotLanes = Readonly<Record<SlotKind, SlotLane>>;

export function slotLanes(
  slots: Readonly<Record<SlotKind, readonly Slot[]>>,
  hash: (text: string) => string,
  stage?: (value: string, id?: string) => void,
): SlotLanes {
  const book = new StashBook(hash, stage);
  return {
    output: new SlotLane("output", slots.output, book),
    call: new SlotLane("call", slots.call, book),
  };
}
