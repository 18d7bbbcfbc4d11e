/**
 * Semantic Scholar: the Graph API client (`/graph/v1`) and the source that
 * serves `https://www.semanticscholar.org/paper/...` URLs.
 *
 * Both exist only for users who accepted the Semantic Scholar API licence
 * (`S2_ACCEPT_TOS=1` or the `s2_accept_tos` file, see `lib/config.ts`); the
 * source's `detect` answers false otherwise, so those URLs take the generic
 * web path. An API key (`S2_API_KEY`) is sent as `x-api-key` and appears in
 * no message or log.
 *
 * Requests go through the one network door: 1 s spacing per
 * `api.semanticscholar.org` (the limiter's table), 429 retried three times
 * (1.25 s, 2.5 s, 5 s unless Retry-After says otherwise), then an error
 * saying how to get a key. Upstream text (titles, abstracts, names) is only
 * ever returned as Markdown for the fence; the frontmatter facts here are
 * validated ids, counts, dates and URLs.
 *
 * @module
 */
import { Document, type DocumentFact } from "../content/document/document.ts";
import { env, s2ApiKey, s2LicenceAccepted } from "../config.ts";
import { SourceError } from "../errors.ts";
import { type Trusted, trusted } from "../trust.ts";
import { defaultNet } from "../net/default.ts";
import type { CitationInput, Retraction, WorkKind } from "../citation.ts";
import { type Enrichment, formattedCitation } from "./doi/crossref.ts";
import {
  type CheckedEnrichment,
  checkedEnrichment,
  type EnrichmentFailure,
  uncheckedWarning,
} from "./doi/checked.ts";
import type { LoadOptions, Source } from "./source.ts";

/** The Graph API base. */
export const S2_API_BASE = "https://api.semanticscholar.org/graph/v1";

/** Where to ask for an API key. */
export const S2_KEY_FORM = "https://www.semanticscholar.org/product/api#api-key-form";

/** Fields of search results. */
export const SEARCH_FIELDS =
  "paperId,title,year,authors,venue,citationCount,referenceCount,publicationTypes,journal,openAccessPdf,tldr";
/** Fields of the paper detail. */
export const DETAIL_FIELDS =
  "paperId,title,year,authors.name,authors.externalIds,authors.affiliations,abstract,venue,citationCount,influentialCitationCount,referenceCount,publicationTypes,journal,externalIds,openAccessPdf,tldr,publicationDate,citationStyles";
/** Fields of references and citations. */
export const LINK_FIELDS = "paperId,title,year,authors,citationCount,venue,contexts";
/** Fields of author search results. */
export const AUTHOR_SEARCH_FIELDS = "authorId,name,affiliations,paperCount,citationCount,hIndex";
/** Fields of an author record. */
export const AUTHOR_FIELDS = "authorId,name,affiliations,homepage,paperCount,citationCount,hIndex";
/** Fields of an author's papers. */
export const AUTHOR_PAPER_FIELDS = "paperId,title,year,citationCount,venue";

/** A semanticscholar.org paper URL; group 1 is the 40-hex paper id. */
export const PAPER_URL =
  /^https?:\/\/(?:www\.)?semanticscholar\.org\/paper\/(?:[^/?#]+\/)?([0-9a-f]{40})(?:[/?#]|$)/i;
const AUTHOR_URL =
  /^https?:\/\/(?:www\.)?semanticscholar\.org\/author\/(?:[^/?#]+\/)?(\d+)(?:[/?#]|$)/i;
const HEX_ID = /^[0-9a-f]{40}$/;
const DOI_SHAPE = /^10\.\d{4,9}\/\S+$/;
const ARXIV_ID = /^(?:\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?\/\d{7})(?:v\d+)?$/;
const ORCID = /^\d{4}-\d{4}-\d{4}-\d{3}[\dX]$/;
const DIGITS = /^\d{1,12}$/;
const PARTIAL_DATE = /^\d{4}(?:-\d{2}(?:-\d{2})?)?$/;

/** The accepted forms of a paper id, for error messages. */
export const PAPER_ID_FORMS =
  "a 40-character Semantic Scholar paper id, a https://www.semanticscholar.org/paper/... URL, " +
  "DOI:10.xxxx/yyyy (or a bare DOI or doi.org URL), ARXIV:2106.15928 (or an arxiv.org URL), " +
  "PMID:19872477, PMCID:2323736, CorpusId:215416146, MAG:112218234 or ACL:W12-3903";

/** A paper as the Graph API returns it (every field optional). */
export interface S2Paper {
  paperId?: string | null;
  corpusId?: number | string | null;
  title?: string | null;
  year?: number | null;
  authors?: S2Author[] | null;
  abstract?: string | null;
  venue?: string | null;
  citationCount?: number | null;
  influentialCitationCount?: number | null;
  referenceCount?: number | null;
  publicationTypes?: string[] | null;
  journal?: { name?: string | null; volume?: string | null; pages?: string | null } | null;
  externalIds?: Record<string, unknown> | null;
  openAccessPdf?: { url?: string | null; status?: string | null } | null;
  tldr?: { text?: string | null } | null;
  publicationDate?: string | null;
  citationStyles?: { bibtex?: string | null } | null;
  textAvailability?: string | null;
}

/** An author as the Graph API returns it. */
export interface S2Author {
  authorId?: string | null;
  name?: string | null;
  externalIds?: Record<string, unknown> | null;
  affiliations?: string[] | null;
  homepage?: string | null;
  paperCount?: number | null;
  citationCount?: number | null;
  hIndex?: number | null;
  papers?: S2Paper[] | null;
}

/** The API base: `PARKOUR_S2_API_BASE` (https, or http on loopback, for tests) or the real one. */
export function s2ApiBase(): string {
  const override = env("PARKOUR_S2_API_BASE");
  if (!override) return S2_API_BASE;
  let url: URL;
  try {
    url = new URL(override);
  } catch {
    throw new SourceError("PARKOUR_S2_API_BASE is not a valid URL; unset it to use the real API");
  }
  const loopback = ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) {
    throw new SourceError(
      "PARKOUR_S2_API_BASE must be an https URL (or http on 127.0.0.1); unset it to use the real API",
    );
  }
  return url.href.replace(/\/$/, "");
}

/** Percent-encodes a query value, keeping commas (field lists read as the API documents them). */
function encodeValue(value: string): string {
  return encodeURIComponent(value).replace(/%2C/gi, ",");
}

/** Encodes a paper or author id for a path segment, keeping `/` and `:` (DOIs, prefixes). */
function encodeId(id: string): string {
  return encodeURIComponent(id).replace(/%2F/gi, "/").replace(/%3A/gi, ":");
}

/** Query parameters in order; undefined values are left out. */
export type QueryParams = [string, string | number | undefined][];

/** The URL of an API call. */
export function s2Url(path: string, params: QueryParams = []): string {
  const query = params.filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${encodeValue(String(v))}`).join("&");
  return `${s2ApiBase()}${path}${query ? `?${query}` : ""}`;
}

function apiMessage(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { error?: unknown; message?: unknown };
    const text = typeof parsed.error === "string"
      ? parsed.error
      : typeof parsed.message === "string"
      ? parsed.message
      : undefined;
    return text?.slice(0, 300);
  } catch {
    return body.trim().slice(0, 300) || undefined;
  }
}

/**
 * GETs an API path and parses the JSON, turning every failure into a
 * {@link SourceError} that says what to do.
 */
export async function s2Get<T>(
  path: string,
  params: QueryParams,
  signal?: AbortSignal,
): Promise<T> {
  const key = s2ApiKey();
  const headers: Record<string, string> = { accept: "application/json" };
  if (key) headers["x-api-key"] = key;
  const result = await defaultNet().fetch(s2Url(path, params), {
    headers,
    signal,
    retry: { retries: 3, baseDelayMs: 1250 },
  });
  const status = result.status;
  if (status >= 200 && status < 300) {
    try {
      return result.json<T>();
    } catch {
      throw new SourceError(
        "Semantic Scholar returned a malformed response (not JSON); try again later",
      );
    }
  }
  const body = result.text();
  const remote = { status, body: apiMessage(body), contentType: "text/plain" };
  if (status === 404) {
    throw new SourceError(
      "Not found on Semantic Scholar. Check the id; accepted paper ids: " + PAPER_ID_FORMS +
        "; author ids are digits (from author_search)",
      remote,
    );
  }
  if (status === 429) {
    throw new SourceError(
      key
        ? "Rate limited by Semantic Scholar (HTTP 429) even with your API key, after 3 retries. Wait a minute and try again; keys allow about 1 request per second"
        : "Rate limited by Semantic Scholar (HTTP 429) after 3 retries. Requests without an API key share one global pool with every other anonymous user. Wait and try again, or get a free API key at " +
          S2_KEY_FORM + " and set S2_API_KEY",
    );
  }
  if (status === 403 && key) {
    throw new SourceError(
      "Semantic Scholar rejected the API key (HTTP 403): the key in S2_API_KEY is wrong, expired or revoked. Check it, request a new one at " +
        S2_KEY_FORM + ", or unset S2_API_KEY to use the shared pool",
    );
  }
  if (status === 403) {
    throw new SourceError("Semantic Scholar refused the request (HTTP 403 Forbidden)", remote);
  }
  if (status === 400) {
    throw new SourceError(
      "Semantic Scholar rejected the request (HTTP 400); check the id, the query and the fields list",
      remote,
    );
  }
  if (status >= 500) {
    throw new SourceError(
      `Semantic Scholar failed (HTTP ${status}); try again later`,
      remote,
    );
  }
  throw new SourceError(`Semantic Scholar API returned HTTP ${status}`, remote);
}

/**
 * A paper id the API accepts, from the forms in {@link PAPER_ID_FORMS}.
 * Throws a {@link SourceError} listing those forms otherwise.
 */
export function normalizePaperId(input: string): string {
  const value = input.trim();
  const s2 = PAPER_URL.exec(value);
  if (s2) return s2[1].toLowerCase();
  if (HEX_ID.test(value.toLowerCase())) return value.toLowerCase();
  const doiUrl = /^https?:\/\/(?:dx\.)?doi\.org\/(10\.\S+)$/i.exec(value);
  if (doiUrl) return decodeURIComponent(doiUrl[1]);
  const arxivUrl = /^https?:\/\/(?:export\.)?arxiv\.org\/(?:abs|pdf)\/(\S+?)(?:\.pdf)?\/?$/i
    .exec(value);
  if (arxivUrl && ARXIV_ID.test(arxivUrl[1])) return `ARXIV:${arxivUrl[1]}`;
  if (DOI_SHAPE.test(value) && value.length <= 300) return value;
  const prefixed = /^([A-Za-z]+):(.+)$/.exec(value);
  if (prefixed) {
    const kind = prefixed[1].toUpperCase();
    const rest = prefixed[2].trim();
    const ok = kind === "DOI"
      ? DOI_SHAPE.test(rest)
      : kind === "ARXIV"
      ? ARXIV_ID.test(rest)
      : kind === "PMID" || kind === "PMCID" || kind === "MAG" || kind === "CORPUSID"
      ? /^(?:PMC)?\d{1,12}$/i.test(rest)
      : kind === "ACL"
      ? /^[A-Za-z0-9.-]{1,40}$/.test(rest)
      : false;
    if (ok) {
      const canonical = kind === "CORPUSID" ? "CorpusId" : kind;
      return `${canonical}:${rest}`;
    }
  }
  throw new SourceError(
    `'${value.slice(0, 200)}' is not a paper id Semantic Scholar accepts. Give ${PAPER_ID_FORMS}`,
  );
}

/** An author id from digits or a semanticscholar.org author URL. */
export function normalizeAuthorId(input: string): string {
  const value = input.trim();
  const url = AUTHOR_URL.exec(value);
  if (url) return url[1];
  if (DIGITS.test(value)) return value;
  throw new SourceError(
    `'${value.slice(0, 200)}' is not a Semantic Scholar author id. Give the digits from ` +
      "author_search (for example 1741101) or a https://www.semanticscholar.org/author/... URL",
  );
}

/** Fetches a paper id's path segment. */
export function paperPath(id: string): string {
  return `/paper/${encodeId(id)}`;
}

/** Path of an author. */
export function authorPath(id: string): string {
  return `/author/${encodeId(id)}`;
}

/** Collapses whitespace of upstream text for one-line use (inside the fence). */
export function oneLine(text: string | null | undefined): string {
  return (text ?? "").replace(/\s+/g, " ").trim();
}

/** "First Author et al." style author summary. */
export function authorSummary(authors: S2Author[] | null | undefined): string {
  const names = (authors ?? []).map((a) => oneLine(a.name)).filter(Boolean);
  if (names.length === 0) return "";
  if (names.length <= 2) return names.join(", ");
  return `${names[0]} et al.`;
}

/** A flat record of a paper for lists. */
export function paperRecord(p: S2Paper): Record<string, unknown> {
  return {
    paper_id: p.paperId ?? null,
    title: oneLine(p.title),
    year: p.year ?? null,
    authors: authorSummary(p.authors),
    venue: oneLine(p.journal?.name || p.venue) || null,
    citations: p.citationCount ?? null,
    open_access_pdf: p.openAccessPdf?.url || null,
  };
}

function safe<T>(make: () => T): T | undefined {
  try {
    return make();
  } catch {
    return undefined;
  }
}

function stringId(
  ids: Record<string, unknown> | null | undefined,
  key: string,
): string | undefined {
  const value = ids?.[key];
  if (typeof value === "string" || typeof value === "number") return String(value).trim();
  return undefined;
}

/** "Family, Given" from a display name. */
export function familyFirst(name: string): string {
  const parts = oneLine(name).split(" ");
  if (parts.length < 2) return parts[0] ?? "";
  const family = parts.pop()!;
  return `${family}, ${parts.join(" ")}`;
}

function workKind(p: S2Paper, hasDoi: boolean): WorkKind {
  const types = p.publicationTypes ?? [];
  if (types.includes("Conference")) return "inproceedings";
  if (types.includes("JournalArticle") || types.includes("Review")) return "article";
  if (types.includes("Book")) return "book";
  if (types.includes("Dataset")) return "dataset";
  if (!hasDoi || stringId(p.externalIds, "ArXiv")) return "preprint";
  return "misc";
}

function mdLink(text: string, url: string): string {
  return `[${text.replace(/[[\]]/g, "")}](${url})`;
}

function number(n: number): string {
  return n.toLocaleString("en-US");
}

/** What the paper detail is made of. */
export interface PaperView {
  /** The S2 paper id (40 hex), when the API gave one. */
  paperId?: string;
  /** Title (upstream text, for the fence title and the Document). */
  title: string;
  /** Markdown body (upstream text: goes in the fence). */
  markdown: string;
  /** Trusted frontmatter facts. */
  facts: DocumentFact[];
  /** The work for the shelf; undefined when the paper has no DOI. */
  citation?: CitationInput;
}

/** Longest wait for the CrossRef and doi.org enrichments. */
export const ENRICH_TIMEOUT_MS = 6000;

async function within<T>(promise: Promise<T | undefined>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise.catch(() => undefined),
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function retractionAlert(r: Retraction): Trusted | undefined {
  const notice = safe(() => trusted.url(`https://doi.org/${r.noticeDoi}`));
  const date = r.date && PARTIAL_DATE.test(r.date)
    ? trusted.matching(r.date, PARTIAL_DATE)
    : undefined;
  if (!notice) return undefined;
  const what = r.kind === "retraction" ? trusted.text`this paper was retracted` : trusted
    .text`an expression of concern was published for this paper`;
  return date
    ? trusted.text`${what} (notice ${notice}, ${date}); check before citing it`
    : trusted.text`${what} (notice ${notice}); check before citing it`;
}

const RELATION_KEYS = ["has_preprint", "is_preprint_of", "has_version", "is_version_of"];

/**
 * Builds the paper detail from an API paper and its DOI enrichment: the
 * fenced Markdown, the trusted facts and the shelf record.
 */
export function paperView(
  p: S2Paper,
  enrichment?: Enrichment,
  citationText?: string,
  enrichmentFailure?: EnrichmentFailure,
): PaperView {
  const facts: DocumentFact[] = [];
  const fact = (key: string, value: DocumentFact["value"]) => {
    if (value !== undefined && value !== null) facts.push({ key, value });
  };
  const paperId = p.paperId && HEX_ID.test(p.paperId) ? p.paperId : undefined;
  const rawDoi = stringId(p.externalIds, "DOI");
  const doi = rawDoi && safe(() => trusted.doi(rawDoi)) ? rawDoi : undefined;
  const rawArxiv = stringId(p.externalIds, "ArXiv");
  const arxiv = rawArxiv && ARXIV_ID.test(rawArxiv) ? rawArxiv : undefined;
  const pubmed = stringId(p.externalIds, "PubMed");
  const title = oneLine(p.title) || "(untitled)";
  const pdf = p.openAccessPdf?.url ? safe(() => trusted.url(p.openAccessPdf!.url!)) : undefined;
  const retraction = enrichment?.retraction;

  fact("api", trusted.text`Semantic Scholar`);
  if (paperId) fact("paper_id", trusted.matching(paperId, /^[0-9a-f]{40}$/));
  if (doi) fact("doi", trusted.doi(doi));
  if (arxiv) fact("arxiv_id", trusted.matching(arxiv, /^[A-Za-z0-9./-]{1,40}$/));
  if (pubmed && DIGITS.test(pubmed)) fact("pubmed_id", trusted.matching(pubmed, /^\d{1,12}$/));
  if (typeof p.year === "number" && Number.isInteger(p.year)) fact("year", p.year);
  if (p.publicationDate) fact("published", safe(() => trusted.isoDate(p.publicationDate!)));
  if (typeof p.citationCount === "number") fact("citation_count", p.citationCount);
  if (typeof p.influentialCitationCount === "number") {
    fact("influential_citation_count", p.influentialCitationCount);
  }
  if (typeof p.referenceCount === "number") fact("reference_count", p.referenceCount);
  if (pdf) fact("open_access_pdf", pdf);
  if (retraction) fact("alert", retractionAlert(retraction));
  if (enrichmentFailure) fact("warning", uncheckedWarning(enrichmentFailure));
  if (enrichment?.correction) {
    const notice = safe(() => trusted.url(`https://doi.org/${enrichment.correction!.noticeDoi}`));
    if (notice) fact("note", trusted.text`a correction was published for this paper (${notice})`);
  }
  if (arxiv) {
    fact(
      "see_also",
      trusted.text`${
        trusted.url(`https://arxiv.org/abs/${arxiv}`)
      } for arXiv categories, versions and full text`,
    );
  }
  if (doi) {
    fact(
      "see_also",
      trusted.text`${trusted.url(`https://doi.org/${doi}`)} for licence and publisher metadata`,
    );
  } else {
    fact("shelf", trusted.text`not tracked — paper has no DOI in Semantic Scholar`);
  }

  const lines: string[] = [];
  if (retraction) {
    lines.push(
      retraction.kind === "retraction"
        ? `> **RETRACTED** — retraction notice: https://doi.org/${retraction.noticeDoi}`
        : `> **EXPRESSION OF CONCERN** — notice: https://doi.org/${retraction.noticeDoi}`,
      "",
    );
  }
  lines.push(`# ${title}`, "");
  const authors = p.authors ?? [];
  const orcids: Record<string, string> = {};
  if (authors.length > 0) {
    const shown = authors.slice(0, 10).map((a) => {
      const name = oneLine(a.name);
      const affils = (a.affiliations ?? []).map(oneLine).filter(Boolean);
      const orcid = stringId(a.externalIds, "ORCID");
      let out = name;
      if (affils.length) out += ` (${affils.join("; ")})`;
      if (orcid && ORCID.test(orcid)) {
        out += ` ${mdLink("ORCID", `https://orcid.org/${orcid}`)}`;
        if (name) orcids[name] = orcid;
      }
      return out;
    });
    const more = authors.length > 10 ? `, ... and ${authors.length - 10} more` : "";
    lines.push(`**Authors:** ${shown.join(", ")}${more}`, "");
  }
  const meta: string[] = [];
  if (p.year) meta.push(`**Year:** ${p.year}`);
  const venue = oneLine(p.journal?.name || p.venue);
  if (venue) meta.push(`**Venue:** ${venue}`);
  if (p.publicationDate) meta.push(`**Published:** ${oneLine(p.publicationDate)}`);
  if (meta.length) lines.push(meta.join("  "), "");
  const counts: string[] = [];
  if (typeof p.citationCount === "number") {
    counts.push(
      `**Citations:** ${number(p.citationCount)}` +
        (typeof p.influentialCitationCount === "number"
          ? ` (${number(p.influentialCitationCount)} influential)`
          : ""),
    );
  }
  if (typeof p.referenceCount === "number") {
    counts.push(`**References:** ${number(p.referenceCount)}`);
  }
  if (counts.length) lines.push(counts.join(" | "), "");
  const ids: string[] = [];
  if (doi) ids.push(`**DOI:** ${mdLink(doi, `https://doi.org/${doi}`)}`);
  if (arxiv) ids.push(`**ArXiv:** ${mdLink(arxiv, `https://arxiv.org/abs/${arxiv}`)}`);
  if (pubmed && DIGITS.test(pubmed)) ids.push(`**PubMed:** ${pubmed}`);
  if (ids.length) lines.push(ids.join("  "), "");
  if (pdf) lines.push(`**Open Access PDF:** ${pdf}`, "");
  const types = (p.publicationTypes ?? []).map(oneLine).filter(Boolean);
  if (types.length) lines.push(`**Publication types:** ${types.join(", ")}`, "");
  if (enrichment?.license) lines.push(`**Licence:** ${oneLine(enrichment.license)}`, "");
  const tldr = oneLine(p.tldr?.text);
  if (tldr) lines.push("## TL;DR", "", tldr, "");
  const abstract = (p.abstract ?? "").trim();
  if (abstract) lines.push("## Abstract", "", abstract, "");
  const bibtex = (p.citationStyles?.bibtex ?? "").trim();
  if (bibtex) lines.push("## BibTeX", "", "```bibtex", bibtex.replace(/```/g, "'''"), "```", "");
  if (citationText?.trim()) lines.push("## Citation", "", citationText.trim(), "");

  let citation: CitationInput | undefined;
  if (doi) {
    const alt = new Set<string>();
    if (arxiv) alt.add(`10.48550/arxiv.${arxiv.replace(/v\d+$/, "")}`.toLowerCase());
    for (const key of RELATION_KEYS) {
      for (const d of enrichment?.relations?.[key] ?? []) alt.add(d.toLowerCase());
    }
    alt.delete(doi.toLowerCase());
    citation = {
      doi: doi.toLowerCase(),
      title,
      authors: authors.map((a) => familyFirst(a.name ?? "")).filter(Boolean),
      year: typeof p.year === "number" ? p.year : undefined,
      venue: venue || undefined,
      altDois: [...alt],
      sourceTool: "semantic_scholar",
      kind: workKind(p, true),
      arxivId: arxiv?.replace(/v\d+$/, ""),
      url: paperId ? `https://www.semanticscholar.org/paper/${paperId}` : undefined,
      orcids: { ...orcids, ...(enrichment?.orcids ?? {}) },
      retraction,
    };
  }
  return { paperId, title, markdown: lines.join("\n").trimEnd() + "\n", facts, citation };
}

/** Fetches a paper's detail (with CrossRef enrichment and the formatted citation when it has a DOI). */
export async function fetchPaperView(id: string, signal?: AbortSignal): Promise<PaperView> {
  const paper = await s2Get<S2Paper>(paperPath(id), [["fields", DETAIL_FIELDS]], signal);
  if (!paper || typeof paper !== "object") {
    throw new SourceError("Semantic Scholar returned an unexpected response; try again later");
  }
  const doi = stringId(paper.externalIds, "DOI");
  let checked: CheckedEnrichment = {};
  let citationText: string | undefined;
  if (doi && DOI_SHAPE.test(doi)) {
    [checked, citationText] = await Promise.all([
      checkedEnrichment(doi, signal, ENRICH_TIMEOUT_MS),
      within(formattedCitation(doi, signal), ENRICH_TIMEOUT_MS),
    ]);
  }
  return paperView(paper, checked.enrichment, citationText, checked.failure);
}

/** The source for semanticscholar.org paper URLs (only once the licence is accepted). */
export const semanticScholarSource: Source = {
  name: "semantic_scholar",
  detect(url: URL): boolean {
    return PAPER_URL.test(url.href) && s2LicenceAccepted();
  },
  async load(url: URL, options: LoadOptions): Promise<Document> {
    const id = PAPER_URL.exec(url.href)![1].toLowerCase();
    const view = await fetchPaperView(id, options.signal);
    return new Document({
      url: url.href,
      kind: "record",
      title: view.title,
      markdown: view.markdown,
      contentType: "application/json",
      facts: view.facts,
      citation: view.citation,
      source: "semantic_scholar",
    });
  },
};
