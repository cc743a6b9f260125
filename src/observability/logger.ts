import { type DestinationStream, type LevelWithSilent, type Logger, pino } from "pino";

export type { Logger } from "pino";

/**
 * Header and field names whose values never reach a log line, wherever they sit in a logged
 * object. The request log itself records no headers and no bodies; this is the second line.
 */
const secretPaths = [
  "authorization",
  '["x-api-key"]',
  "cookie",
  '["set-cookie"]',
  "api_key",
  "token",
].flatMap((key) => {
  const member = key.startsWith("[") ? key : `.${key}`;
  return [key, `headers${member}`, `*.headers${member}`, `*${member}`];
});

export interface LoggerOptions {
  level?: LevelWithSilent;
  /** Where lines go; default stdout. Tests pass a stream to read them back. */
  destination?: DestinationStream;
}

/** A JSON-lines logger: ISO timestamps, level names, credentials redacted. */
export function createLogger({ level = "info", destination }: LoggerOptions = {}): Logger {
  const options = {
    level,
    base: { service: "cg-compactor" },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    redact: { paths: secretPaths, censor: "[redacted]" },
  };
  return destination ? pino(options, destination) : pino(options);
}
