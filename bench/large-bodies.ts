/** Large request bodies: the big-body load scenario and the tests of compaction off the event loop and of memory bounds. */

/**
 * An OpenAI body of about `bytes` bytes: Bash calls whose outputs are distinct build logs, the
 * Bash tool declared (so full markers are ones the model could expand).
 */
export function largeLogBody(bytes: number): string {
  const messages: string[] = ['{"role":"user","content":"Fix the failing build."}'];
  let size = 64;
  for (let call = 0; size < bytes; call++) {
    const output = Array.from(
      { length: 40 },
      (_, line) =>
        `[build ${call}] step ${line}: compiled src/module-${(call * 40 + line) % 9973}.ts in ${(call + line) % 97}ms`,
    ).join("\n");
    const assistant = JSON.stringify({
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id: `call_${call}`,
          type: "function",
          function: { name: "Bash", arguments: JSON.stringify({ command: `make step-${call}` }) },
        },
      ],
    });
    const tool = JSON.stringify({ role: "tool", tool_call_id: `call_${call}`, content: output });
    messages.push(assistant, tool);
    size += assistant.length + tool.length + 2;
  }
  const tools = '[{"type":"function","function":{"name":"Bash","parameters":{"type":"object"}}}]';
  return `{"model":"gpt-4o","messages":[${messages.join(",")}],"tools":${tools}}`;
}

/** The worst body per byte for a JSON parser: `bytes` bytes of tiny messages (~38 bytes each). */
export function tinyMessagesBody(bytes: number): string {
  const messages: string[] = [];
  let size = 32;
  for (let index = 0; size < bytes - 40; index++) {
    const message = `{"role":"user","content":"m${index % 10}"}`;
    messages.push(message);
    size += message.length + 1;
  }
  return `{"model":"m","messages":[${messages.join(",")}]}`;
}
