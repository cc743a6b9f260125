/**
 * The OpenAI Responses form of an OpenAI chat body, as an agent speaking the Responses API would
 * send the same conversation: the first system message becomes `instructions`, user and
 * assistant text become `message` items (`input_text` / `output_text` parts), each tool call a
 * `function_call` item and each tool message a `function_call_output` item; `tools` take the flat
 * form. Used by the tests and the cost replay to compare both shapes on the same conversations.
 */
export function responsesForm(chatBody: string): string {
  const chat = JSON.parse(chatBody) as Record<string, unknown>;
  const messages = Array.isArray(chat.messages) ? (chat.messages as unknown[]) : [];
  let instructions: string | undefined;
  const input: unknown[] = [];
  for (const message of messages) {
    if (!isRecord(message)) continue;
    const { role } = message;
    const text = textOf(message.content);
    if (role === "system" || role === "developer") {
      if (instructions === undefined && input.length === 0) instructions = text;
      else input.push(messageItem("developer", "input_text", text));
    } else if (role === "user") {
      input.push(messageItem("user", "input_text", text));
    } else if (role === "assistant") {
      if (text !== "") input.push(messageItem("assistant", "output_text", text));
      for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
        if (!isRecord(call) || !isRecord(call.function)) continue;
        input.push({
          type: "function_call",
          call_id: call.id,
          name: call.function.name,
          arguments: call.function.arguments,
        });
      }
    } else if (role === "tool") {
      const output = Array.isArray(message.content)
        ? message.content.map((part) => ({ type: "input_text", text: textOf([part]) }))
        : text;
      input.push({ type: "function_call_output", call_id: message.tool_call_id, output });
    }
  }
  const body: Record<string, unknown> = {};
  if (chat.model !== undefined) body.model = chat.model;
  if (instructions !== undefined) body.instructions = instructions;
  body.input = input;
  if (Array.isArray(chat.tools)) body.tools = chat.tools.map(flatTool);
  if (chat.tool_choice !== undefined) body.tool_choice = chat.tool_choice;
  return JSON.stringify(body);
}

function messageItem(role: string, part: string, text: string): unknown {
  return { type: "message", role, content: [{ type: part, text }] };
}

function flatTool(tool: unknown): unknown {
  if (!isRecord(tool) || !isRecord(tool.function)) return tool;
  return { type: "function", ...tool.function };
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) => (isRecord(part) && typeof part.text === "string" ? part.text : ""))
    .join("\n");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
