/** Read and write prices of a prompt token, in units of one uncached token. */
export interface Prices {
  readonly read: number;
  readonly write: number;
}

/**
 * What recovering a turn's hidden facts costs (SPEC §11): an expand round in reversible mode, a
 * repeated tool call in clean mode — either way about a read of the turn's prompt (its
 * `promptTokens`, cached) plus a write of each hidden original that holds a needed fact. A turn
 * with nothing hidden costs nothing.
 */
export function recoveryCost(
  promptTokens: number,
  hiddenOriginals: readonly number[],
  prices: Prices,
): number {
  if (hiddenOriginals.length === 0) return 0;
  const written = hiddenOriginals.reduce((sum, tokens) => sum + tokens, 0);
  return prices.read * promptTokens + prices.write * written;
}
