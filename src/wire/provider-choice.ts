import { detectShape, isProvider, wireShape } from "./registry.js";
import type { WireShape } from "./shape.js";
import type { Provider } from "./types.js";

/** What a request says its body is (`?provider=`, §2): a shape's name, or `auto` to sniff it. */
export type ProviderChoice = Provider | "auto";

/** The shape a body is read as: the one named, or the one sniffing finds. */
export function resolveShape(choice: ProviderChoice, body: Record<string, unknown>): WireShape {
  return choice === "auto" ? detectShape(body) : wireShape(choice);
}

/** `?provider=` as a choice (absent or empty: `auto`); undefined for an unknown name. */
export function parseProviderChoice(value: string | undefined): ProviderChoice | undefined {
  if (value === undefined || value === "" || value === "auto") return "auto";
  return isProvider(value) ? value : undefined;
}
