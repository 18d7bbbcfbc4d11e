/**
 * IETF: RFCs from the RFC Editor's per-RFC JSON, Internet-Drafts and RFC
 * search from the Datatracker, subseries (STD, BCP, FYI) from BibXML.
 *
 * As a {@link Source} it claims `https://www.rfc-editor.org/rfc/rfc<N>`
 * (bare or `.json`) and `https://datatracker.ietf.org/doc/rfc<N>/` or
 * `/doc/draft-…/`, and answers with record Documents built from the APIs'
 * metadata. The rendered RFC (`.html`, `.txt`, `.pdf`, `.xml`) is left to
 * the generic web path, where sections and search work; the record points
 * at it in `full_text`.
 *
 * Every string from the services (titles, abstracts, author names) goes in
 * the Markdown body; the facts hold only values validated by shape (RFC
 * numbers, DOIs, URLs built here, members of closed sets).
 *
 * @module
 */
import { ContentError, ToolError } from "../../errors.ts";
import { Document, type DocumentFact } from "../../content/document/document.ts";
import { type Trusted, trusted } from "../../trust.ts";
import { callTool, hint, messageFact, ph, seeAlso } from "../../hint.ts";
import { defaultNet } from "../../net/default.ts";
import { NetError } from "../../net/errors.ts";
import type { FetchResult } from "../../net/fetch.ts";
import type { CitationInput } from "../../citation.ts";
import { formattedCitation } from "../doi/crossref.ts";
import { readSubseries, type SubseriesMember, XmlError } from "./bibxml.ts";
import type { LoadOptions, Source } from "../source.ts";

export type { SubseriesMember } from "./bibxml.ts";

/** The RFC Editor's site. */
export const RFC_EDITOR = "https://www.rfc-editor.org";
/** The Datatracker. */
export const DATATRACKER = "https://datatracker.ietf.org";
/** BibXML of the subseries. */
export const BIBXML_SUBSERIES = "https://bib.ietf.org/public/rfc/bibxml9";
/** Highest RFC number accepted (numbers are below 10,000 today). */
export const MAX_RFC = 99_999;

/** The forms the rfc action and RFC URLs accept, for error messages. */
export const RFC_FORMS =
  "a number (9110), 'RFC 9110', 'rfc9110', the DOI 10.17487/RFC9110, or a URL such as https://www.rfc-editor.org/rfc/rfc9110 or https://datatracker.ietf.org/doc/rfc9110/";

/** The forms the draft action accepts. */
export const DRAFT_FORMS =
  "a draft name (draft-ietf-quic-transport, optionally with its revision: draft-ietf-quic-transport-34) or its Datatracker URL (https://datatracker.ietf.org/doc/draft-ietf-quic-transport/)";

/** The forms the subseries action accepts. */
export const SUBSERIES_FORMS =
  "'STD 97', 'BCP 14' or 'FYI 36' (also STD97, bcp0014, or https://www.rfc-editor.org/info/bcp14)";

function checkedRfc(digits: string, input: string): number {
  const n = Number(digits);
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_RFC || digits.length > 6) {
    throw new ToolError(
      `'${input}' is not an RFC number: RFC numbers run from 1 to a few thousand (${MAX_RFC} at most). Give ${RFC_FORMS}`,
    );
  }
  return n;
}

/** The RFC number named by `input`, in any of {@link RFC_FORMS}; throws {@link ToolError}. */
export function parseRfcNumber(input: string): number {
  const s = input.trim();
  let m = /^(?:rfc)?\s*-?\s*(\d+)$/i.exec(s);
  if (m && !/^-/.test(s)) return checkedRfc(m[1], s);
  m = /^(?:https?:\/\/(?:dx\.)?doi\.org\/|doi:\s*)?10\.17487\/rfc(\d+)$/i.exec(s);
  if (m) return checkedRfc(m[1], s);
  if (/^https?:\/\//i.test(s)) {
    let url: URL | undefined;
    try {
      url = new URL(s);
    } catch { /* falls through to the error */ }
    const host = url?.hostname.toLowerCase();
    const path = url?.pathname ?? "";
    if (host === "www.rfc-editor.org" || host === "rfc-editor.org") {
      m = /^\/(?:rfc|info)\/rfc(\d+)(?:\.(?:html|txt|json|pdf|xml))?\/?$/i.exec(path);
      if (m) return checkedRfc(m[1], s);
    }
    if (host === "datatracker.ietf.org") {
      m = /^\/doc\/(?:html\/)?rfc(\d+)\/?$/i.exec(path);
      if (m) return checkedRfc(m[1], s);
    }
    if (host === "doi.org" || host === "dx.doi.org") {
      m = /^\/10\.17487\/rfc(\d+)$/i.exec(decodeURIComponent(path));
      if (m) return checkedRfc(m[1], s);
    }
  }
  throw new ToolError(`'${s.slice(0, 200)}' does not name an RFC. Give ${RFC_FORMS}`);
}

const DRAFT_NAME = /^draft-[a-z0-9]+(?:-[a-z0-9]+)+$/;

/** A draft name and, when the input named one, its revision. */
export interface DraftRef {
  /** Name without revision. */
  name: string;
  /** Two-digit revision, when given. */
  rev?: string;
}

/** The draft named by `input`, in any of {@link DRAFT_FORMS}; throws {@link ToolError}. */
export function parseDraftName(input: string): DraftRef {
  let s = input.trim();
  if (/^https?:\/\//i.test(s)) {
    let path = "";
    let host = "";
    try {
      const url = new URL(s);
      path = url.pathname;
      host = url.hostname.toLowerCase();
    } catch { /* error below */ }
    const m = host === "datatracker.ietf.org"
      ? /^\/doc\/(?:html\/)?(draft-[^/]+?)(?:\/(\d{2}))?\/?$/i.exec(path)
      : host === "www.ietf.org" || host === "ietf.org"
      ? /^\/archive\/id\/(draft-[^/]+?)(?:\.(?:html|txt|xml|pdf))?$/i.exec(path)
      : null;
    if (!m) {
      throw new ToolError(`'${s.slice(0, 200)}' is not a draft's URL. Give ${DRAFT_FORMS}`);
    }
    s = m[2] ? `${m[1]}-${m[2]}` : m[1];
  }
  s = s.toLowerCase();
  if (s.length > 120 || !DRAFT_NAME.test(s)) {
    throw new ToolError(
      `'${
        input.trim().slice(0, 200)
      }' is not a draft name: names start with 'draft-' and hold lowercase letters, digits and hyphens. Give ${DRAFT_FORMS}`,
    );
  }
  const rev = /^(.*)-(\d{2})$/.exec(s);
  return rev ? { name: rev[1], rev: rev[2] } : { name: s };
}

/** The subseries. */
export const SUBSERIES = ["STD", "BCP", "FYI"] as const;
/** A subseries. */
export type Subseries = typeof SUBSERIES[number];

/** A subseries document: its series and number. */
export interface SubseriesRef {
  /** The series. */
  series: Subseries;
  /** Its number. */
  number: number;
}

/** The subseries document named by `input` ({@link SUBSERIES_FORMS}); throws {@link ToolError}. */
export function parseSubseries(input: string): SubseriesRef {
  const s = input.trim();
  const m = /^(?:https?:\/\/(?:www\.)?rfc-editor\.org\/info\/)?(std|bcp|fyi)\s*(\d{1,6})\/?$/i.exec(
    s,
  );
  const n = m ? Number(m[2]) : NaN;
  if (!m || n < 1 || n > 9999) {
    throw new ToolError(
      `'${s.slice(0, 200)}' does not name a subseries document. Give ${SUBSERIES_FORMS}`,
    );
  }
  return { series: m[1].toUpperCase() as Subseries, number: n };
}

/** `rfc9110`-style URL of the RFC Editor's record page. */
export function rfcUrl(n: number): string {
  return `${RFC_EDITOR}/rfc/rfc${n}`;
}

/** The RFC's DOI as published (`10.17487/RFC9110`, zero-padded to 4 digits). */
export function rfcDoi(n: number): string {
  return `10.17487/RFC${String(n).padStart(4, "0")}`;
}

/** The Datatracker page of a draft. */
export function draftUrl(name: string): string {
  return `${DATATRACKER}/doc/${name}/`;
}

/** The RFC Editor's per-RFC JSON, checked. */
export interface RfcRecord {
  /** RFC number. */
  number: number;
  /** Title. */
  title: string;
  /** Authors as written ("R. Fielding, Ed."). */
  authors: string[];
  /** Month and year ("June 2022"). */
  date: string;
  /** Publication status as written ("INTERNET STANDARD"). */
  status: string;
  /** Working group or stream as the RFC Editor names it. */
  source: string;
  /** Pages. */
  pages?: number;
  /** The draft it came from. */
  draft: string;
  /** Abstract. */
  abstract: string;
  /** Keywords. */
  keywords: string[];
  /** Formats offered ("HTML", "TEXT", ...). */
  formats: string[];
  /** RFC numbers it obsoletes. */
  obsoletes: number[];
  /** RFC numbers that obsolete it. */
  obsoletedBy: number[];
  /** RFC numbers it updates. */
  updates: number[];
  /** RFC numbers that update it. */
  updatedBy: number[];
  /** Subseries memberships. */
  subseries: SubseriesRef[];
  /** Errata page, when there are errata. */
  errataUrl?: string;
}

// deno-lint-ignore no-explicit-any
type Json = any;

function str(v: unknown): string {
  return typeof v === "string" ? v : typeof v === "number" ? String(v) : "";
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.map(str).filter((s) => s.trim() !== "").map((s) => s.trim()) : [];
}

/** RFC numbers from a list like `["RFC7230", "RFC 7231"]`; anything else is dropped. */
function rfcList(v: unknown): number[] {
  const out: number[] = [];
  for (const s of strings(v)) {
    const m = /^RFC\s*0*(\d{1,5})$/i.exec(s);
    if (m && Number(m[1]) >= 1 && !out.includes(Number(m[1]))) out.push(Number(m[1]));
  }
  return out;
}

function subseriesList(v: unknown): SubseriesRef[] {
  const out: SubseriesRef[] = [];
  for (const s of strings(v)) {
    const m = /^(STD|BCP|FYI)\s*0*(\d{1,4})$/i.exec(s);
    if (m && Number(m[2]) >= 1) {
      out.push({ series: m[1].toUpperCase() as Subseries, number: Number(m[2]) });
    }
  }
  return out;
}

/** Checks the RFC Editor's JSON for RFC `n`; throws {@link ContentError} when it is not one. */
export function readRfcJson(n: number, data: Json): RfcRecord {
  const docId = /^RFC0*(\d+)$/i.exec(str(data?.doc_id).trim());
  if (typeof data !== "object" || data === null || !docId || Number(docId[1]) !== n) {
    throw new ContentError(
      `the RFC Editor's answer for RFC ${n} is not the record of RFC ${n}; try again later, or read ${
        rfcUrl(n)
      }.html`,
    );
  }
  const pages = Number(str(data.page_count));
  const errata = str(data.errata_url);
  return {
    number: n,
    title: str(data.title).trim(),
    authors: strings(data.authors),
    date: str(data.pub_date).trim(),
    status: str(data.pub_status || data.status).trim(),
    source: str(data.source).trim(),
    pages: Number.isSafeInteger(pages) && pages > 0 ? pages : undefined,
    draft: str(data.draft).trim(),
    abstract: str(data.abstract),
    keywords: strings(data.keywords),
    formats: strings(data.format),
    obsoletes: rfcList(data.obsoletes),
    obsoletedBy: rfcList(data.obsoleted_by),
    updates: rfcList(data.updates),
    updatedBy: rfcList(data.updated_by),
    subseries: subseriesList(data.see_also),
    errataUrl: /^https:\/\/www\.rfc-editor\.org\/errata\/rfc\d+$/.test(errata) ? errata : undefined,
  };
}

/** What a failed response means, said for the caller. */
function upstreamError(service: string, what: string, result: FetchResult): NetError {
  const s = result.status;
  const advice = s === 429
    ? `${service} is rate limiting requests; wait a minute and try again`
    : s >= 500
    ? `${service} failed (HTTP ${s}); try again later`
    : `${service} answered HTTP ${s}; check the request`;
  return new NetError("status", `${what}: ${advice}`, result.url, {
    remote: { status: s, body: s === 429 || s >= 500 ? undefined : result.text().slice(0, 2000) },
  });
}

function notFound(message: string, result: FetchResult): NetError {
  return new NetError("status", message, result.url, { remote: { status: 404 } });
}

function parseJson(result: FetchResult, what: string): Json {
  try {
    return result.json();
  } catch {
    throw new ContentError(`${what}: the answer is not valid JSON; try again later`);
  }
}

/** Fetches and checks the RFC Editor's record of RFC `n`. */
export async function fetchRfc(n: number, signal?: AbortSignal): Promise<RfcRecord> {
  const result = await defaultNet().fetch(`${rfcUrl(n)}.json`, {
    signal,
    headers: { accept: "application/json" },
    deadlineMs: 15_000,
  });
  if (result.status === 404 || result.status === 410) {
    throw notFound(
      `RFC ${n} not found: the RFC Editor has no RFC with that number (numbers never issued have no record); check the number, or search with action=search`,
      result,
    );
  }
  if (result.status < 200 || result.status >= 300) {
    throw upstreamError("the RFC Editor", `RFC ${n} could not be fetched`, result);
  }
  return readRfcJson(n, parseJson(result, `the RFC Editor's record of RFC ${n}`));
}

const STATUSES = [
  "internet standard",
  "proposed standard",
  "draft standard",
  "best current practice",
  "informational",
  "experimental",
  "historic",
  "unknown",
  "not issued",
] as const;

const FORMAT_EXT: Record<string, string> = {
  HTML: "html",
  TEXT: "txt",
  ASCII: "txt",
  PDF: "pdf",
  XML: "xml",
  PS: "ps",
};

/** "R. Fielding, Ed." → "Fielding, R."; organisations stay as written. */
export function citationAuthor(name: string): string {
  const bare = name.replace(/,\s*Ed\.?$/i, "").trim();
  const m = /^((?:[A-Z][a-z]?\.\s*-?)+)\s+(.+)$/.exec(bare);
  return m ? `${m[2]}, ${m[1].replace(/\s+/g, "")}` : bare;
}

const MONTHS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];

function monthYear(date: string): { year?: number; month?: number } {
  const m = /^(?:(\w+)\s+)?(\d{4})$/.exec(date.trim());
  if (!m) return {};
  const month = m[1] ? MONTHS.indexOf(m[1].toLowerCase()) + 1 : 0;
  return { year: Number(m[2]), month: month > 0 ? month : undefined };
}

const RFC_ID = /^RFC[1-9]\d{0,4}$/;
const SUBSERIES_ID = /^(?:STD|BCP|FYI) [1-9]\d{0,3}$/;

function rfcIds(list: number[]): Trusted[] {
  return list.map((n) => trusted.matching(`RFC${n}`, RFC_ID));
}

function paragraphs(text: string): string {
  return text.replace(/\r\n?/g, "\n").split(/\n\s*\n/).map((p) => p.replace(/\s+/g, " ").trim())
    .filter(Boolean).join("\n\n");
}

function rfcLinks(list: number[]): string {
  return list.map((n) => `[RFC ${n}](${rfcUrl(n)})`).join(", ");
}

/** The shelf's record of an RFC. */
export function rfcCitation(record: RfcRecord): CitationInput {
  const { year } = monthYear(record.date);
  return {
    doi: rfcDoi(record.number).toLowerCase(),
    title: record.title || `RFC ${record.number}`,
    authors: record.authors.map(citationAuthor),
    year,
    venue: "IETF",
    sourceTool: "ietf",
    kind: "rfc",
    rfcNumber: record.number,
    url: rfcUrl(record.number),
  };
}

/** The Markdown body of an RFC record. */
export function rfcMarkdown(record: RfcRecord, citation?: string): string {
  const n = record.number;
  // The title is the Document's: tools show it at the top of the fence.
  const lines: string[] = [];
  const field = (label: string, value: string | number | undefined) => {
    if (value !== undefined && value !== "") lines.push(`**${label}:** ${value}  `);
  };
  field("Authors", record.authors.join("; "));
  field("Date", record.date);
  field("Status", record.status);
  field("Working group / stream", record.source);
  field("Pages", record.pages);
  field("Draft", record.draft);
  field("DOI", `[${rfcDoi(n)}](https://doi.org/${rfcDoi(n)})`);
  field("Subseries", record.subseries.map((s) => `${s.series} ${s.number}`).join(", "));
  if (lines.at(-1)!.endsWith("  ")) lines[lines.length - 1] = lines.at(-1)!.trimEnd();
  const abstract = paragraphs(record.abstract);
  if (abstract) lines.push("", "## Abstract", "", abstract);
  if (record.keywords.length > 0) lines.push("", `**Keywords:** ${record.keywords.join(", ")}`);
  const relations: [string, number[]][] = [
    ["Obsoletes", record.obsoletes],
    ["Obsoleted by", record.obsoletedBy],
    ["Updates", record.updates],
    ["Updated by", record.updatedBy],
  ];
  if (relations.some(([, l]) => l.length > 0)) {
    lines.push("", "## Relations", "");
    for (const [label, list] of relations) {
      if (list.length > 0) lines.push(`- ${label}: ${rfcLinks(list)}`);
    }
  }
  // The HTML rendering exists for every RFC; the others as the record lists them.
  const order = Object.keys(FORMAT_EXT);
  const formats = [...new Set(["HTML", ...record.formats.map((f) => f.toUpperCase())])]
    .filter((f) => FORMAT_EXT[f]).sort((a, b) => order.indexOf(a) - order.indexOf(b));
  lines.push(
    "",
    "## Formats",
    "",
    formats.map((f) => `[${f}](${rfcUrl(n)}.${FORMAT_EXT[f]})`).join(" | "),
  );
  if (record.errataUrl) lines.push("", `Errata: ${record.errataUrl}`);
  if (citation?.trim()) lines.push("", "## Citation", "", citation.trim());
  return lines.join("\n") + "\n";
}

/** The trusted facts of an RFC record, in frontmatter order. */
export function rfcFacts(record: RfcRecord): DocumentFact[] {
  const n = record.number;
  const facts: DocumentFact[] = [
    { key: "api", value: trusted.text`IETF (RFC Editor)` },
    { key: "rfc", value: n },
  ];
  const status = record.status.toLowerCase();
  if ((STATUSES as readonly string[]).includes(status)) {
    facts.push({ key: "status", value: trusted.oneOf(STATUSES, status) });
  }
  const { year, month } = monthYear(record.date);
  if (year !== undefined) {
    facts.push({
      key: "published",
      value: trusted.matching(
        month ? `${year}-${String(month).padStart(2, "0")}` : String(year),
        /^\d{4}(?:-\d{2})?$/,
      ),
    });
  }
  if (record.pages !== undefined) facts.push({ key: "pages", value: record.pages });
  facts.push({ key: "doi", value: trusted.doi(rfcDoi(n)) });
  facts.push({ key: "full_text", value: trusted.url(`${rfcUrl(n)}.html`) });
  if (record.subseries.length > 0) {
    facts.push({
      key: "subseries",
      value: record.subseries.map((s) => trusted.matching(`${s.series} ${s.number}`, SUBSERIES_ID)),
    });
  }
  for (
    const [key, list] of [
      ["obsoletes", record.obsoletes],
      ["obsoleted_by", record.obsoletedBy],
      ["updates", record.updates],
      ["updated_by", record.updatedBy],
    ] as const
  ) {
    if (list.length > 0) facts.push({ key, value: rfcIds(list) });
  }
  if (record.errataUrl) facts.push({ key: "errata", value: trusted.url(record.errataUrl) });
  facts.push({
    key: "hint",
    mcpOnly: true,
    value: trusted
      .text`the rendered RFC is at the full_text URL: fetch it with the page tools to read its sections, or to use search= and query= on it`,
  });
  if (record.obsoletedBy.length > 0) {
    const latest = Math.max(...record.obsoletedBy);
    facts.push(messageFact(
      hint`this RFC is obsoleted; the current text is RFC ${latest}: ${
        callTool("ietf", { action: "rfc", query: latest })
      }`,
    ));
  }
  for (const s of record.subseries) {
    const id = trusted.matching(`${s.series} ${s.number}`, SUBSERIES_ID);
    facts.push(messageFact(
      hint`part of ${String(id)}: ${
        callTool("ietf", { action: "subseries", query: String(id) })
      } lists the RFCs of that bundle`,
    ));
  }
  // Shown only where the Semantic Scholar tool is active (the hint names it).
  facts.push(messageFact(
    seeAlso`citation counts and citing papers: ${
      callTool("semantic_scholar", { action: "paper", query: `DOI:${trusted.doi(rfcDoi(n))}` })
    }`,
  ));
  if (status === "unknown") {
    facts.push({
      key: "note",
      value: trusted
        .text`this RFC predates the current status system; treat it as informational at best`,
    });
  }
  return facts;
}

/** The record Document of RFC `n`, with its formatted citation when doi.org gives one. */
export async function rfcDocument(
  n: number,
  url: string,
  signal?: AbortSignal,
): Promise<Document> {
  const record = await fetchRfc(n, signal);
  let citation: string | undefined;
  try {
    citation = await formattedCitation(rfcDoi(n), signal);
  } catch {
    citation = undefined;
  }
  return new Document({
    url,
    canonicalUrl: rfcUrl(n),
    kind: "record",
    title: `RFC ${n}: ${record.title}`,
    markdown: rfcMarkdown(record, citation),
    contentType: "application/json",
    facts: rfcFacts(record),
    citation: rfcCitation(record),
    source: "ietf",
  });
}

/** Datatracker's document JSON (`/doc/<name>/doc.json`), checked. */
export interface DraftRecord {
  /** Name without revision. */
  name: string;
  /** Latest revision ("34"). */
  rev: string;
  /** Title. */
  title: string;
  /** Abstract. */
  abstract: string;
  /** Pages. */
  pages?: number;
  /** State ("Active", "Expired", "RFC", ...). */
  state: string;
  /** Intended status ("Proposed Standard", ...). */
  intendedStatus: string;
  /** IESG state. */
  iesgState: string;
  /** Stream ("IETF", "IRTF", ...). */
  stream: string;
  /** Group acronym. */
  group?: { acronym: string; name: string; type: string };
  /** Authors' names (and affiliations). */
  authors: string[];
  /** Last update, `YYYY-MM-DD HH:MM:SS`. */
  time: string;
  /** Revisions, oldest first. */
  revisions: { rev: string; published: string; name: string }[];
}

/** Reads Datatracker's document JSON; throws {@link ContentError} when it is not a draft's. */
export function readDraftJson(name: string, data: Json): DraftRecord {
  if (typeof data !== "object" || data === null || str(data.name).toLowerCase() !== name) {
    throw new ContentError(
      `the Datatracker's answer for ${name} is not that draft's record; try again later, or open ${
        draftUrl(name)
      }`,
    );
  }
  const pages = Number(data.pages);
  const group = typeof data.group === "object" && data.group !== null
    ? { acronym: str(data.group.acronym), name: str(data.group.name), type: str(data.group.type) }
    : undefined;
  return {
    name,
    rev: str(data.rev).trim(),
    title: str(data.title).trim(),
    abstract: str(data.abstract),
    pages: Number.isSafeInteger(pages) && pages > 0 ? pages : undefined,
    state: str(data.state).trim(),
    intendedStatus: str(data.intended_std_level).trim(),
    iesgState: str(data.iesg_state).trim(),
    stream: str(data.stream).trim(),
    group,
    authors: Array.isArray(data.authors)
      ? data.authors.map((a: Json) => {
        const who = str(a?.name).trim();
        const aff = str(a?.affiliation).trim();
        return aff ? `${who} (${aff})` : who;
      }).filter(Boolean)
      : [],
    time: str(data.time).trim(),
    revisions: Array.isArray(data.rev_history)
      ? data.rev_history.map((r: Json) => ({
        rev: str(r?.rev),
        published: str(r?.published),
        name: str(r?.name),
      }))
      : [],
  };
}

/** Fetches and checks Datatracker's record of a draft. */
export async function fetchDraft(name: string, signal?: AbortSignal): Promise<DraftRecord> {
  const result = await defaultNet().fetch(`${DATATRACKER}/doc/${name}/doc.json`, {
    signal,
    headers: { accept: "application/json" },
    deadlineMs: 20_000,
  });
  if (result.status === 404 || result.status === 410) {
    throw notFound(
      `draft ${name} not found: the Datatracker has no document of that name; check the spelling (without the revision), or search the Datatracker at ${DATATRACKER}/doc/search`,
      result,
    );
  }
  if (result.status < 200 || result.status >= 300) {
    throw upstreamError("the Datatracker", `draft ${name} could not be fetched`, result);
  }
  return readDraftJson(name, parseJson(result, `the Datatracker's record of ${name}`));
}

const STREAMS = ["IETF", "IRTF", "IAB", "ISE", "Editorial", "Legacy"] as const;
const LEVELS = [
  "Proposed Standard",
  "Draft Standard",
  "Internet Standard",
  "Best Current Practice",
  "Informational",
  "Experimental",
  "Historic",
  "Unknown",
] as const;
const DRAFT_STATES = [
  "Active",
  "Expired",
  "RFC",
  "Replaced",
  "Withdrawn by Submitter",
  "Withdrawn by IETF",
] as const;

/** The trusted facts of a draft. */
export function draftFacts(record: DraftRecord): DocumentFact[] {
  const facts: DocumentFact[] = [{ key: "api", value: trusted.text`IETF (Datatracker)` }];
  facts.push({ key: "draft", value: trusted.matching(record.name, /^draft-[a-z0-9-]+$/) });
  const rev = /^\d{2}$/.test(record.rev) ? record.rev : undefined;
  if (rev) facts.push({ key: "revision", value: trusted.matching(rev, /^\d{2}$/) });
  const pick = <T extends string>(set: readonly T[], value: string) =>
    (set as readonly string[]).includes(value) ? trusted.oneOf(set, value) : undefined;
  const state = pick(DRAFT_STATES, record.state);
  if (state) facts.push({ key: "state", value: state });
  const intended = pick(LEVELS, record.intendedStatus);
  if (intended) facts.push({ key: "intended_status", value: intended });
  const stream = pick(STREAMS, record.stream);
  if (stream) facts.push({ key: "stream", value: stream });
  if (record.group && /^[a-z0-9][a-z0-9-]{0,39}$/.test(record.group.acronym)) {
    if (record.group.acronym !== "none") {
      facts.push({
        key: "working_group",
        value: trusted.matching(record.group.acronym, /^[a-z0-9][a-z0-9-]{0,39}$/),
      });
    }
  }
  if (record.pages !== undefined) facts.push({ key: "pages", value: record.pages });
  if (rev) {
    const text = trusted.url(`https://www.ietf.org/archive/id/${record.name}-${rev}.html`);
    facts.push({ key: "full_text", value: text });
    facts.push({
      key: "see_also",
      value: trusted
        .text`the draft's text is at ${text}: fetch it with the page tools to read its sections, or to use search= and query= on it`,
    });
  }
  if (record.state === "RFC") {
    facts.push(messageFact(
      hint`this draft was published as an RFC: find its number with ${
        callTool("ietf", { action: "search", query: ph("title") })
      }, then read it with action=rfc`,
    ));
  }
  return facts;
}

/** The Markdown body of a draft record. */
export function draftMarkdown(record: DraftRecord): string {
  const lines = [`**Title:** ${record.title || "(untitled)"}  `];
  const field = (label: string, value: string | number | undefined) => {
    if (value !== undefined && value !== "") lines.push(`**${label}:** ${value}  `);
  };
  field("Authors", record.authors.join("; "));
  field("Revision", record.rev);
  field("State", record.state);
  field("IESG state", record.iesgState);
  field("Intended status", record.intendedStatus);
  field("Stream", record.stream);
  if (record.group && record.group.acronym !== "none") {
    field(
      "Working group",
      `${record.group.name} (${record.group.acronym}${
        record.group.type ? `, ${record.group.type}` : ""
      })`,
    );
  }
  field("Pages", record.pages);
  field("Last updated", record.time);
  lines[lines.length - 1] = lines.at(-1)!.trimEnd();
  const abstract = paragraphs(record.abstract);
  if (abstract) lines.push("", "## Abstract", "", abstract);
  const recent = record.revisions.slice(-5).reverse();
  if (recent.length > 0) {
    lines.push("", "## Recent revisions", "");
    for (const r of recent) {
      const who = r.name && r.name !== record.name ? ` (${r.name})` : "";
      lines.push(`- ${r.rev}${who}: ${r.published.slice(0, 10)}`);
    }
    if (record.revisions.length > recent.length) {
      lines.push(`- … ${record.revisions.length - recent.length} earlier revisions`);
    }
  }
  if (/^\d{2}$/.test(record.rev)) {
    lines.push(
      "",
      `Text: https://www.ietf.org/archive/id/${record.name}-${record.rev}.html`,
    );
  }
  return lines.join("\n") + "\n";
}

/** The record Document of a draft. */
export async function draftDocument(
  name: string,
  url: string,
  signal?: AbortSignal,
): Promise<Document> {
  const record = await fetchDraft(name, signal);
  return new Document({
    url,
    canonicalUrl: draftUrl(name),
    kind: "record",
    title: record.title ? `${name}: ${record.title}` : name,
    markdown: draftMarkdown(record),
    contentType: "application/json",
    facts: draftFacts(record),
    source: "ietf",
  });
}

/** Standards levels the search filter accepts, by Datatracker slug. */
export const STATUS_FILTERS = {
  ps: "Proposed Standard",
  std: "Internet Standard",
  bcp: "Best Current Practice",
  inf: "Informational",
  exp: "Experimental",
  hist: "Historic",
} as const;
/** A search status filter. */
export type StatusFilter = keyof typeof STATUS_FILTERS;

const LEVEL_SLUGS: Record<string, string> = {
  ...STATUS_FILTERS,
  ds: "Draft Standard",
  unkn: "Unknown",
};

/** A search request. */
export interface SearchRequest {
  /** Words of the title. */
  title: string;
  /** Results per page (1 to 50). */
  limit: number;
  /** Results to skip. */
  offset: number;
  /** Standards level. */
  status?: StatusFilter;
  /** Working group acronym. */
  wg?: string;
}

/** One search hit. */
export interface SearchHit {
  /** RFC number. */
  rfc: number;
  /** Title (upstream text). */
  title: string;
  /** Standards level, when known. */
  status?: string;
  /** Pages. */
  pages?: number;
  /** The RFC Editor's page. */
  url: string;
}

/** Search results. */
export interface SearchResults {
  /** Matching RFCs in total. */
  total: number;
  /** This page. */
  hits: SearchHit[];
}

/** The Datatracker query URL of a search. */
export function searchUrl(req: SearchRequest): string {
  const params = new URLSearchParams({
    title__icontains: req.title,
    name__startswith: "rfc",
    limit: String(req.limit),
    offset: String(req.offset),
    format: "json",
  });
  if (req.status) params.set("std_level", `/api/v1/name/stdlevelname/${req.status}/`);
  if (req.wg) params.set("group__acronym", req.wg);
  return `${DATATRACKER}/api/v1/doc/document/?${params}`;
}

/** Searches RFC titles on the Datatracker. */
export async function searchRfcs(req: SearchRequest, signal?: AbortSignal): Promise<SearchResults> {
  const result = await defaultNet().fetch(searchUrl(req), {
    signal,
    headers: { accept: "application/json" },
    deadlineMs: 30_000,
  });
  if (result.status < 200 || result.status >= 300) {
    throw upstreamError("the Datatracker", "the RFC search failed", result);
  }
  const data = parseJson(result, "the Datatracker's search results");
  if (typeof data !== "object" || data === null || !Array.isArray(data.objects)) {
    throw new ContentError(
      "the Datatracker's search results have no list of documents; try again later",
    );
  }
  const hits: SearchHit[] = [];
  for (const o of data.objects as Json[]) {
    const fromName = /^rfc(\d{1,5})$/.exec(str(o?.name));
    const n = Number.isSafeInteger(o?.rfc_number) ? o.rfc_number : Number(fromName?.[1]);
    if (!Number.isSafeInteger(n) || n < 1 || n > MAX_RFC) continue;
    const level = /\/stdlevelname\/([a-z]+)\/$/.exec(str(o?.std_level))?.[1];
    const pages = Number(o?.pages);
    hits.push({
      rfc: n,
      title: str(o?.title).trim(),
      status: level ? LEVEL_SLUGS[level] : undefined,
      pages: Number.isSafeInteger(pages) && pages > 0 ? pages : undefined,
      url: rfcUrl(n),
    });
  }
  const total = Number(data.meta?.total_count);
  return { total: Number.isSafeInteger(total) && total >= 0 ? total : hits.length, hits };
}

/** The BibXML URL of a subseries document. */
export function subseriesUrl(ref: SubseriesRef): string {
  return `${BIBXML_SUBSERIES}/reference.${ref.series}.${String(ref.number).padStart(4, "0")}.xml`;
}

/** The RFC Editor's page of a subseries document. */
export function subseriesInfoUrl(ref: SubseriesRef): string {
  return `${RFC_EDITOR}/info/${ref.series.toLowerCase()}${ref.number}`;
}

/** Fetches the members of a subseries document from BibXML. */
export async function fetchSubseries(
  ref: SubseriesRef,
  signal?: AbortSignal,
): Promise<SubseriesMember[]> {
  const label = `${ref.series} ${ref.number}`;
  const result = await defaultNet().fetch(subseriesUrl(ref), {
    signal,
    headers: { accept: "application/xml, text/xml" },
    deadlineMs: 20_000,
  });
  if (result.status === 404 || result.status === 410) {
    throw notFound(
      `${label} not found: BibXML has no such ${ref.series} document (numbers not yet assigned have none); check the number`,
      result,
    );
  }
  if (result.status < 200 || result.status >= 300) {
    throw upstreamError("BibXML (bib.ietf.org)", `${label} could not be fetched`, result);
  }
  try {
    return readSubseries(result.text());
  } catch (error) {
    if (error instanceof XmlError) {
      throw new ContentError(
        `BibXML's answer for ${label} is not readable XML (${error.message}); try again later, or open ${
          subseriesInfoUrl(ref)
        }`,
      );
    }
    throw error;
  }
}

/** What an intercepted URL names. */
type Target = { rfc: number } | { draft: string };

function target(url: URL): Target | undefined {
  const host = url.hostname.toLowerCase();
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
  if (host === "www.rfc-editor.org" || host === "rfc-editor.org") {
    const m = /^\/rfc\/rfc(\d{1,5})(?:\.json)?$/i.exec(url.pathname);
    if (m && Number(m[1]) >= 1) return { rfc: Number(m[1]) };
  }
  if (host === "datatracker.ietf.org") {
    const m = /^\/doc\/(rfc(\d{1,5})|draft-[A-Za-z0-9-]+)\/?$/.exec(url.pathname);
    if (m?.[2] && Number(m[2]) >= 1) return { rfc: Number(m[2]) };
    if (m && !m[2]) {
      try {
        const ref = parseDraftName(m[1]);
        return ref.rev ? undefined : { draft: ref.name };
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/** The IETF source: RFC Editor and Datatracker record pages. */
export const ietfSource: Source = {
  name: "ietf",
  detect: (url) => target(url) !== undefined,
  load: (url: URL, options: LoadOptions): Promise<Document> => {
    const t = target(url)!;
    return "rfc" in t
      ? rfcDocument(t.rfc, url.href, options.signal)
      : draftDocument(t.draft, url.href, options.signal);
  },
};
