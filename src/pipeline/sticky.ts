/** Sticky-set id recording that `component` reduced the content with id `contentId`. */
export function reducedId(component: string, contentId: string): string {
  return `${component}:${contentId}`;
}

/** Sticky-set id recording that the content with id `contentId` was expanded: keep it verbatim. */
export function keepVerbatimId(contentId: string): string {
  return `keep:${contentId}`;
}
