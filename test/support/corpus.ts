import { existsSync, readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";

/** The shared corpus of real requests (never copied into the repository). */
export const corpusDir = resolve(import.meta.dirname, "../../../shared/corpus");
export const hasCorpus = existsSync(corpusDir);

/** Warns visibly that a corpus-backed suite is skipped. */
export function warnWithoutCorpus(suite: string): void {
  if (!hasCorpus) console.warn(`${suite}: skipped, corpus absent at ${corpusDir}`);
}

/** The string tool-output contents of every OpenAI-shaped agent request body, by file name. */
export function agentToolTexts(): Map<string, string[]> {
  const folder = resolve(corpusDir, "agent");
  const bodies = new Map<string, string[]>();
  for (const file of readdirSync(folder).sort()) {
    if (!file.endsWith("-openai.json")) continue;
    const parsed = JSON.parse(readFileSync(resolve(folder, file), "utf8")) as {
      body: { messages: { role: string; content: unknown }[] };
    };
    const texts = parsed.body.messages
      .filter((message) => message.role === "tool" && typeof message.content === "string")
      .map((message) => message.content as string);
    bodies.set(file, texts);
  }
  return bodies;
}
