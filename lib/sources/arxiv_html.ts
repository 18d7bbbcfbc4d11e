/**
 * arXiv's HTML full texts (`https://arxiv.org/html/<id>`): the page itself,
 * read by the generic web path, with the paper's citation from the arXiv
 * API beside it, so reading the full text tracks the paper on the research
 * shelf as reading its `/abs/` record does (one DOI, one shelf entry).
 *
 * When the API cannot be reached the page is still served, and the
 * frontmatter says the paper was not tracked.
 *
 * @module
 */
import { Document, type DocumentFact } from "../content/document/document.ts";
import { trusted } from "../trust.ts";
import { ARXIV_ID_PATTERN, arxivDoi, fetchPaper, paperCitation, parseArxivId } from "./arxiv.ts";
import type { LoadOptions, Source } from "./source.ts";
import { fetchWebDocument } from "./web.ts";

/** The arXiv id of an `arxiv.org/html/<id>` URL, or undefined. */
function htmlId(url: URL) {
  const host = url.hostname.toLowerCase();
  if (host !== "arxiv.org" && host !== "www.arxiv.org") return undefined;
  if (!/^\/html\/[^/]/.test(url.pathname)) return undefined;
  const id = parseArxivId(`https://arxiv.org${url.pathname.replace(/\/+$/, "")}`);
  return id?.strict ? id : undefined;
}

/** The arXiv HTML source: the page as the web path reads it, and the paper's citation. */
export const arxivHtmlSource: Source = {
  name: "arxiv-html",
  detect: (url: URL): boolean => htmlId(url) !== undefined,
  async load(url: URL, options: LoadOptions): Promise<Document> {
    const id = htmlId(url)!;
    const [page, record] = await Promise.all([
      fetchWebDocument(url.href, options),
      fetchPaper(id, { signal: options.signal }).catch((error) => {
        if (options.signal?.aborted) throw error;
        return undefined;
      }),
    ]);
    const facts: DocumentFact[] = [...page.facts, {
      key: "api",
      value: trusted.text`arXiv (HTML full text)`,
    }];
    try {
      facts.push({
        key: "arxiv_id",
        value: trusted.matching(record?.entry.id ?? id.id, ARXIV_ID_PATTERN),
      });
      facts.push({ key: "doi", value: trusted.doi(arxivDoi(id.base)) });
    } catch { /* an id outside the patterns stays out of the frontmatter */ }
    facts.push(
      record
        ? {
          key: "see_also",
          value: trusted.text`${
            trusted.url(`https://arxiv.org/abs/${record.entry.id}`)
          } for the paper's record (authors, versions, licence, retraction checks)`,
        }
        : {
          key: "warning",
          value: trusted
            .text`the arXiv API did not answer, so the paper's record was not read and the paper is not tracked on the shelf`,
        },
    );
    return new Document({
      url: page.url,
      kind: page.kind,
      title: page.title,
      markdown: page.markdown,
      anchors: page.anchors,
      canonicalUrl: page.canonicalUrl,
      contentType: page.contentType,
      description: page.description,
      lang: page.lang,
      jsShell: page.jsShell,
      droppedShare: page.droppedShare,
      pages: page.pages,
      degraded: page.degraded,
      facts,
      citation: record ? paperCitation(record) : undefined,
      source: "arxiv",
    });
  },
};
