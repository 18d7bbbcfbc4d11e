/**
 * `web_fetch_sections` (`WebFetchSections`): the outline of a page, in
 * windows of 100 sections, each with the address (`#id` or slug) that
 * `web_fetch_incisive` accepts as `section`.
 *
 * @module
 */
import type { ToolResult } from "../envelope/response.ts";
import { ToolError } from "../errors.ts";
import type { HintContext } from "../hint.ts";
import { envelopeSpec, finalUrlLine } from "../views/page.ts";
import { OUTLINE_WINDOW, type OutlineRequest, outlineRequestSchema } from "../views/request.ts";
import { outline } from "../views/view.ts";
import {
  isEmpty,
  type Loader,
  loadPage,
  pageFrontmatter,
  pageUrl,
  READS_THE_WEB,
  shellAnswer,
  shelveCitation,
  webLoader,
} from "./page_view.ts";
import { defineTool, type ToolContext } from "./registry.ts";
import { mcpHints } from "./page_view.ts";

/** Arguments of the tool: the outline request. */
export type SectionsArgs = OutlineRequest;

/** Runs the tool with a loader (the web for MCP, files too for the CLI). */
export async function runSections(
  args: SectionsArgs,
  ctx: ToolContext,
  load: Loader = webLoader,
  hints: HintContext = mcpHints(ctx, "outline"),
  window: number = OUTLINE_WINDOW,
): Promise<ToolResult> {
  const url = pageUrl(args.url, load !== webLoader);
  const fullPage = args.full_page ?? false;
  const { doc, cached } = await loadPage(load, url, args.max_page_mb, ctx, fullPage);
  const fm = pageFrontmatter(url, doc, cached, fullPage, hints);
  await shelveCitation(doc, fm);
  if (isEmpty(doc)) {
    if (doc.jsShell) return shellAnswer(ctx, fm, hints);
    throw new ToolError(
      `no text could be extracted from ${url.page}; the page may be an image, a form or empty`,
    );
  }
  const result = outline(doc, args, { fragment: url.fragment, window });
  const response = ctx.respond(envelopeSpec(fm, result, hints, doc.title, finalUrlLine(url, doc)));
  // The view itself, for the CLI's own formats (a tree, a JSON list); not enumerable, so it
  // never reaches a protocol message.
  Object.defineProperty(response, "view", { value: result, enumerable: false });
  return response;
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
