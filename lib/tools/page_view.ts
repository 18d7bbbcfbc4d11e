/**
 * Shared pieces of the page tools: loading a Document for a request,
 * the frontmatter every page response starts with, and the answers for
 * pages with nothing to show.
 *
 * @module
 */
import type { Document } from "../content/document.ts";
import type { QueryExtraction } from "../content/query_extract.ts";
import { APPEND_KEYS, type AppendKey, Frontmatter } from "../envelope/frontmatter.ts";
import { type RemoteError, ToolError, type ToolResult } from "../envelope/response.ts";
import { registerTip } from "../envelope/tips.ts";
import { isTrusted, type Trusted, trusted } from "../envelope/trusted.ts";
import { currentShelf } from "../shelf/mod.ts";
import { checkUrl } from "../net/fetch.ts";
import { loadDocument, type Loaded, withoutFragment } from "../sources/router.ts";
import type { LoadOptions } from "../sources/web.ts";
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

/** Loads a page: the Document for a URL, given the request's cap. */
export type Loader = (url: string, options: LoadOptions) => Promise<Loaded>;

/** The loader of the MCP tools: cache, first-party sources, then the web. */
export const webLoader: Loader = loadDocument;

/** Document kinds as frontmatter shows them. */
export const CONTENT_KINDS = ["html", "markdown", "text", "json", "xml", "pdf", "record"] as const;

/** A request URL split into the page and its fragment. */
export interface PageUrl {
  /** The URL as given (fragment included). */
  href: string;
  /** Without fragment. */
  page: string;
  /** The fragment, decoded, or undefined. */
  fragment?: string;
}

/** Checks and splits a request URL; local file URLs are allowed only where `files` is true. */
export function pageUrl(input: string, files = false): PageUrl {
  const trimmed = input.trim();
  if (!(files && trimmed.startsWith("file://"))) checkUrl(trimmed);
  const hash = trimmed.indexOf("#");
  let fragment: string | undefined;
  if (hash >= 0 && hash < trimmed.length - 1) {
    fragment = trimmed.slice(hash + 1);
    try {
      fragment = decodeURIComponent(fragment);
    } catch { /* keep as is */ }
  }
  return { href: trimmed, page: withoutFragment(trimmed), fragment };
}

/** Share of a page's text left out above which the frontmatter says so. */
export const DROPPED_NOTE_SHARE = 0.3;

/** The `full_page` parameter, as both page tools declare it. */
export const FULL_PAGE_DESCRIPTION =
  "keep the whole page: skip main-content extraction, so menus, sidebars, related links and comments stay";

/** Frontmatter every page view starts with. */
export function pageFrontmatter(
  url: PageUrl,
  doc: Document,
  cached: boolean,
  fullPage = false,
): Frontmatter {
  const fm = new Frontmatter();
  try {
    fm.set("source", trusted.url(url.href));
  } catch {
    // file:// URLs (CLI) are not http(s): name the document by its path instead.
    fm.set("source", trusted.echo(url.href, 1000));
  }
  if (doc.url !== url.page) {
    try {
      fm.set("final_url", trusted.url(doc.url));
    } catch { /* not http(s) */ }
  }
  fm.set("content_type", trusted.oneOf(CONTENT_KINDS, doc.kind));
  if (doc.kind === "pdf" && doc.pages !== undefined) fm.set("pages", doc.pages);
  if (cached) fm.set("cached", true);
  if (fullPage) fm.set("full_page", true);
  else if (doc.kind === "html" && doc.droppedShare >= DROPPED_NOTE_SHARE) {
    const percent = Math.round(doc.droppedShare * 100);
    fm.set("dropped_text_share", Math.round(doc.droppedShare * 100) / 100);
    fm.append(
      "note",
      trusted
        .text`main-content extraction left out ${percent}% of the page's text (menus, sidebars, related links, comments); pass full_page=true (CLI: --full-page) to get the whole page`,
    );
  }
  for (const fact of doc.facts) {
    if ((APPEND_KEYS as readonly string[]).includes(fact.key)) {
      const values = Array.isArray(fact.value) ? fact.value : [fact.value];
      for (const v of values) if (isTrusted(v)) fm.append(fact.key as AppendKey, v);
    } else fm.set(fact.key, fact.value);
  }
  if (doc.degraded) {
    fm.append(
      "warning",
      trusted
        .text`fetched through a proxy: the proxy resolved the host, so the private-address check could not be enforced`,
    );
  }
  return fm;
}

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

/** Loads the document for a request, turning failures into tool errors. */
export async function loadPage(
  load: Loader,
  url: PageUrl,
  maxBytes: number,
  ctx: ToolContext,
  fullPage = false,
): Promise<Loaded> {
  try {
    return await load(url.page, { maxBytes, signal: ctx.signal, fullPage });
  } catch (error) {
    if (error instanceof Error && error.name === "ContentError") {
      throw new ToolError(error.message, (error as { remote?: RemoteError }).remote);
    }
    throw error;
  }
}

/** The answer for a page that is an empty JavaScript shell. */
export function shellAnswer(ctx: ToolContext, fm: Frontmatter): ToolResult {
  fm.append(
    "hint",
    trusted
      .text`this page builds its content with JavaScript and has none of its own; retry with requires_js=true`,
  );
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
