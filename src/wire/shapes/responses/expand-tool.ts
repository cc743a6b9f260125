import {
  EXPAND_TOOL_DESCRIPTION,
  EXPAND_TOOL_NAME,
  EXPAND_TOOL_PARAMETERS,
} from "../../../expand/tool.js";

/** The expand tool (§8.1) as a Responses `tools[]` entry: the flat function form. */
export const RESPONSES_EXPAND_TOOL = {
  type: "function",
  name: EXPAND_TOOL_NAME,
  description: EXPAND_TOOL_DESCRIPTION,
  parameters: EXPAND_TOOL_PARAMETERS,
} as const;
