/**
 * A fetched page for library users: the same load as the MCP tools (guarded
 * network, first-party sources, page cache), with its views as plain values
 * instead of tool answers.
 *
 * @module
 */
import { ancestry } from "./content/document/sections.ts";
import { estimateTokens } from "./content/tokens/count.ts";
import { pageMaxBytes } from "./config.ts";
import { withoutFragment } from "./net/page_key.ts";
import { type HintContext, renderMessage } from "./hint.ts";
import { type PageRead, readPage, viewPage } from "./views/read.ts";
import {
  pageRequestSchema,
  parseWith,
  QUERY_DEFAULT_TOKENS,
  RequestError,
} from "./views/request.ts";
import { outline, type ViewResult } from "./views/view.ts";

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

/** The parameters of {@link Page.read}: the page request of the tools, without the URL. */
export interface PageViewRequest {
  /** Section(s) by heading text, slug or #id. */
  section?: string | string[];
  /** With section: include the subsections. */
  auto_expand?: boolean;
  /** Keyword search over the page's slices. */
  search?: string;
  /** Slice indexes (negative from the end). */
  slices?: number | number[];
  /** A question: the sections that answer it. */
  query?: string;
  /** Token budget (50-25000). */
  max_tokens?: number;
}

/** What {@link Page.read} returns: the view's text and what it says about it. */
export interface PageView {
  /** `page`, `section`, `search`, `slices` or `query`. */
  view: string;
  /** False when nothing asked for exists (no section or slice of that name or index). */
  found: boolean;
  /** The text returned (Markdown). */
  text: string;
  /** Estimated tokens of {@link text}. */
  tokens: number;
  /** Whether the budget cut the text. */
  truncated: boolean;
  /** Next steps and notes, in the library's words (the `Page` method to call). */
  hints: string[];
  /** With section: requested names not found, each with the closest headings. */
  notFound: { request: string; suggestions: string[] }[];
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
  /** The sections that answer `question` within `maxTokens` (50-25000, default 600). */
  answer(question: string, maxTokens?: number): PageAnswer;
  /**
   * Any view, with the tools' parameters (`section`, `search`, `slices`,
   * `query`, `max_tokens`, `auto_expand`): the same request and the same
   * text as the MCP tool and the HTTP API. Unknown parameters are refused
   * with the closest valid name.
   */
  read(request: PageViewRequest): PageView;
}

/** Library hints name the Page method to call. */
const LIBRARY_HINTS: HintContext = {
  face: "library",
  current: "page",
  toolName: (target) => (target === "page" ? "page.read()" : "page.outline()"),
};

/** Options of {@link fetchPage}. */
export interface FetchPageOptions {
  /** Keep the whole page (menus, sidebars) instead of its main content. */
  fullPage?: boolean;
  /** Cancels the fetch. */
  signal?: AbortSignal;
  /**
   * Cap on the response body in bytes (default: the server's page limit,
   * `PARKOUR_MAX_PAGE_MB`, 50 MiB). The library's caller is its own
   * operator: this cap is not bounded by `PARKOUR_MAX_PAGE_CEILING_MB`.
   */
  maxBytes?: number;
}

function wrap(read: PageRead): Page {
  const { doc } = read;
  const loaded = read.url.page;
  // Slices, the search index and the question index grow the Document: let the cache count them.
  const grown = <T>(value: T): T => (read.recount(), value);
  return {
    url: doc.url,
    title: doc.title,
    source: doc.source,
    kind: doc.kind,
    markdown: doc.markdown,
    tokens: doc.tokens,
    sections: () =>
      doc.sections.map((s) => ({
        index: s.index,
        level: s.level,
        title: s.title,
        address: s.id ?? s.slug,
        parent: s.parent,
        tokens: estimateTokens(doc.sectionText(s.index)),
      })),
    outline: () => outline(doc, { slice: 0 }, { window: Math.max(1, doc.sections.length) }).body,
    section: (name, options = {}) => {
      const r = viewPage(
        read,
        { url: loaded, section: name, auto_expand: options.subsections ?? false },
        { wholeByDefault: true },
      );
      return r.status === "ok" && r.sectionsReturned?.length ? r.body : undefined;
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
      const r = viewPage(read, { url: loaded, query: question, max_tokens: maxTokens });
      const x = r.extract!;
      return {
        text: r.body,
        extracted: x.extracted,
        confidence: x.confidence,
        sections: x.sectionsSelected,
        originalTokens: x.originalTokens,
        returnedTokens: r.returnedTokens,
      };
    },
    read: (request) => {
      const url = (request as { url?: unknown }).url;
      if (url !== undefined) {
        throw new RequestError(
          "read() takes the view's parameters only; the page's URL was given to fetchPage()",
        );
      }
      if ((request as { max_page_mb?: unknown }).max_page_mb !== undefined) {
        throw new RequestError(
          "read() views a page already read; its size limit is fetchPage()'s maxBytes option",
        );
      }
      let r: ViewResult;
      try {
        r = viewPage(read, parseWith(pageRequestSchema, { ...request, url: loaded }));
      } catch (error) {
        if (error instanceof RequestError) {
          throw new RequestError(error.forFace("library"), error.kind);
        }
        throw error;
      }
      return {
        view: r.kind,
        found: r.status === "ok",
        text: r.body,
        tokens: r.returnedTokens,
        truncated: r.cut !== undefined,
        hints: r.messages.map((m) => renderMessage(m, LIBRARY_HINTS)),
        notFound: (r.notFound ?? []).map((m) => ({
          request: m.request,
          suggestions: m.suggestions.map((i) => doc.sections[i].title),
        })),
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
  // The Page's views take their own parameters: a fragment of the URL selects nothing.
  const read = await readPage({ url: withoutFragment(url.trim()), full_page: options.fullPage }, {
    maxBytes: options.maxBytes ?? pageMaxBytes(),
    signal: options.signal,
    // The Page's search and answers are synchronous: take the worker's indexes first.
    needsIndex: true,
    // A page with no text is still a Page (its views are empty).
    empty: "keep",
  });
  return wrap(read);
}
