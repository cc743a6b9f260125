/** The value of one sample in Prometheus text exposition, undefined when the series is absent. */
export function sample(
  text: string,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number | undefined {
  const wanted = Object.entries(labels);
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = new Map(
      Array.from((match[2] ?? "").matchAll(/([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"/g), (pair) => [
        pair[1],
        pair[2],
      ]),
    );
    if (present.size !== wanted.length) continue;
    if (wanted.every(([key, value]) => present.get(key) === value)) return Number(match[3]);
  }
  return undefined;
}
