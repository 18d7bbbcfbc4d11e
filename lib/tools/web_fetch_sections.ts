/**
 * `web_fetch_sections` (`WebFetchSections`): the outline of a page, in
 * windows of 100 sections, each with the address (`#id` or slug) that
 * `web_fetch_incisive` accepts as `section`.
 *
 * @module
 */
import { z } from "zod";
import { findSections, OUTLINE_WINDOW, outlineView } from "../content/views.ts";
import { ToolError, type ToolResult } from "../envelope/response.ts";
import { trusted } from "../envelope/trusted.ts";
import { LARGE_MAX_BYTES } from "../net/fetch.ts";
import {
  FULL_PAGE_DESCRIPTION,
  isEmpty,
  type Loader,
  loadPage,
  pageFrontmatter,
  pageUrl,
  READS_THE_WEB,
  shellAnswer,
  shelveCitation,
  toolRef,
  webLoader,
} from "./page_view.ts";
import { defineTool, type ToolContext } from "./registry.ts";

const schema = z.object({
  url: z.string().describe("http(s) URL of the page"),
  slice: z.number().int().optional().describe(
    `window of ${OUTLINE_WINDOW} sections to show: 0 for the first, 1 for the next, -1 for the last`,
  ),
  full_page: z.boolean().optional().describe(FULL_PAGE_DESCRIPTION),
});

/** Arguments of the tool. */
export type SectionsArgs = z.infer<typeof schema>;

/** Runs the tool with a loader (the web for MCP, files too for the CLI). */
export async function runSections(
  args: SectionsArgs,
  ctx: ToolContext,
  load: Loader = webLoader,
): Promise<ToolResult> {
  const url = pageUrl(args.url, load !== webLoader);
  const fullPage = args.full_page ?? false;
  const { doc, cached } = await loadPage(load, url, LARGE_MAX_BYTES, ctx, fullPage);
  const fm = pageFrontmatter(url, doc, cached, fullPage);
  await shelveCitation(doc, fm);
  if (isEmpty(doc)) {
    if (doc.jsShell) return shellAnswer(ctx, fm);
    throw new ToolError(
      `no text could be extracted from ${url.page}; the page may be an image, a form or empty`,
    );
  }
  const incisive = toolRef(ctx, "web_fetch_incisive");
  fm.set("total_sections", doc.sections.length);
  if (doc.sections.length === 0) {
    fm.append(
      "hint",
      trusted
        .text`the page has no headings; read it with ${incisive}, or search it there with search=`,
    );
    return ctx.respond({ frontmatter: fm });
  }
  const view = outlineView(doc, args.slice ?? 0);
  if (view.windows > 1) {
    fm.set("slice", view.window);
    fm.set("total_slices", view.windows);
  }
  if (view.clampedFrom !== undefined) {
    fm.append(
      "note",
      trusted
        .text`slice=${view.clampedFrom} is out of range and was clamped to slice=${view.window} (valid: 0 to ${
        view.windows - 1
      }, or -1 to -${view.windows})`,
    );
  }
  if (url.fragment !== undefined) {
    const [lookup] = findSections(doc, [url.fragment]);
    if (lookup.index === undefined) fm.set("sections_not_found", [trusted.echo(url.fragment, 120)]);
    else fm.set("fragment_section", lookup.index);
  }
  const base = trusted.text`read a section with ${incisive} and section=<name or #id>`;
  if (view.window < view.windows - 1) {
    fm.append(
      "hint",
      trusted.text`${base}; more sections follow: pass slice=${
        view.window + 1
      } for the next window or slice=-1 for the last`,
    );
  } else fm.append("hint", base);
  return ctx.respond({
    frontmatter: fm,
    fences: [{ content: view.lines.join("\n"), title: doc.title || undefined }],
  });
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
  inputSchema: schema,
  annotations: READS_THE_WEB,
  handler: (args, ctx) => runSections(args, ctx),
});
