import { parseArgs } from "node:util";

/** What the command line asks for. */
export type Command =
  | { readonly kind: "serve"; readonly configFile: string | undefined }
  | { readonly kind: "help" }
  | { readonly kind: "error"; readonly message: string };

export const usage = `Usage: cg-compactor [--config FILE | FILE]

Serves POST /compact, GET /expand, POST /rehydrate, the OpenAI- and Anthropic-compatible
proxies (POST /v1/chat/completions, POST /v1/messages), /livez, /readyz and /metrics.

Options:
  -c, --config FILE  YAML configuration (default: $CONFIG_FILE, else the embedded defaults)
  -h, --help         print this text and exit

Environment overrides win over the file: PORT, HOST, PROBE_PORT, STORE_ENABLED, STORE_BACKEND,
REDIS_URL, REDIS_MODE, REDIS_NODES, STORE_HASH_KEY, MARKER_MODE, PRESET, PIPELINE,
OPENAI_BASE_URL, ANTHROPIC_BASE_URL, LOG_LEVEL, BODY_LIMIT, AUTH_TOKEN. Example files:
configs/*.yaml.
`;

/**
 * Reads the server's arguments: `--config FILE`, or the file alone as the one positional
 * argument; `--help`. A wrong command line is an `error` with a message to print beside the usage,
 * never an exception.
 */
export function parseCommandLine(args: readonly string[]): Command {
  let parsed: ReturnType<typeof read>;
  try {
    parsed = read(args);
  } catch (error) {
    return { kind: "error", message: (error as Error).message };
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: "help" };
  if (positionals.length > 1) {
    return {
      kind: "error",
      message: `expected at most one config file, got ${positionals.length}: ${positionals.join(" ")}`,
    };
  }
  const [positional] = positionals;
  if (positional !== undefined && values.config !== undefined) {
    return {
      kind: "error",
      message: `the config file is given twice (--config ${values.config} and ${positional})`,
    };
  }
  return { kind: "serve", configFile: values.config ?? positional };
}

function read(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    options: {
      config: { type: "string", short: "c" },
      help: { type: "boolean", short: "h" },
    },
    allowPositionals: true,
    strict: true,
  });
}
