/**
 * Shared pieces of the page tools: loading a Document for a request,
 * the frontmatter every page response starts with, and the answers for
 * pages with nothing to show.
 *
 * @module
 */
import type { Document } from "../content/document/document.ts";
import type { QueryExtraction } from "../content/question/extract.ts";
import type { Frontmatter } from "../envelope/frontmatter.ts";
import type { ToolResult } from "../envelope/response.ts";
import { registerTip } from "../envelope/tips.ts";
import { type Trusted, trusted } from "../trust.ts";
import { currentShelf } from "../shelf/mod.ts";
import { loadDocument } from "../sources/router.ts";
import type { Loaded } from "../sources/source.ts";
import { type HintContext, renderMessage } from "../hint.ts";
import { type Loader, loadWithinLimit } from "../views/limit.ts";
import {
  CONTENT_KINDS,
  DROPPED_NOTE_SHARE,
  pageFrontmatter,
  type PageUrl,
  pageUrl,
} from "../views/page.ts";
import { shellHint } from "../views/view.ts";
import type { ToolContext } from "./registry.ts";

registerTip(
  "webfetchsections_scout",
  "{tool:web_fetch_sections} returns a page's heading layout; use it to scout a long page before fetching content",
);

/** Annotations of the page tools: they read the open web and change nothing. */
export const READS_THE_WEB = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: true,
} as const;

export type { Loader };

/** The loader of the MCP tools: cache, first-party sources, then the web. */
export const webLoader: Loader = loadDocument;

export { CONTENT_KINDS, DROPPED_NOTE_SHARE, pageFrontmatter, type PageUrl, pageUrl };

/** The `full_page` parameter, as the page tools declare it. */
export const FULL_PAGE_DESCRIPTION =
  "keep the whole page: skip main-content extraction, so menus, sidebars, related links and comments stay";

/**
 * Puts the work a Document describes on the research shelf (inspecting one
 * paper, RFC or repository tracks it) and says so in the frontmatter.
 */
export async function shelveCitation(doc: Document, fm: Frontmatter): Promise<void> {
  if (!doc.citation) return;
  const result = await currentShelf().track(doc.citation);
  if (result.status) fm.set("shelf", result.status);
  if (result.note) fm.append("note", result.note);
}

/** Confidence levels of query-scoped extraction, as frontmatter shows them. */
const CONFIDENCES = ["high", "medium", "low"] as const;

/**
 * The query-extraction fields every answer to a question carries (MCP and
 * the HTTP API): `extracted`, `extract_confidence` (absent for a page
 * returned whole unranked), `sections_selected`, `original_tokens`.
 */
export function setExtractFields(fm: Frontmatter, x: QueryExtraction): void {
  fm.set("extracted", x.extracted);
  if (x.confidence !== null) fm.set("extract_confidence", trusted.oneOf(CONFIDENCES, x.confidence));
  fm.set("sections_selected", x.sectionsSelected);
  fm.set("original_tokens", x.originalTokens);
}

/**
 * Loads the document for a request within the call's page limit
 * (`maxPageMb`, its `max_page_mb`, else the server's default).
 */
export async function loadPage(
  load: Loader,
  url: PageUrl,
  maxPageMb: number | undefined,
  ctx: ToolContext,
  fullPage: boolean,
  needsIndex = false,
): Promise<Loaded> {
  return await loadWithinLimit(load, url.page, maxPageMb, {
    signal: ctx.signal,
    fullPage,
    needsIndex,
  });
}

/** The answer for a page that is an empty JavaScript shell. */
export function shellAnswer(ctx: ToolContext, fm: Frontmatter, hints: HintContext): ToolResult {
  fm.append("hint", trusted.echo(renderMessage(shellHint(), hints), 2000));
  return ctx.respond({ frontmatter: fm });
}

/** Whether a document has no text at all. */
export function isEmpty(doc: Document): boolean {
  return doc.markdown.trim() === "";
}

/** A sibling tool's name in the active profile, for frontmatter hints. */
export function toolRef(ctx: ToolContext, key: string): Trusted {
  return trusted.echo(ctx.toolName(key) ?? key, 64);
}

/** The hint context of the MCP page tools in `ctx`'s profile. */
export function mcpHints(ctx: ToolContext, current: "page" | "outline"): HintContext {
  return {
    face: "mcp",
    current,
    toolName: (t) => {
      const key = t === "page" ? "web_fetch_incisive" : "web_fetch_sections";
      return ctx.toolName(key) ?? key;
    },
    // Source tools by key: undefined when off, so hints naming them are left out.
    tool: (key) => ctx.toolName(key),
  };
}
