/** The name of the expand tool (§8.1). */
export const EXPAND_TOOL_NAME = "context_guru_expand";

/** What the expand tool does, as every wire shape's entry describes it. */
export const EXPAND_TOOL_DESCRIPTION =
  "Returns the full original content that was replaced by a <<cg:HASH>> marker in this " +
  "conversation. Call it when you need the omitted content; pass the marker's HASH as id.";

/** The expand tool's JSON Schema parameters: one required string `id`. */
export const EXPAND_TOOL_PARAMETERS = {
  type: "object",
  properties: {
    id: { type: "string", description: "The HASH from a <<cg:HASH>> marker" },
  },
  required: ["id"],
} as const;

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
