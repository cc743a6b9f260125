import { isRecord, lastUserText, type RequestView } from "../conversation.js";
import { latestMove, type Move, nextMove } from "./session-script.js";

/**
 * What the scripted model makes of a request, decided from what it receives only: the agent's
 * own compaction (Claude Code's summary prompt, Codex's checkpoint prompt or a trailing
 * `compaction_trigger` item), a title request, another side call without the agent's shell
 * tool, or a turn of the session — where it calls `context_guru_expand` once per session as
 * soon as a marker is offered with the tool, and else makes the session's next move.
 */

export const EXPAND_TOOL = "context_guru_expand";

export type RequestKind = "turn" | "summary" | "compaction_trigger" | "title" | "side";

export type Plan =
  | { readonly kind: "move"; readonly move: Move }
  | { readonly kind: "expand"; readonly markerId: string }
  | { readonly kind: "summary"; readonly latest: number }
  | { readonly kind: "compaction"; readonly latest: number }
  | { readonly kind: "title" }
  | { readonly kind: "side" }
  | { readonly kind: "done"; readonly latest: number };

const SUMMARY_PROMPTS = [
  /create a detailed summary of the conversation/i,
  /CONTEXT CHECKPOINT COMPACTION/,
];
const TITLE_PROMPT = /Generate a concise, sentence-case title/;
const SHELL_TOOLS = new Set(["Bash", "exec_command", "shell", "shell_command"]);
const MARKER = /<<cg:([A-Za-z0-9_-]{1,64})>>/g;

export function recogniseRequest(view: RequestView): RequestKind {
  const last = view.items.at(-1);
  if (last?.type === "compaction_trigger") return "compaction_trigger";
  const asked = lastUserText(view);
  if (SUMMARY_PROMPTS.some((prompt) => prompt.test(asked))) return "summary";
  if (TITLE_PROMPT.test(asked) || TITLE_PROMPT.test(view.rawSystem ?? "")) return "title";
  return view.toolNames.some((name) => SHELL_TOOLS.has(name)) ? "turn" : "side";
}

/** The prefix the model writes before a compaction item's opaque content. */
export const COMPACTION_PREFIX = "e2ecmp.";

/** How far the session got: tags in the conversation, in compaction items' contents too. */
export function progressOf(view: RequestView): number {
  let latest = 0;
  for (const item of view.items) {
    latest = Math.max(latest, latestMove(item.raw));
    const value = item.value;
    if (isRecord(value) && value.type === "compaction") {
      const content = value.encrypted_content;
      if (typeof content === "string" && content.startsWith(COMPACTION_PREFIX)) {
        const decoded = Buffer.from(content.slice(COMPACTION_PREFIX.length), "base64").toString();
        latest = Math.max(latest, latestMove(decoded));
      }
    }
  }
  return latest;
}

/** The marker of the newest tool output that carries one, when the expand tool is offered. */
export function offeredMarker(view: RequestView): string | undefined {
  if (!view.toolNames.includes(EXPAND_TOOL)) return undefined;
  for (let index = view.outputs.length - 1; index >= 0; index--) {
    const text = view.outputs[index]?.text ?? "";
    const found = [...text.matchAll(MARKER)].at(-1);
    if (found?.[1] !== undefined) return found[1];
  }
  return undefined;
}

/** The model's plan for one request; `expanded` says whether this session already expanded. */
export function planReply(view: RequestView, expanded: boolean): Plan {
  const kind = recogniseRequest(view);
  const latest = progressOf(view);
  if (kind === "compaction_trigger") return { kind: "compaction", latest };
  if (kind === "summary") return { kind: "summary", latest };
  if (kind === "title") return { kind: "title" };
  if (kind === "side") return { kind: "side" };
  const marker = expanded ? undefined : offeredMarker(view);
  if (marker !== undefined) return { kind: "expand", markerId: marker };
  const move = nextMove(latest);
  return move === undefined ? { kind: "done", latest } : { kind: "move", move };
}
