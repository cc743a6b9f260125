import type { ComponentName } from "../config/schema.js";
import type { Component } from "../pipeline/types.js";
import { cmdfilter } from "./cmdfilter.js";
import { collapse } from "./collapse.js";
import { dedup } from "./dedup.js";
import { extract } from "./extract.js";
import { extractLlm } from "./extract-llm.js";
import { failedRun } from "./failed-run.js";
import { format } from "./format.js";
import { linecap } from "./linecap.js";
import { mask } from "./mask.js";
import { maskCalls } from "./mask-calls.js";
import { searchfold } from "./searchfold.js";
import { smartcrush } from "./smartcrush.js";
import { summarize } from "./summarize.js";
import { textclean } from "./textclean.js";
import { toon } from "./toon.js";

/** Every built-in component by name; a new component is one file plus one line here. */
export const components: { readonly [N in ComponentName]?: Component<N> } = {
  format,
  toon,
  textclean,
  searchfold,
  mask,
  mask_calls: maskCalls,
  dedup,
  failed_run: failedRun,
  collapse,
  smartcrush,
  extract,
  linecap,
  cmdfilter,
  summarize,
  extract_llm: extractLlm,
};

/** The component registered under `name`, if any. */
export function componentNamed<N extends ComponentName>(name: N): Component<N> | undefined {
  return components[name];
}
