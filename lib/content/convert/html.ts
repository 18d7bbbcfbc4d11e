/**
 * HTML to a Document's fields: the converter (`html/markdown.ts`), the
 * furniture policy and the main-content selection (`extract/`), with
 * everything kept when the selection leaves nothing, and the JavaScript
 * shell test. Plain data in, plain data out: the one conversion the main
 * thread (`pipeline.ts`) and the conversion workers (`workers/`) share.
 *
 * @module
 */
import type { DocumentInit } from "../document/document.ts";
import { defaultFurniture } from "../extract/furniture.ts";
import { selectMainContent } from "../extract/select.ts";
import { htmlToMarkdown } from "../html/markdown.ts";
import type { PageHtml } from "../html/page_html.ts";

/** Options of an HTML conversion. */
export interface HtmlOptions {
  /** Keep the whole page: no furniture dropping, no content selection. */
  fullPage?: boolean;
  /** Served through a proxy. */
  degraded?: boolean;
  /** Media type as served. */
  contentType?: string;
}

/**
 * The fields of an HTML page's Document (main content selected; everything
 * kept if that leaves nothing): plain data, so a worker can compute them.
 */
export function convertHtml(
  html: string | PageHtml,
  url: string,
  options: HtmlOptions = {},
): DocumentInit & { kind: "html" } {
  const contentType = options.contentType ?? "text/html";
  const degraded = options.degraded ?? false;
  let converted = options.fullPage ? htmlToMarkdown(html, { baseUrl: url }) : htmlToMarkdown(html, {
    baseUrl: url,
    furniture: defaultFurniture,
    select: selectMainContent,
  });
  // (A large page's source let go of after its walk is never needed here: see PageHtml.)
  if (converted.markdown.trim() === "" && converted.droppedChars + converted.deselectedChars > 0) {
    converted = htmlToMarkdown(html, { baseUrl: url });
  }
  const total = converted.textChars;
  const visible = converted.markdown.length < 2000
    ? converted.markdown.replace(/\s+/g, "").length
    : Infinity;
  const jsShell = visible < 200 &&
    (converted.shell.noscriptMentionsJs || converted.shell.appRoots.length > 0 ||
      converted.shell.scripts >= 3);
  return {
    url,
    kind: "html",
    title: converted.title,
    markdown: converted.markdown,
    anchors: converted.anchors,
    canonicalUrl: converted.canonicalUrl,
    contentType,
    description: converted.description,
    lang: converted.lang,
    jsShell,
    droppedShare: total > 0
      ? (converted.droppedChars + converted.deselectedChars) / (total + converted.droppedChars)
      : 0,
    degraded,
  };
}
