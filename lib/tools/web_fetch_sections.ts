/**
 * `web_fetch_sections` (`WebFetchSections`): the outline of a page, in
 * windows of 100 sections, each with the address (`#id` or slug) that
 * `web_fetch_incisive` accepts as `section`.
 *
 * @module
 */
import type { ToolResult } from "../envelope/response.ts";
import type { HintContext } from "../hint.ts";
import { type Loader, readPage } from "../views/read.ts";
import { OUTLINE_WINDOW, type OutlineRequest, outlineRequestSchema } from "../views/request.ts";
import { outlineAnswer } from "./page_answer.ts";
import { mcpHints, READS_THE_WEB, toolReading } from "./page_view.ts";
import { defineTool, type ToolContext } from "./registry.ts";

/** Arguments of the tool: the outline request. */
export type SectionsArgs = OutlineRequest;

/** Runs the tool: the outline of the page the request names, `window` sections at a time. */
export async function runSections(
  args: SectionsArgs,
  ctx: ToolContext,
  load?: Loader,
  hints: HintContext = mcpHints(ctx, "outline"),
  window: number = OUTLINE_WINDOW,
): Promise<ToolResult> {
  const read = await readPage(args, { ...toolReading(ctx, load), outline: true });
  return (await outlineAnswer(read, args, ctx, hints, window)).result;
}

const DESCRIPTION = `Outline of a web page: its headings as a tree, each with the address that
{tool:web_fetch_incisive} takes as section=. Cheap at any length: call it
first on long pages (specifications, manuals, docs) to pick what to read.
Reddit, GitHub, arXiv, wiki, Discourse and Hugging Face URLs are read
through their APIs. ${OUTLINE_WINDOW} sections a window (slice=1 the next).`;

/** The tool declaration. */
export const webFetchSections = defineTool({
  key: "web_fetch_sections",
  names: { desktop: "web_fetch_sections", code: "WebFetchSections" },
  title: "WebFetchSections",
  description: DESCRIPTION,
  inputSchema: outlineRequestSchema,
  annotations: READS_THE_WEB,
  handler: (args, ctx) => runSections(args, ctx),
});
