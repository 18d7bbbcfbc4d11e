/**
 * The tools the server ships, in `tools/list` order. Each tool lives in its
 * own module in this folder and is added here.
 *
 * @module
 */
import type { ToolDefinition } from "./registry.ts";
import { webFetchIncisive } from "./web_fetch_incisive.ts";
import { webFetchSections } from "./web_fetch_sections.ts";

/** Every shipped tool, in list order. */
export const TOOLS: readonly ToolDefinition[] = [
  webFetchSections,
  webFetchIncisive,
];
