/**
 * A fetched page for library users: the same load as the MCP tools (guarded
 * network, first-party sources, page cache), with its views as plain values
 * instead of tool answers.
 *
 * @module
 */
import { extractForQuery, QUERY_DEFAULT_TOKENS } from "./content/query_extract.ts";
import type { Document } from "./content/document.ts";
import { ancestry } from "./content/sections.ts";
import { estimateTokens } from "./content/tokens.ts";
import { findSections, outlineView, sectionsView } from "./content/views.ts";
import { checkUrl, DEFAULT_MAX_BYTES } from "./net/fetch.ts";
import { loadDocument, recount, withoutFragment } from "./sources/router.ts";

/** One section of a page's outline. */
export interface PageSection {
  /** Position in document order (0-based). */
  index: number;
  /** Heading level, 1 to 6. */
  level: number;
  /** Heading text (page text: untrusted). */
  title: string;
  /** The address `section()` accepts besides the title: the heading id or slug. */
  address: string;
  /** Index of the enclosing section, or -1. */
  parent: number;
  /** Estimated tokens of the section's own text. */
  tokens: number;
}

/** A keyword-search hit. */
export interface PageHit {
  /** Slice index. */
  slice: number;
  /** BM25 score. */
  score: number;
  /** Headings enclosing the slice, outermost first. */
  headings: string[];
  /** The slice's Markdown. */
  text: string;
}

/** The parts of a page that answer a question. */
export interface PageAnswer {
  /** Markdown of the chosen sections, in page order, with `[…]` over gaps. */
  text: string;
  /** False when the page came back whole (small page, or nothing matched). */
  extracted: boolean;
  /** `high`, `medium` or `low`; null for a small page returned without ranking. */
  confidence: "high" | "medium" | "low" | null;
  /** Sections selected. */
  sections: number;
  /** Estimated tokens of the whole page. */
  originalTokens: number;
  /** Estimated tokens returned. */
  returnedTokens: number;
}

/** A converted page and its views. */
export interface Page {
  /** The URL it was read from. */
  readonly url: string;
  /** Its title (page text: untrusted). */
  readonly title: string;
  /** The source that read it: `web`, or a first-party API such as `arxiv` or `github`. */
  readonly source: string;
  /** What it was made from: `html`, `markdown`, `text`, `json`, `xml`, `pdf` or `record`. */
  readonly kind: string;
  /** The whole page as Markdown. */
  readonly markdown: string;
  /** Estimated tokens of {@link markdown}. */
  readonly tokens: number;
  /** Every section, in document order. */
  sections(): PageSection[];
  /** The outline as indented lines (`- Title (#address)`), as `web_fetch_sections` shows it. */
  outline(): string;
  /**
   * One section's Markdown, found by heading text, text without its number,
   * slug, heading id or a fuzzy match; with `subsections`, its whole
   * subtree. Undefined when nothing matches.
   */
  section(name: string, options?: { subsections?: boolean }): string | undefined;
  /** Keyword search (the tools' query language: `"phrases"`, `-not`, `a OR b`), best first. */
  search(query: string, limit?: number): PageHit[];
  /** The sections that answer `question` within `maxTokens` (64-20000, default 600). */
  answer(question: string, maxTokens?: number): PageAnswer;
}

/** Options of {@link fetchPage}. */
export interface FetchPageOptions {
  /** Keep the whole page (menus, sidebars) instead of its main content. */
  fullPage?: boolean;
  /** Cancels the fetch. */
  signal?: AbortSignal;
  /** Cap on the response body in bytes (default 5 MiB). */
  maxBytes?: number;
}

function wrap(doc: Document, loaded: string, fullPage: boolean): Page {
  // Slices, the search index and the question index grow the Document: let the cache count them.
  const grown = <T>(value: T): T => (recount(loaded, doc, fullPage), value);
  return {
    url: doc.url,
    title: doc.title,
    source: doc.source,
    kind: doc.kind,
    markdown: doc.markdown,
    tokens: estimateTokens(doc.markdown),
    sections: () =>
      doc.sections.map((s) => ({
        index: s.index,
        level: s.level,
        title: s.title,
        address: s.id ?? s.slug,
        parent: s.parent,
        tokens: estimateTokens(doc.sectionText(s.index)),
      })),
    outline: () => outlineView(doc, 0, Math.max(1, doc.sections.length)).lines.join("\n"),
    section: (name, options = {}) => {
      const [found] = findSections(doc, [name]);
      if (found?.index === undefined) return undefined;
      return sectionsView(doc, [found.index], options.subsections ?? false).text;
    },
    search: (query, limit) =>
      grown(doc.index.search(query, limit)).hits.map((h) => ({
        slice: h.index,
        score: h.score,
        headings: doc.slices[h.index].section >= 0
          ? ancestry(doc.sections, doc.slices[h.index].section)
          : [],
        text: doc.sliceText(h.index),
      })),
    answer: (question, maxTokens = QUERY_DEFAULT_TOKENS) => {
      const x = grown(extractForQuery(doc, question, maxTokens));
      return {
        text: x.text,
        extracted: x.extracted,
        confidence: x.confidence,
        sections: x.sectionsSelected,
        originalTokens: x.originalTokens,
        returnedTokens: x.returnedTokens,
      };
    },
  };
}

/**
 * Fetches a page once (through the guarded network layer, or a first-party
 * API for sites that have one) and returns its views. Pages are cached per
 * process, so a second call for the same URL does not fetch again.
 *
 * @example Read one section of a spec
 * ```ts
 * import { fetchPage } from "jsr:@parkour/mcp";
 * const page = await fetchPage("https://peps.python.org/pep-0008/");
 * console.log(page.outline());
 * console.log(page.section("Tabs or Spaces?"));
 * console.log(page.answer("how long should lines be?", 300).text);
 * ```
 */
export async function fetchPage(url: string, options: FetchPageOptions = {}): Promise<Page> {
  const page = url.trim();
  checkUrl(page);
  const fullPage = options.fullPage ?? false;
  const { doc } = await loadDocument(page, {
    maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
    signal: options.signal,
    fullPage,
  });
  return wrap(doc, withoutFragment(page), fullPage);
}
