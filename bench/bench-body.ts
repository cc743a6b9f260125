import type { Provider } from "../src/wire/types.js";

/** One request body the benchmark measures. */
export interface BenchBody {
  readonly name: string;
  readonly provider: Provider;
  /** Bodies of one session share a key; checkpoints come in transcript order. */
  readonly session: string;
  /** The request body as JSON text. */
  readonly body: string;
}
