/** `phrase` followed by the marker token T, one space apart; just `phrase` when T is "" (off mode). */
export function markedPhrase(phrase: string, marker: string): string {
  return marker === "" ? phrase : `${phrase} ${marker}`;
}

/** `text` + `\n` + marker, the marker on its own last line; just `text` when T is "" (off mode). */
export function withMarkerLine(text: string, marker: string): string {
  if (marker === "") return text;
  return text.endsWith("\n") ? text + marker : `${text}\n${marker}`;
}
