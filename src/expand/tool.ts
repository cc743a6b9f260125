import type { Provider } from "../wire/types.js";

/** The name of the expand tool (§8.1). */
export const EXPAND_TOOL_NAME = "context_guru_expand";

const DESCRIPTION =
  "Returns the full original content that was replaced by a <<cg:HASH>> marker in this " +
  "conversation. Call it when you need the omitted content; pass the marker's HASH as id.";

const PARAMETERS = {
  type: "object",
  properties: {
    id: { type: "string", description: "The HASH from a <<cg:HASH>> marker" },
  },
  required: ["id"],
} as const;

/** OpenAI chat `tools[]` entry. */
export const OPENAI_EXPAND_TOOL = {
  type: "function",
  function: { name: EXPAND_TOOL_NAME, description: DESCRIPTION, parameters: PARAMETERS },
} as const;

/** Anthropic messages `tools[]` entry. */
export const ANTHROPIC_EXPAND_TOOL = {
  name: EXPAND_TOOL_NAME,
  description: DESCRIPTION,
  input_schema: PARAMETERS,
} as const;

/** OpenAI Responses `tools[]` entry: the flat function form. */
export const RESPONSES_EXPAND_TOOL = {
  type: "function",
  name: EXPAND_TOOL_NAME,
  description: DESCRIPTION,
  parameters: PARAMETERS,
} as const;

const TOOL_JSON: Readonly<Record<Provider, string>> = {
  openai: JSON.stringify(OPENAI_EXPAND_TOOL),
  anthropic: JSON.stringify(ANTHROPIC_EXPAND_TOOL),
  responses: JSON.stringify(RESPONSES_EXPAND_TOOL),
};

/** The tool definition as JSON text, byte-identical on every call (provider prompt caches stay warm). */
export function expandToolJson(provider: Provider): string {
  return TOOL_JSON[provider];
}

/** The name a `tools[]` entry declares, in any wire format's shape. */
export function declaredToolName(tool: unknown): string | undefined {
  if (typeof tool !== "object" || tool === null) return undefined;
  const record = tool as Record<string, unknown>;
  if (typeof record.name === "string") return record.name;
  const fn = record.function;
  if (typeof fn === "object" && fn !== null) {
    const name = (fn as Record<string, unknown>).name;
    if (typeof name === "string") return name;
  }
  return undefined;
}
