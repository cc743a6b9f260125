import { createHash } from "node:crypto";
import { join } from "node:path";
import type { AnthropicBlock } from "./anthropic-wire.js";
import { COMPACTION_PREFIX, EXPAND_TOOL, type Plan } from "./plan.js";
import type { ResponsesItem } from "./responses-wire.js";
import { callIdOf, type Move, progressTag } from "./session-script.js";

/**
 * A plan in each wire shape. Every turn opens with what real models send first and clients
 * must return untouched: a thinking block with its signature (Anthropic), a reasoning item with
 * `encrypted_content` (Responses). Both are opaque strings derived from `seed`, the same for the
 * same session and move.
 */

export interface RenderContext {
  /** The agent's working directory (Claude Code's Read and Edit take absolute paths). */
  readonly repoDir: string;
  /** Distinguishes the sessions of a run: opaque strings differ between them. */
  readonly seed: string;
}

/** An opaque base64 string of about 340 characters, a pure function of its seed. */
export function opaque(seed: string): string {
  const digests = Array.from({ length: 8 }, (_, index) =>
    createHash("sha256").update(`${seed}:${index}`).digest(),
  );
  return Buffer.concat(digests).toString("base64");
}

const short = (seed: string) => createHash("sha256").update(seed).digest("hex").slice(0, 8);

function summaryText(latest: number): string {
  return [
    "<analysis>The scripted session summarised at its current step.</analysis>",
    "",
    "<summary>",
    "1. Primary Request and Intent: fix the failing test of the calc repository.",
    `2. Progress: the scripted session reached ${progressTag(latest)}; continue with the next step.`,
    "</summary>",
  ].join("\n");
}

function moveSeed(context: RenderContext, label: string): string {
  return `${context.seed}:${label}`;
}

function anthropicTool(move: Move, context: RenderContext): AnthropicBlock {
  const id = callIdOf("toolu", move);
  switch (move.kind) {
    case "read":
      return {
        type: "tool_use",
        id,
        name: "Read",
        input: { file_path: join(context.repoDir, move.path) },
      };
    case "edit":
      return {
        type: "tool_use",
        id,
        name: "Edit",
        input: {
          file_path: join(context.repoDir, move.path),
          old_string: move.before,
          new_string: move.after,
        },
      };
    case "shell":
      return {
        type: "tool_use",
        id,
        name: "Bash",
        input: { command: move.command, description: `Run ${move.command}` },
      };
    case "answer":
      return { type: "text", text: `${move.text} [e2e-${move.tag}]` };
  }
}

export function anthropicBlocks(
  plan: Plan,
  context: RenderContext,
  expandCall: string,
): AnthropicBlock[] {
  const thinking = (label: string): AnthropicBlock => ({
    type: "thinking",
    thinking: `Scripted reasoning before ${label}.`,
    signature: opaque(moveSeed(context, `signature:${label}`)),
  });
  switch (plan.kind) {
    case "move":
      return [thinking(plan.move.tag), anthropicTool(plan.move, context)];
    case "expand":
      return [
        thinking(expandCall),
        { type: "tool_use", id: expandCall, name: EXPAND_TOOL, input: { id: plan.markerId } },
      ];
    case "summary":
    case "compaction":
      return [{ type: "text", text: summaryText(plan.latest) }];
    case "title":
      return [{ type: "text", text: '{"title":"Fix the add helper"}' }];
    case "side":
      return [{ type: "text", text: "ok" }];
    case "done":
      return [{ type: "text", text: `Nothing left to do ${progressTag(plan.latest)}.` }];
  }
}

function responsesTool(move: Move, context: RenderContext): ResponsesItem {
  const call_id = callIdOf("call", move);
  const id = `fc_e2e_${move.tag}_${short(moveSeed(context, move.tag))}`;
  switch (move.kind) {
    case "read":
      return {
        type: "function_call",
        id,
        call_id,
        name: "exec_command",
        arguments: JSON.stringify({ cmd: `cat ${move.path}` }),
      };
    case "shell":
      return {
        type: "function_call",
        id,
        call_id,
        name: "exec_command",
        arguments: JSON.stringify({ cmd: move.command }),
      };
    case "edit":
      return {
        type: "custom_tool_call",
        id: `ctc_e2e_${move.tag}_${short(moveSeed(context, move.tag))}`,
        call_id,
        name: "apply_patch",
        input: `*** Begin Patch\n*** Update File: ${move.path}\n@@\n-${move.before}\n+${move.after}\n*** End Patch\n`,
      };
    case "answer":
      return { type: "message", id: `msg_e2e_${move.tag}`, text: `${move.text} [e2e-${move.tag}]` };
  }
}

export function responsesItems(
  plan: Plan,
  context: RenderContext,
  expandCall: string,
): ResponsesItem[] {
  const reasoning = (label: string): ResponsesItem => ({
    type: "reasoning",
    id: `rs_e2e_${short(moveSeed(context, label))}`,
    encrypted_content: `gAAAAA${opaque(moveSeed(context, `reasoning:${label}`))}`,
  });
  switch (plan.kind) {
    case "move":
      return [reasoning(plan.move.tag), responsesTool(plan.move, context)];
    case "expand":
      return [
        reasoning(expandCall),
        {
          type: "function_call",
          id: `fc_${expandCall}`,
          call_id: expandCall,
          name: EXPAND_TOOL,
          arguments: JSON.stringify({ id: plan.markerId }),
        },
      ];
    case "summary":
      return [
        { type: "message", id: `msg_e2e_summary_${plan.latest}`, text: summaryText(plan.latest) },
      ];
    case "compaction": {
      const content = Buffer.from(summaryText(plan.latest)).toString("base64");
      return [
        {
          type: "compaction",
          id: `cmp_e2e_${plan.latest}`,
          encrypted_content: `${COMPACTION_PREFIX}${content}`,
        },
      ];
    }
    case "title":
    case "side":
      return [{ type: "message", id: `msg_e2e_side_${short(context.seed)}`, text: "ok" }];
    case "done":
      return [
        {
          type: "message",
          id: `msg_e2e_done_${plan.latest}`,
          text: `Nothing left to do ${progressTag(plan.latest)}.`,
        },
      ];
  }
}
