import { ConfigError } from "../errors/config-error.js";
import { type ComponentName, type Config, componentNames } from "./schema.js";

/**
 * The default: the spec's agent pipeline, with the first-sight reductions a warm cache lives on
 * (§4a) — cmdfilter's per-command filters and collapse of an oversized new output — before
 * searchfold.
 */
const agent: ComponentName[] = [
  "format",
  "toon",
  "textclean",
  "dedup",
  "failed_run",
  "mask",
  "mask_calls",
  "cmdfilter",
  "extract",
  "linecap",
];

/**
 * Named pipelines (§5). `searchfold` comes last where search results appear: it folds what the
 * reducers left as it is, so a head/tail collapse never cuts a folded group in two.
 */
export const presets: Readonly<Record<string, readonly ComponentName[]>> = {
  off: [],
  safe: ["format", "textclean"],
  balanced: ["format", "textclean", "dedup", "failed_run", "cmdfilter", "linecap", "searchfold"],
  agent: [...agent, "collapse", "searchfold"],
  aggressive: [...agent, "smartcrush", "collapse", "searchfold"],
  summarize: ["summarize"],
  "llmd-toon": ["format", "toon"],
};

export function isComponentName(name: string): name is ComponentName {
  return (componentNames as string[]).includes(name);
}

/** The component names a preset or an explicit list stands for; undefined when any is unknown. */
export function pipelineFor(
  names: readonly string[] | undefined,
  preset: string,
): readonly ComponentName[] | undefined {
  if (names) return names.every(isComponentName) ? names : undefined;
  return presets[preset];
}

/** The configured pipeline: `pipeline` when given, else the preset. */
export function configuredPipeline(config: Config): readonly ComponentName[] {
  const names = pipelineFor(config.pipeline, config.preset);
  if (!names) throw new Error("configuration was not validated");
  return names;
}

/** Boot-time check that the preset exists and every pipeline entry names a component. */
export function validatePipeline(config: Config): void {
  if (config.pipeline) {
    const unknown = config.pipeline.find((name) => !isComponentName(name));
    if (unknown !== undefined) {
      throw new ConfigError(
        "pipeline",
        `unknown component ${JSON.stringify(unknown)} (known: ${componentNames.join(", ")})`,
      );
    }
  } else if (!presets[config.preset]) {
    throw new ConfigError(
      "preset",
      `unknown preset ${JSON.stringify(config.preset)} (known: ${Object.keys(presets).join(", ")})`,
    );
  }
}
