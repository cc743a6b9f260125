/** `phrase` followed by the marker token T, one space apart; just `phrase` when T is "" (off mode). */
export function markedPhrase(phrase: string, marker: string): string {
  return marker === "" ? phrase : `${phrase} ${marker}`;
}
