/**
 * arXiv: identifiers, the Atom API client, a safe Atom parser, and the
 * source that turns arXiv abstract and PDF URLs into the paper's record.
 *
 * - Identifiers: new style (`2301.01234`, `0704.0001`, with `vN`), old style
 *   (`hep-th/9901001`, `math.GT/0309136`), with an `arXiv:` prefix, as arXiv
 *   URLs (`/abs/`, `/pdf/`, `/html/`) or as the arXiv DOI.
 * - API: `GET https://export.arxiv.org/api/query` through the one network
 *   door (3 s spacing per the limiter table, 503 retried with backoff).
 *   HTTP 400 (an identifier arXiv refuses), 503 after the retries and a body
 *   that is not an Atom feed become errors that say what to do.
 * - Atom: parsed by the shared safe XML reader (`lib/content/html/xml.ts`), which
 *   knows only the five predefined entities and numeric references and here
 *   refuses any DOCTYPE, so no entity expansion can happen.
 * - Source: `https://arxiv.org/abs/<id>` and `/pdf/<id>` (also on
 *   `export.arxiv.org`) load the paper's record Document (kind `record`);
 *   `/html/` pages are the full text and take the generic web path.
 *
 * @module
 */
import { ContentError } from "../errors.ts";
import { callTool, hint, messageFact, ph } from "../hint.ts";
import { Document, type DocumentFact } from "../content/document/document.ts";
import {
  childrenNs,
  parseXml as parseSharedXml,
  textContent,
  type XmlElement,
  XmlError,
  type XmlFault,
} from "../content/html/xml.ts";
import { type Trusted, trusted } from "../trust.ts";
import { defaultNet } from "../net/default.ts";
import { NetError } from "../net/errors.ts";
import type { CitationInput, Retraction } from "../citation.ts";
import { type Enrichment, formattedCitation } from "./doi/crossref.ts";
import { checkedEnrichment, type EnrichmentFailure, uncheckedWarning } from "./doi/checked.ts";
import type { LoadOptions, Source } from "./source.ts";

/** The API endpoint. */
export const ARXIV_API = "https://export.arxiv.org/api/query";

/** New-style identifier, optional version. */
const NEW_ID = /^(\d{4}\.\d{4,5})(v\d+)?$/;
/** Old-style identifier (`archive[.SUBJ]/YYMMNNN`), optional version. */
const OLD_ID = /^([a-z][a-z-]*(?:\.[A-Za-z-]{2,})?\/\d{7})(v\d+)?$/;
/** A strict identifier, for trusted values. */
export const ARXIV_ID_PATTERN =
  /^(?:\d{4}\.\d{4,5}|[a-z][a-z-]*(?:\.[A-Za-z-]{2,})?\/\d{7})(?:v\d+)?$/;
/** A category code such as `cs.CL`, `hep-th`, `astro-ph.CO`. */
export const CATEGORY_PATTERN = /^[a-z][a-z-]*(?:\.[A-Za-z][A-Za-z-]*)?$/;
/** What the API may be asked about: characters an identifier can have. */
const ID_CHARS = /^[A-Za-z0-9][A-Za-z0-9.\-\/]{0,63}$/;

/** The identifier forms the error messages show. */
export const ACCEPTED_ID_FORMS =
  "accepted forms: 2301.01234, 2301.01234v2, hep-th/9901001, arXiv:2301.01234, or an arXiv URL such as https://arxiv.org/abs/2301.01234";

/** An arXiv identifier split into its parts. */
export interface ArxivId {
  /** As sent to the API: base plus version when given. */
  id: string;
  /** Without version. */
  base: string;
  /** Version number, when given. */
  version?: number;
  /** True for new- or old-style shapes; false for anything else the API must judge. */
  strict: boolean;
}

function splitId(raw: string): ArxivId | undefined {
  const m = NEW_ID.exec(raw) ?? OLD_ID.exec(raw);
  if (m) {
    return {
      id: raw,
      base: m[1],
      version: m[2] ? Number(m[2].slice(1)) : undefined,
      strict: true,
    };
  }
  return undefined;
}

/**
 * Reads an arXiv identifier from what a caller typed: a bare id, `arXiv:`
 * id, an arXiv URL or the arXiv DOI. Strings that cannot be an identifier
 * at all give undefined; strings of identifier characters that fit no known
 * shape are returned with `strict: false`, for the API to judge.
 */
export function parseArxivId(input: string): ArxivId | undefined {
  let s = input.trim().replace(/^(?:https?:\/\/(?:dx\.)?doi\.org\/)?10\.48550\/arxiv\./i, "");
  const url =
    /^https?:\/\/(?:www\.|export\.)?arxiv\.org\/(?:abs|pdf|html)\/(.+?)(?:\.pdf)?\/?(?:[?#].*)?$/i
      .exec(s);
  if (url) s = url[1];
  else if (/^https?:\/\//i.test(s)) return undefined;
  s = s.replace(/^arxiv:/i, "");
  const known = splitId(s);
  if (known) return known;
  if (!ID_CHARS.test(s)) return undefined;
  return { id: s, base: s.replace(/v\d+$/, ""), strict: false };
}

/** The arXiv DOI of an identifier (without version), as arXiv writes it. */
export function arxivDoi(base: string): string {
  return `10.48550/arXiv.${base}`;
}

// ---------------------------------------------------------------------------
// XML: the shared safe reader (lib/content/html/xml.ts), strict, in arXiv's words.

export type { XmlElement } from "../content/html/xml.ts";

/** arXiv's wording of the shared reader's faults (the rest keep the reader's message). */
const FAULT_MESSAGES: Partial<Record<XmlFault, string>> = {
  "unterminated-comment": "an unclosed comment",
  "unterminated-pi": "an unclosed processing instruction",
  "unterminated-cdata": "a misplaced CDATA section",
  "malformed-end-tag": "mismatched or malformed closing tag",
  "mismatched-end-tag": "mismatched or malformed closing tag",
  "malformed-start-tag": "a malformed tag",
  "multiple-roots": "more than one root element",
  "unclosed": "the XML ends before its elements are closed",
  "no-root": "no XML element at all",
};

/**
 * Parses an XML document into elements. Refuses DOCTYPE declarations (so
 * no entity can be defined or expanded), undeclared entities, mismatched
 * or unclosed tags and text outside the root element.
 */
export function parseXml(text: string): XmlElement {
  try {
    return parseSharedXml(text);
  } catch (error) {
    if (error instanceof XmlError) {
      throw new ContentError(FAULT_MESSAGES[error.fault] ?? error.message);
    }
    throw error;
  }
}

const kids = childrenNs;

function kid(el: XmlElement, ns: string, local: string): XmlElement | undefined {
  return kids(el, ns, local)[0];
}

const textOf = textContent;

function flat(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

// ---------------------------------------------------------------------------
// Atom feed of the API.

const ATOM = "http://www.w3.org/2005/Atom";
const ARXIV = "http://arxiv.org/schemas/atom";
const OPENSEARCH = "http://a9.com/-/spec/opensearch/1.1/";

/** An author and their affiliations. */
export interface ArxivAuthor {
  /** Name as arXiv shows it. */
  name: string;
  /** Affiliations, when given. */
  affiliations: string[];
}

/** One paper as the API describes it. */
export interface ArxivEntry {
  /** Identifier with version (`1706.03762v7`). */
  id: string;
  /** Identifier without version. */
  base: string;
  /** Latest version number. */
  version?: number;
  /** Title, whitespace collapsed. */
  title: string;
  /** Abstract, whitespace collapsed. */
  summary: string;
  /** Authors in order. */
  authors: ArxivAuthor[];
  /** Category terms in order. */
  categories: string[];
  /** Primary category. */
  primaryCategory?: string;
  /** First version's date (ISO). */
  published?: string;
  /** Latest version's date (ISO). */
  updated?: string;
  /** Publisher DOI, when the authors gave one. */
  doi?: string;
  /** Journal reference. */
  journalRef?: string;
  /** Authors' comment. */
  comment?: string;
}

/** A parsed API answer. */
export interface ArxivFeed {
  /** Matches in all. */
  totalResults: number;
  /** Offset of the first entry. */
  startIndex: number;
  /** The entries. */
  entries: ArxivEntry[];
  /** The API's own error text, when it answered with an error entry. */
  error?: string;
}

function count(root: XmlElement, local: string): number {
  const n = Number(flat(textOf(kid(root, OPENSEARCH, local))));
  return Number.isFinite(n) && n >= 0 ? n : 0;
}

/** Parses the API's Atom feed. */
export function parseArxivFeed(xml: string): ArxivFeed {
  const root = parseXml(xml);
  if (root.ns !== ATOM || root.local !== "feed") {
    throw new ContentError("the answer is XML but not an Atom feed");
  }
  const feed: ArxivFeed = {
    totalResults: count(root, "totalResults"),
    startIndex: count(root, "startIndex"),
    entries: [],
  };
  for (const entry of kids(root, ATOM, "entry")) {
    const idUrl = flat(textOf(kid(entry, ATOM, "id")));
    if (/\/api\/errors/.test(idUrl)) {
      feed.error = flat(textOf(kid(entry, ATOM, "summary"))) || "unspecified error";
      continue;
    }
    const raw = idUrl.replace(/^https?:\/\/(?:www\.)?arxiv\.org\/abs\//, "");
    const id = splitId(raw);
    // Entries without a recognisable id (the API's placeholder for a missing paper) are skipped.
    if (!id) continue;
    const title = flat(textOf(kid(entry, ATOM, "title")));
    if (!title && !kid(entry, ATOM, "author")) continue;
    const optional = (el: XmlElement | undefined) => flat(textOf(el)) || undefined;
    feed.entries.push({
      id: id.id,
      base: id.base,
      version: id.version,
      title,
      summary: flat(textOf(kid(entry, ATOM, "summary"))),
      authors: kids(entry, ATOM, "author").map((a) => ({
        name: flat(textOf(kid(a, ATOM, "name"))),
        affiliations: kids(a, ARXIV, "affiliation").map((x) => flat(textOf(x))).filter(Boolean),
      })).filter((a) => a.name),
      categories: kids(entry, ATOM, "category").map((c) => c.attrs.term ?? "").filter(Boolean),
      primaryCategory: kid(entry, ARXIV, "primary_category")?.attrs.term,
      published: optional(kid(entry, ATOM, "published")),
      updated: optional(kid(entry, ATOM, "updated")),
      doi: optional(kid(entry, ARXIV, "doi")),
      journalRef: optional(kid(entry, ARXIV, "journal_ref")),
      comment: optional(kid(entry, ARXIV, "comment")),
    });
  }
  return feed;
}

// ---------------------------------------------------------------------------
// The API client.

/** Sort keys of the API. */
export const SORT_BY = ["relevance", "lastUpdatedDate", "submittedDate"] as const;
/** Sort orders of the API. */
export const SORT_ORDER = ["ascending", "descending"] as const;

/** A query of the API. */
export interface ArxivQuery {
  /** `search_query`. */
  search?: string;
  /** `id_list`. */
  ids?: string[];
  /** `start`. */
  start?: number;
  /** `max_results`. */
  max?: number;
  /** `sortBy`. */
  sortBy?: typeof SORT_BY[number];
  /** `sortOrder`. */
  sortOrder?: typeof SORT_ORDER[number];
}

/** The API URL of a query (parameters in a fixed order). */
export function queryUrl(q: ArxivQuery): string {
  const params = new URLSearchParams();
  if (q.search !== undefined) params.set("search_query", q.search);
  if (q.ids?.length) params.set("id_list", q.ids.join(","));
  if (q.start !== undefined) params.set("start", String(q.start));
  if (q.max !== undefined) params.set("max_results", String(q.max));
  if (q.sortBy) params.set("sortBy", q.sortBy);
  if (q.sortOrder) params.set("sortOrder", q.sortOrder);
  return `${ARXIV_API}?${params}`;
}

/** Options of an API call. */
export interface QueryOptions {
  /** Cancels the call. */
  signal?: AbortSignal;
  /** Body cap. */
  maxBytes?: number;
}

/**
 * Runs a query. Errors: HTTP 400 (the API refused the query or id), 503
 * after the retries, other statuses, and a body that is not an Atom feed.
 */
export async function queryArxiv(q: ArxivQuery, options: QueryOptions = {}): Promise<ArxivFeed> {
  const url = queryUrl(q);
  const result = await defaultNet().fetch(url, {
    headers: { accept: "application/atom+xml" },
    signal: options.signal,
    maxBytes: options.maxBytes,
    // arXiv asks for patience when overloaded: back off 3 s, 6 s, 12 s.
    retry: { retries: 3, baseDelayMs: 3000 },
  });
  const body = result.status === 200 || result.status === 400 ? result.text() : "";
  const refused = (status: number, detail?: string) =>
    new NetError(
      "status",
      q.ids?.length
        ? `arXiv refused the identifier ${q.ids.join(",")} (HTTP ${status}); ${ACCEPTED_ID_FORMS}`
        : `arXiv refused the query (HTTP ${status}); check its syntax: field prefixes ti: au: abs: co: jr: cat: rn: all:, operators AND OR ANDNOT, quotes for phrases, parentheses`,
      url,
      { remote: { status, body: detail, contentType: "text/plain" } },
    );
  if (result.status === 400) {
    let detail: string | undefined;
    try {
      detail = parseArxivFeed(body).error;
    } catch { /* not a feed: quote nothing */ }
    throw refused(400, detail);
  }
  if (result.status === 503) {
    throw new NetError(
      "status",
      "arXiv API returned HTTP 503 (overloaded); try again in a minute",
      url,
      { remote: { status: 503 } },
    );
  }
  if (result.status === 429) {
    throw new NetError(
      "status",
      "arXiv API returned HTTP 429 (too many requests); wait a minute before the next query",
      url,
      { remote: { status: 429 } },
    );
  }
  if (result.status !== 200) {
    throw new NetError(
      "status",
      `arXiv API returned HTTP ${result.status}; try again later`,
      url,
      { remote: { status: result.status, body: result.text(), contentType: result.contentType } },
    );
  }
  let feed: ArxivFeed;
  try {
    feed = parseArxivFeed(body);
  } catch (error) {
    if (error instanceof ContentError) {
      throw new ContentError(
        `the arXiv API answered with malformed XML (${error.message}); this is usually a passing fault on arXiv's side, try again in a minute`,
      );
    }
    throw error;
  }
  if (feed.error !== undefined && feed.entries.length === 0) throw refused(200, feed.error);
  return feed;
}

// ---------------------------------------------------------------------------
// The paper record.

/** Whether arXiv has an HTML rendering of a paper: true, false, or undefined when unknown. */
async function htmlExists(id: string, signal?: AbortSignal): Promise<boolean | undefined> {
  try {
    const r = await defaultNet().fetch(`https://arxiv.org/html/${id}`, {
      method: "HEAD",
      // Spaced like the API, but in a queue of its own: the check follows the API call at once.
      limit: { key: "arxiv.org/html", intervalMs: 3000 },
      retry: false,
      deadlineMs: 10_000,
      signal,
    });
    if (r.status === 200) return true;
    if (r.status === 404 || r.status === 410) return false;
    return undefined;
  } catch (error) {
    if (signal?.aborted) throw error;
    return undefined;
  }
}

const PARTICLES = new Set([
  "van",
  "von",
  "de",
  "der",
  "den",
  "da",
  "di",
  "del",
  "della",
  "du",
  "dos",
  "la",
  "le",
  "ter",
  "ten",
]);

/** "Given Family" as "Family, Given" (lowercase particles stay with the family name). */
export function familyFirst(name: string): string {
  const parts = name.trim().split(/\s+/);
  if (parts.length < 2) return name.trim();
  let start = parts.length - 1;
  while (start > 1 && PARTICLES.has(parts[start - 1])) start--;
  return `${parts.slice(start).join(" ")}, ${parts.slice(0, start).join(" ")}`;
}

function tryTrusted<T>(make: () => T): T | undefined {
  try {
    return make();
  } catch {
    return undefined;
  }
}

/** The `alert` of a retraction or expression of concern, from validated fields only. */
export function retractionAlert(r: Retraction): Trusted | undefined {
  const doi = tryTrusted(() => trusted.doi(r.noticeDoi));
  if (!doi) return undefined;
  const what = r.kind === "retraction"
    ? trusted.text`retracted`
    : trusted.text`expression of concern`;
  const date = r.date
    ? tryTrusted(() => trusted.matching(r.date!, /^\d{4}(?:-\d{2}){0,2}$/))
    : undefined;
  const source = trusted.oneOf(["publisher", "retraction-watch", "unknown"], r.source);
  return date
    ? trusted.text`${what} ${date} — notice: ${doi} (${source})`
    : trusted.text`${what} — notice: ${doi} (${source})`;
}

/** Everything a paper lookup found. */
export interface PaperRecord {
  /** The entry. */
  entry: ArxivEntry;
  /** HTML full text available (undefined: unknown). */
  html?: boolean;
  /** APA citation. */
  citation?: string;
  /** CrossRef enrichment. */
  enrichment?: Enrichment;
  /** Why there is no enrichment (retractions could not be checked). */
  enrichmentFailure?: EnrichmentFailure;
}

/** Looks a paper up: the API entry, the HTML check, the citation and the enrichment. */
export async function fetchPaper(
  id: ArxivId,
  options: QueryOptions = {},
): Promise<PaperRecord> {
  const feed = await queryArxiv({ ids: [id.id] }, options);
  const entry = feed.entries[0];
  if (!entry) {
    throw new NetError(
      "status",
      `no arXiv paper has the identifier ${id.id}; check it (${ACCEPTED_ID_FORMS}), or find the paper with action=search`,
      queryUrl({ ids: [id.id] }),
      { remote: { status: 404 } },
    );
  }
  const doi = entry.doi && tryTrusted(() => trusted.doi(entry.doi!)) ? entry.doi : undefined;
  const [html, citation, checked] = await Promise.all([
    htmlExists(entry.id, options.signal),
    formattedCitation(arxivDoi(entry.base), options.signal).catch(() => undefined),
    checkedEnrichment(doi ?? arxivDoi(entry.base), options.signal),
  ]);
  return {
    entry,
    html,
    citation,
    enrichment: checked.enrichment,
    enrichmentFailure: checked.failure,
  };
}

function dateOnly(iso?: string): string | undefined {
  return iso && /^\d{4}-\d{2}-\d{2}/.test(iso) ? iso.slice(0, 10) : undefined;
}

/** The paper's Markdown: metadata lines, the abstract, the citation. */
export function paperMarkdown(record: PaperRecord): string {
  const { entry: e } = record;
  const abs = `https://arxiv.org/abs/${e.id}`;
  const lines: string[] = [];
  const r = record.enrichment?.retraction;
  if (r) {
    const label = r.kind === "retraction" ? "RETRACTED" : "EXPRESSION OF CONCERN";
    lines.push(
      `> **${label}**${r.date ? ` (${r.date})` : ""}: notice https://doi.org/${r.noticeDoi}`,
      "",
    );
  }
  const author = (a: ArxivAuthor) =>
    a.affiliations.length ? `${a.name} (${a.affiliations.join("; ")})` : a.name;
  lines.push(`**Authors:** ${e.authors.map(author).join(", ") || "(none listed)"}`);
  const published = dateOnly(e.published);
  const updated = dateOnly(e.updated);
  if (published) lines.push(`**Published:** ${published} (v1)`);
  if (updated && updated !== published) {
    lines.push(`**Updated:** ${updated}${e.version ? ` (v${e.version})` : ""}`);
  }
  if (e.primaryCategory) lines.push(`**Primary category:** ${e.primaryCategory}`);
  const others = e.categories.filter((c) => c !== e.primaryCategory);
  if (others.length) lines.push(`**Other categories:** ${others.join(", ")}`);
  const doi = arxivDoi(e.base);
  lines.push(`**arXiv DOI:** [${doi}](https://doi.org/${doi})`);
  if (e.doi) lines.push(`**Publisher DOI:** [${e.doi}](https://doi.org/${e.doi})`);
  if (e.journalRef) lines.push(`**Journal ref:** ${e.journalRef}`);
  if (e.comment) lines.push(`**Comment:** ${e.comment}`);
  lines.push(`**Abstract page:** ${abs}`, `**PDF:** https://arxiv.org/pdf/${e.id}`);
  if (record.html) lines.push(`**HTML full text:** https://arxiv.org/html/${e.id}`);
  lines.push("", "## Abstract", "", e.summary || "(no abstract)");
  if (record.citation) lines.push("", "## Citation", "", record.citation.trim());
  return lines.map((l) => l.trimEnd()).join("\n");
}

/** Frontmatter facts of a paper (trusted values only; titles and names stay in the body). */
export function paperFacts(record: PaperRecord, fromPdf = false): DocumentFact[] {
  const { entry: e } = record;
  const facts: DocumentFact[] = [];
  const fact = (key: string, value: Trusted | number | undefined) => {
    if (value !== undefined) facts.push({ key, value });
  };
  fact("api", trusted.text`arXiv`);
  fact("arxiv_id", tryTrusted(() => trusted.matching(e.id, ARXIV_ID_PATTERN)));
  if (e.version) fact("version", e.version);
  fact("published", e.published ? tryTrusted(() => trusted.isoDate(e.published!)) : undefined);
  fact("updated", e.updated ? tryTrusted(() => trusted.isoDate(e.updated!)) : undefined);
  fact(
    "primary_category",
    e.primaryCategory
      ? tryTrusted(() => trusted.matching(e.primaryCategory!, CATEGORY_PATTERN))
      : undefined,
  );
  const aDoi = trusted.doi(arxivDoi(e.base));
  fact("doi", aDoi);
  const pDoi = e.doi ? tryTrusted(() => trusted.doi(e.doi!)) : undefined;
  fact("publisher_doi", pDoi);
  const html = trusted.url(`https://arxiv.org/html/${e.id}`);
  const pdf = trusted.url(`https://arxiv.org/pdf/${e.id}`);
  if (record.html === true) fact("full_text", html);
  else if (record.html === false) {
    fact(
      "warning",
      trusted
        .text`arXiv has no HTML full text of this paper; only the abstract and metadata are here (the PDF is ${pdf})`,
    );
    // Semantic Scholar searches passages of its body, as parkour-mcp points there (the hint
    // shows only where that tool is on).
    if (ARXIV_ID_PATTERN.test(e.base)) {
      facts.push(messageFact(
        hint`passages of the paper's body text: ${
          callTool("semantic_scholar", {
            action: "snippets",
            query: ph("words"),
            paper_id: `ARXIV:${e.base}`,
          })
        }`,
      ));
    }
  } else {
    fact(
      "warning",
      trusted
        .text`could not check whether arXiv has an HTML full text of this paper; try ${html}, or the PDF ${pdf}`,
    );
  }
  if (e.comment && /\bwithdrawn\b/i.test(e.comment)) {
    fact("warning", trusted.text`the authors' comment on arXiv says this paper was withdrawn`);
  }
  if (!record.citation) {
    fact("see_also", trusted.text`https://doi.org/${aDoi} for a formatted citation`);
  }
  if (pDoi) fact("see_also", trusted.text`https://doi.org/${pDoi} for the published version`);
  const r = record.enrichment?.retraction;
  if (r) fact("alert", retractionAlert(r));
  if (record.enrichmentFailure) fact("warning", uncheckedWarning(record.enrichmentFailure));
  const c = record.enrichment?.correction;
  if (c) {
    const doi = tryTrusted(() => trusted.doi(c.noticeDoi));
    const date = c.date
      ? tryTrusted(() => trusted.matching(c.date!, /^\d{4}(?:-\d{2}){0,2}$/))
      : undefined;
    if (doi) {
      fact(
        "note",
        date
          ? trusted.text`correction published ${date} — notice: ${doi}`
          : trusted.text`correction published — notice: ${doi}`,
      );
    }
  }
  if (fromPdf) {
    fact(
      "note",
      record.html === true
        ? trusted
          .text`the URL is a PDF link; this is the paper's arXiv record instead; its readable full text is ${html}`
        : trusted.text`the URL is a PDF link; this is the paper's arXiv record instead`,
    );
  }
  return facts;
}

const DOI_RELATIONS = ["has_version", "is_version_of", "is_preprint_of", "has_preprint"];

/** The shelf's citation of a paper. */
export function paperCitation(record: PaperRecord): CitationInput {
  const { entry: e, enrichment } = record;
  const aDoi = arxivDoi(e.base).toLowerCase();
  const pDoi = e.doi && tryTrusted(() => trusted.doi(e.doi!)) ? e.doi.toLowerCase() : undefined;
  const alt = new Set<string>();
  if (pDoi && pDoi !== aDoi) alt.add(aDoi);
  for (const rel of DOI_RELATIONS) {
    for (const d of enrichment?.relations?.[rel] ?? []) alt.add(d.toLowerCase());
  }
  const primary = pDoi ?? aDoi;
  alt.delete(primary);
  const year = e.published ? Number(e.published.slice(0, 4)) : undefined;
  return {
    doi: primary,
    title: e.title,
    authors: e.authors.map((a) => familyFirst(a.name)),
    year: Number.isFinite(year) ? year : undefined,
    venue: e.journalRef,
    altDois: [...alt],
    sourceTool: "arxiv",
    kind: pDoi || e.journalRef ? "article" : "preprint",
    arxivId: e.base,
    url: `https://arxiv.org/abs/${e.base}`,
    orcids: enrichment?.orcids,
    retraction: enrichment?.retraction,
  };
}

/** The record Document of a paper, as the page tools and the arxiv tool show it. */
export function paperDocument(record: PaperRecord, url: string, fromPdf = false): Document {
  return new Document({
    url,
    kind: "record",
    title: record.entry.title,
    markdown: paperMarkdown(record),
    canonicalUrl: `https://arxiv.org/abs/${record.entry.id}`,
    contentType: "application/atom+xml",
    facts: paperFacts(record, fromPdf),
    citation: paperCitation(record),
    source: "arxiv",
  });
}

/** The arXiv identifier of an abstract or PDF URL this source serves, or undefined. */
export function interceptedId(url: URL): { id: ArxivId; pdf: boolean } | undefined {
  const host = url.hostname.toLowerCase();
  if (host !== "arxiv.org" && host !== "www.arxiv.org" && host !== "export.arxiv.org") {
    return undefined;
  }
  const m = /^\/(abs|pdf)\/(.+?)(?:\.pdf)?\/?$/.exec(url.pathname);
  if (!m) return undefined;
  const id = splitId(m[2]);
  return id ? { id, pdf: m[1] === "pdf" } : undefined;
}

/** Loads the record Document of a paper by identifier. */
export async function loadPaperDocument(
  id: ArxivId,
  url: string,
  options: QueryOptions & { pdf?: boolean } = {},
): Promise<Document> {
  const record = await fetchPaper(id, options);
  return paperDocument(record, url, options.pdf ?? false);
}

/** The arXiv source: abstract and PDF URLs become the paper's record. */
export const arxivSource: Source = {
  name: "arxiv",
  detect: (url: URL): boolean => interceptedId(url) !== undefined,
  async load(url: URL, options: LoadOptions): Promise<Document> {
    const hit = interceptedId(url)!;
    const doc = await loadPaperDocument(hit.id, url.href, {
      signal: options.signal,
      maxBytes: options.maxBytes,
      pdf: hit.pdf,
    });
    options.onStage?.("converting");
    return doc;
  },
};
