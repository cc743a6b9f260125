import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isRecord } from "../src/wire/is-record.js";
import type { BenchBody } from "./bench-body.js";

/**
 * Reads a corpus folder of `{provider, body}` JSON files (such as ../shared/corpus/agent): in
 * the order of its `index.json` (entries with `file` and optionally `session`) when present,
 * else in sorted file-name order. `body` may be an object or the request text itself.
 * Throws with the file name when a file is not of that shape.
 */
export function loadCorpus(dir: string): BenchBody[] {
  if (!existsSync(dir)) throw new Error(`corpus folder not found: ${dir}`);
  const indexPath = join(dir, "index.json");
  const listed = existsSync(indexPath) ? readIndex(indexPath) : undefined;
  const entries =
    listed ??
    readdirSync(dir)
      .filter((file) => file.endsWith(".json") && file !== "index.json")
      .sort()
      .map((file) => ({ file, session: undefined }));
  if (entries.length === 0) throw new Error(`no .json bodies in ${dir}`);
  return entries.map(({ file, session }) => {
    const parsed: unknown = JSON.parse(readFileSync(join(dir, file), "utf8"));
    if (!isRecord(parsed) || (parsed.provider !== "openai" && parsed.provider !== "anthropic")) {
      throw new Error(`${file}: expected {"provider": "openai"|"anthropic", "body": …}`);
    }
    const { body } = parsed;
    if (typeof body !== "string" && !isRecord(body)) {
      throw new Error(`${file}: "body" must be an object or a JSON string`);
    }
    const name = file.replace(/\.json$/, "");
    return {
      name,
      provider: parsed.provider,
      session: `${session ?? sessionFromName(name)}/${parsed.provider}`,
      body: typeof body === "string" ? body : JSON.stringify(body),
    };
  });
}

function readIndex(path: string): { file: string; session: string | undefined }[] {
  const index: unknown = JSON.parse(readFileSync(path, "utf8"));
  if (!Array.isArray(index)) throw new Error(`${path}: expected an array of entries`);
  return index.map((entry, position) => {
    if (!isRecord(entry) || typeof entry.file !== "string") {
      throw new Error(`${path}: entry ${position} has no "file"`);
    }
    const { session } = entry;
    return {
      file: entry.file,
      session:
        typeof session === "string" || typeof session === "number" ? String(session) : undefined,
    };
  });
}

/** `s3-t012-openai` → `s3`: the part before the first dash, else the whole name. */
function sessionFromName(name: string): string {
  const dash = name.indexOf("-");
  return dash > 0 ? name.slice(0, dash) : name;
}
