/**
 * What one expand call returns to the model. Each wire shape writes its results into the next
 * round's request (WireShape.continuation).
 */
export interface ToolResult {
  readonly callId: string;
  readonly content: string;
}

/** The tool result for an id the store cannot give back (§7). */
export function missPlaceholder(id: string): string {
  return `[expand: original for id ${id} is no longer available]`;
}

/** The tool result for a call without a usable string `id` argument. */
export const MALFORMED_CALL = '[expand: the call needs a string argument "id"]';
