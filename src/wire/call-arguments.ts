/**
 * A tool call's arguments as a value: a JSON text (`function.arguments`) decoded, undefined when
 * it does not parse; anything but a string as it is.
 */
export function decodeArguments(args: unknown): unknown {
  if (typeof args !== "string") return args;
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return undefined;
  }
}
