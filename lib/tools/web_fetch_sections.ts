/**
 * `web_fetch_sections` (`WebFetchSections`): the outline of a page, in
 * windows of 100 sections, each with the address (`#id` or slug) that
 * `web_fetch_incisive` accepts as `section`.
 *
 * @module
 */
import { ToolError, type ToolResult } from "../envelope/response.ts";
import { LARGE_MAX_BYTES } from "../net/fetch.ts";
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
import { mcpHints } from "./web_fetch_incisive.ts";

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
  const { doc, cached } = await loadPage(load, url, LARGE_MAX_BYTES, ctx, fullPage);
  const fm = pageFrontmatter(url, doc, cached, fullPage, hints);
  await shelveCitation(doc, fm);
  if (isEmpty(doc)) {
    if (doc.jsShell) return shellAnswer(ctx, fm, hints);
    throw new ToolError(
      `no text could be extracted from ${url.page}; the page may be an image, a form or empty`,
    );
  }
  const result = outline(doc, args, { fragment: url.fragment, window });
  return ctx.respond(envelopeSpec(fm, result, hints, doc.title, finalUrlLine(url, doc)));
}

const DESCRIPTION = `Show a web page's outline: its headings as a tree, each with the address
(#id or slug) that {tool:web_fetch_incisive} accepts as section=. Cheap even
for very long pages (specifications, manuals, long articles): call it first
to decide which sections to read, instead of reading the whole page.

The outline comes in windows of ${OUTLINE_WINDOW} sections; slice=1 shows the next
window, slice=-1 the last. Sections marked [header only] have no text of
their own: read them with auto_expand=true or pick a subsection. The page is
cached, so the follow-up read does not fetch it again.`;

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
