import type { ComponentName, MarkerMode } from "../config/schema.js";
import type { ContentClass } from "../content/content-class.js";
import { carriesMarker, markerIds, SENTINEL } from "../expand/markers.js";
import { type Decision, internDecision } from "../session/ledger.js";
import type { PendingStash } from "../session/records.js";
import type { Transcript } from "../wire/transcript.js";
import type { ComponentReport } from "./report.js";
import type { ComponentKind } from "./types.js";

/**
 * The tool outputs of one run as components change them: each output's current text, whether an
 * offload reduced it, the decision it is taking (the components whose changes it kept, in
 * order), and what must be stashed before any marker is written.
 */
export class OutputState {
  readonly received: readonly string[];
  /** Each output's content class, as the transcript decided it. */
  readonly classes: readonly ContentClass[];
  readonly current: string[];
  readonly offloaded: boolean[];
  /** Whether each current text carries a marker; kept up to date as texts change. */
  readonly carries: boolean[];
  /** Outputs a kept pointer refers to (dedup's target): offloads leave them readable. */
  readonly pointedTo = new Set<number>();
  /** The text an offload stashed (its marker's content), per offloaded output. */
  readonly stashedAs: (string | undefined)[];
  /** The text an `rf:` record names this output's original by, per output that has one. */
  readonly reformatted: (string | undefined)[];
  /** Markers' originals and reformat records, each with the messages that hold it. */
  readonly stashes = new Map<string, PendingStash & { readonly messages: Set<number> }>();
  /** Marker ids the run wrote or replayed, in order of first use. */
  readonly markerIds = new Set<string>();
  /** Markers and summary sentinels written into the outputs. */
  markers = 0;
  readonly #applied: ComponentName[][];
  readonly #messageOf: readonly number[];

  constructor(
    transcript: Transcript,
    private readonly hash: (text: string) => string,
    /** Told each value stashed anew (PipelineDeps.stage). */
    private readonly stage?: (value: string) => void,
  ) {
    this.received = transcript.outputs.map((output) => output.text);
    this.#messageOf = transcript.outputs.map((output) => output.messageIndex);
    this.classes = transcript.outputs.map((output) => output.contentClass);
    this.current = [...this.received];
    this.offloaded = this.received.map(() => false);
    this.carries = this.received.map((text) => carriesMarker(text));
    this.stashedAs = this.received.map(() => undefined);
    this.reformatted = this.received.map(() => undefined);
    this.#applied = this.received.map(() => []);
  }

  /**
   * Output `index` becomes `text`, kept from component `name`. An offload's marker ids are
   * resolved through `pending` (what the component asked to stash) and stashed; in full mode a
   * reformatted text that an offload then reduced gets an `rf:` record back to what was received.
   */
  apply(
    index: number,
    text: string,
    change: {
      readonly name: ComponentName;
      readonly kind: ComponentKind;
      readonly mode: MarkerMode;
      readonly pending: ReadonlyMap<string, string>;
      readonly entry: ComponentReport;
    },
  ): void {
    const before = this.current[index] as string;
    // A bound composed onto an earlier offload (bound.ts) writes that offload's marker, whose
    // original is already stashed: the output keeps one marker and one original.
    if (change.kind === "offload" && !this.offloaded[index]) {
      this.offloaded[index] = true;
      if (change.mode === "full") {
        for (const id of new Set(markerIds(text))) {
          const original = change.pending.get(id);
          if (original === undefined) continue;
          this.stash(id, original, this.#messageOf[index] as number);
          this.markerIds.add(id);
          change.entry.keys.push(id);
          this.markers++;
        }
        const first = this.received[index] as string;
        this.stashedAs[index] = before;
        if (before !== first) {
          this.stash(
            { kind: "rf", textId: this.hash(before) },
            first,
            this.#messageOf[index] as number,
          );
          this.reformatted[index] = before;
        }
      } else if (change.mode === "summary" && text.includes(SENTINEL)) {
        this.markers++;
      }
    }
    this.current[index] = text;
    this.carries[index] = change.kind === "offload" || carriesMarker(text);
    this.#applied[index]?.push(change.name);
  }

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
    this.stage?.(value);
  }

  /** Every output's decision: the components whose changes it kept, in order. */
  decisions(): Decision[] {
    return this.#applied.map((names) => internDecision(names));
  }

  /**
   * `rf:` records for outputs changed without a full marker, so /rehydrate gives back what came:
   * those only reformats changed, and those an offload reduced while full markers acted as off
   * (§1: the model could not call the expand tool, yet nothing is lost).
   */
  recordReformats(): void {
    this.current.forEach((text, index) => {
      const first = this.received[index] as string;
      if (this.stashedAs[index] === undefined && text !== first) {
        this.stash(
          { kind: "rf", textId: this.hash(text) },
          first,
          this.#messageOf[index] as number,
        );
        this.reformatted[index] = text;
      }
    });
  }
}
