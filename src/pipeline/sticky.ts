/** Sticky-set id recording that `component` reduced the content with id `contentId`. */
export function reducedId(component: string, contentId: string): string {
  return `${component}:${contentId}`;
}

/** Sticky-set id recording that the content with id `contentId` was expanded: keep it verbatim. */
export function keepVerbatimId(contentId: string): string {
  return `${KEEP}${contentId}`;
}

/** Whether the session expanded anything (without copying its sticky set on every request). */
export function keepsAnyVerbatim(sticky: ReadonlySet<string>): boolean {
  for (const id of sticky) if (id.startsWith(KEEP)) return true;
  return false;
}

const KEEP = "keep:";
