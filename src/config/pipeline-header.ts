import { componentNames } from "./schema.js";

/**
 * The component names of an `x-context-guru-pipeline` header value, for a route to run: split
 * on commas, trimmed, each name kept once at its first mention. At most one more name than
 * there are components is read (such a list names an unknown one, and the configured pipeline
 * runs), so a header of thousands of names costs one pass of each component at most.
 */
export function pipelineNames(
  header: readonly string[] | string | undefined,
): string[] | undefined {
  if (header === undefined) return undefined;
  const names = typeof header === "string" ? header.split(",") : header;
  const distinct = new Set<string>();
  for (const name of names) {
    const trimmed = name.trim();
    if (trimmed === "") continue;
    distinct.add(trimmed);
    if (distinct.size > componentNames.length) break;
  }
  return [...distinct];
}
