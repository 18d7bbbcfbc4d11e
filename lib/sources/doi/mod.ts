/**
 * The DOI source: `https://doi.org/<doi>` and `https://dx.doi.org/<doi>`
 * URLs read through doi.org content negotiation (CSL-JSON and the APA
 * citation) and CrossRef or DataCite enrichment, instead of the publisher's
 * landing page.
 *
 * The Document (kind `record`) holds the work's metadata inside the fence:
 * a retraction, concern or correction banner, authors with ORCID iDs, date,
 * publisher, journal, type, DOI, licence, abstract and citation. Its facts
 * are the trusted frontmatter: `api: DOI`, the DOI, the type, `alert` for a
 * retraction or expression of concern, `note` for a correction, `relation`
 * for related DOIs and `see_also` to Semantic Scholar. Its citation puts the
 * work on the research shelf.
 *
 * arXiv DOIs (`10.48550/arXiv.<id>`) and RFC DOIs (`10.17487/RFC<n>`) are
 * handed to the arXiv and IETF sources when those are registered.
 *
 * @module
 */
import { Document, type DocumentFact } from "../../content/document/document.ts";
import { type Trusted, trusted } from "../../trust.ts";
import { callTool, messageFact, seeAlso } from "../../hint.ts";
import { NetError } from "../../net/errors.ts";
import type { CitationInput, WorkKind } from "../../citation.ts";
import {
  type CslItem,
  cslJson,
  decodeEntity,
  DOI_FORMS,
  doiUrl,
  type Enrichment,
  enrichment,
  formattedCitation,
  type Outcome,
  parseDoi,
  partialDate,
  printable,
  SAME_WORK_RELATIONS,
} from "./crossref.ts";
import { type EnrichmentFailure, enrichmentFailure, uncheckedWarning } from "./checked.ts";
import type { LoadOptions, Source } from "../source.ts";

const HOSTS = new Set(["doi.org", "dx.doi.org", "www.doi.org"]);
const MAX_AUTHORS = 10;
const ARXIV_DOI = /^10\.48550\/arxiv\.(\d{4}\.\d{4,5}(?:v\d+)?|[a-z-]+(?:\.[a-z]{2})?\/\d{7})$/i;
const RFC_DOI = /^10\.17487\/rfc(\d{1,5})$/i;
const SHELF_DOI = /^10\.\d{4,9}\/[-._;()/:A-Za-z0-9<>[\]]+$/;

function decodedPath(url: URL): string {
  try {
    return decodeURIComponent(url.pathname);
  } catch {
    return url.pathname;
  }
}

/** Whether `url` is a DOI link (doi.org or dx.doi.org with a DOI-like path). */
export function isDoiUrl(url: URL): boolean {
  if (url.protocol !== "https:" && url.protocol !== "http:") return false;
  if (!HOSTS.has(url.hostname.toLowerCase())) return false;
  return /^\/(?:10\.|doi:)/i.test(decodedPath(url));
}

/** The work kind of a CSL (or CrossRef, DataCite) type. */
export function workKind(type: string | undefined): WorkKind {
  switch ((type ?? "").toLowerCase()) {
    case "article-journal":
    case "journal-article":
    case "article":
      return "article";
    case "posted-content":
    case "preprint":
      return "preprint";
    case "paper-conference":
    case "proceedings-article":
    case "conferencepaper":
      return "inproceedings";
    case "book":
    case "monograph":
    case "edited-book":
    case "reference-book":
      return "book";
    case "chapter":
    case "book-chapter":
    case "bookchapter":
      return "chapter";
    case "thesis":
    case "dissertation":
      return "thesis";
    case "dataset":
      return "dataset";
    case "software":
      return "software";
    default:
      return "misc";
  }
}

function text(value: unknown, max = 2000): string | undefined {
  const s = typeof value === "string"
    ? value
    : Array.isArray(value) && typeof value[0] === "string"
    ? value[0]
    : undefined;
  return printable(s, max);
}

/** An abstract without its JATS/HTML tags, paragraphs kept. */
export function plainAbstract(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const out = value
    .replace(/<\/(?:jats:)?(?:p|title|sec)>/gi, "\n\n")
    .replace(/<[^>]*>/g, "")
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, decodeEntity)
    .split(/\n{2,}/)
    .map((p) => p.replace(/\s+/g, " ").trim())
    .filter(Boolean)
    .join("\n\n");
  return out || undefined;
}

interface Person {
  name: string;
  orcid?: string;
}

function people(item: CslItem, enriched?: Enrichment): Person[] {
  const list = Array.isArray(item.author) ? item.author as Record<string, unknown>[] : [];
  return list.flatMap((a) => {
    if (!a || typeof a !== "object") return [];
    const family = text(a.family, 200);
    const given = text(a.given, 200);
    const name = family && given ? `${family}, ${given}` : family ?? given ?? text(a.literal, 200);
    if (!name) return [];
    const raw = typeof a.ORCID === "string"
      ? a.ORCID.replace(/^https?:\/\/orcid\.org\//i, "").toUpperCase()
      : "";
    const orcid = /^\d{4}-\d{4}-\d{4}-\d{3}[\dX]$/.test(raw) ? raw : enriched?.orcids?.[name];
    return [{ name, orcid }];
  });
}

function published(item: CslItem): string | undefined {
  for (const key of ["published", "issued", "published-print", "published-online", "created"]) {
    const date = partialDate(item[key]);
    if (date) return date;
  }
  return undefined;
}

function bannerOf(enriched: Enrichment | undefined): string[] {
  const lines: string[] = [];
  const r = enriched?.retraction;
  if (r) {
    const when = r.date ? ` on ${r.date}` : "";
    const head = r.kind === "retraction"
      ? `> **[RETRACTED]** This paper has been retracted${when}`
      : `> **[EXPRESSION OF CONCERN]** The validity of this paper has been called into question${when}`;
    lines.push(`${head} — notice: ${doiUrl(r.noticeDoi)} (source: ${r.source}).`);
    if (r.label) lines.push(`> _${r.label}_`);
  }
  const c = enriched?.correction;
  if (c) {
    if (lines.length > 0) lines.push(">");
    const when = c.date ? ` on ${c.date}` : "";
    lines.push(
      `> **[CORRECTED]** This paper has been corrected${when} — notice: ${doiUrl(c.noticeDoi)}.`,
    );
    if (c.label) lines.push(`> _${c.label}_`);
  }
  return lines;
}

const DATE = /^\d{4}(?:-\d{2}(?:-\d{2})?)?$/;
const SOURCE_NAMES = ["publisher", "retraction-watch", "unknown"] as const;

function dateText(date: string | undefined): Trusted {
  return date && DATE.test(date) ? trusted.matching(date, /^\d{4}(?:-\d{2}(?:-\d{2})?)?$/) : trusted
    .text`(undated)`;
}

/** The trusted `alert` and `note` values of an enrichment's update records. */
export function updateFacts(enriched: Enrichment | undefined): DocumentFact[] {
  const facts: DocumentFact[] = [];
  const r = enriched?.retraction;
  if (r) {
    const notice = trusted.doi(r.noticeDoi);
    const source = trusted.oneOf(SOURCE_NAMES, r.source);
    const date = dateText(r.date);
    facts.push({
      key: "alert",
      value: r.kind === "retraction"
        ? trusted.text`retracted ${date} — notice: ${notice} (${source})`
        : trusted.text`expression of concern ${date} — notice: ${notice} (${source})`,
    });
  }
  const c = enriched?.correction;
  if (c) {
    facts.push({
      key: "note",
      value: trusted.text`correction published ${dateText(c.date)} — notice: ${
        trusted.doi(c.noticeDoi)
      }`,
    });
  }
  for (const t of enriched?.updateTo ?? []) {
    const kind = t.kind === "retraction"
      ? trusted.text`a retraction notice`
      : t.kind === "expression_of_concern"
      ? trusted.text`an expression of concern`
      : trusted.text`a correction notice`;
    facts.push({
      key: "note",
      value: trusted.text`this DOI is ${kind} for ${trusted.doi(t.targetDoi)}; read ${
        trusted.url(doiUrl(t.targetDoi))
      } for the work itself`,
    });
  }
  return facts;
}

function relationFacts(enriched: Enrichment | undefined): Trusted[] {
  const out: Trusted[] = [];
  for (const [key, dois] of Object.entries(enriched?.relations ?? {})) {
    if (!/^[a-z][a-z_]{1,60}$/.test(key)) continue;
    for (const doi of dois) {
      out.push(trusted.text`${trusted.matching(key, /^[a-z][a-z_]{1,60}$/)}: ${trusted.doi(doi)}`);
    }
  }
  return out.slice(0, 20);
}

/** Builds the Document of a DOI from what the lookups gave. */
export function doiDocument(
  doi: string,
  csl: CslItem | undefined,
  citation: string | undefined,
  enriched: Enrichment | undefined,
  enrichFailure?: EnrichmentFailure,
): Document {
  const item = csl ?? {};
  const title = text(item.title, 1000) ?? "";
  const subtitle = text(item.subtitle, 1000);
  const authors = people(item, enriched);
  const date = published(item);
  const publisher = text(item.publisher, 300);
  const journal = text(item["container-title"], 300);
  const cslType = text(item.type, 60);
  const type = enriched?.agency === "DataCite" && enriched.type ? enriched.type : cslType;
  const abstract = plainAbstract(item.abstract);

  const lines: string[] = [...bannerOf(enriched)];
  if (lines.length > 0) lines.push("");
  if (subtitle) lines.push(`_${subtitle}_`, "");
  if (authors.length > 0) {
    const shown = authors.slice(0, MAX_AUTHORS).map((a) =>
      a.orcid ? `${a.name} [ORCID](https://orcid.org/${a.orcid})` : a.name
    );
    const more = authors.length > MAX_AUTHORS
      ? `, ... and ${authors.length - MAX_AUTHORS} more`
      : "";
    lines.push(`**Authors:** ${shown.join("; ")}${more}  `);
  }
  const facts = [
    date && `**Published:** ${date}`,
    publisher && `**Publisher:** ${publisher}`,
    journal && `**Journal:** ${journal}`,
    type && `**Type:** ${type}`,
  ].filter(Boolean);
  if (facts.length > 0) lines.push(facts.join("  ") + "  ");
  lines.push(`**DOI:** [${doi}](${doiUrl(doi)})  `);
  if (enriched?.license) {
    const label = enriched.license;
    lines.push(
      enriched.licenseUrl && enriched.licenseUrl !== label
        ? `**License:** [${label}](${enriched.licenseUrl})  `
        : `**License:** ${label}  `,
    );
  } else if (text(item.copyright, 300)) {
    lines.push(`**License:** ${text(item.copyright, 300)}  `);
  }
  if (enriched?.citedBy !== undefined) lines.push(`**Cited by (CrossRef):** ${enriched.citedBy}  `);
  for (const t of enriched?.updateTo ?? []) {
    const what = t.kind === "retraction"
      ? "a retraction notice"
      : t.kind === "expression_of_concern"
      ? "an expression of concern"
      : "a correction notice";
    lines.push(`**Notice:** this DOI is ${what} for [${t.targetDoi}](${doiUrl(t.targetDoi)})  `);
  }
  if (abstract) lines.push("", "## Abstract", "", abstract);
  if (citation) lines.push("", "## Citation", "", citation);

  const facts2: DocumentFact[] = [
    { key: "api", value: trusted.text`DOI` },
  ];
  try {
    facts2.push({ key: "doi", value: trusted.doi(doi) });
  } catch { /* a DOI outside the frontmatter's character set stays in the body */ }
  if (type && /^[A-Za-z][A-Za-z-]{0,40}$/.test(type)) {
    facts2.push({ key: "type", value: trusted.matching(type, /^[A-Za-z][A-Za-z-]{0,40}$/) });
  }
  facts2.push(...updateFacts(enriched));
  if (enrichFailure) facts2.push({ key: "warning", value: uncheckedWarning(enrichFailure) });
  if (!csl) {
    facts2.push({
      key: "warning",
      value: trusted
        .text`doi.org served no CSL-JSON metadata for this DOI; only the formatted citation is shown`,
    });
  }
  const relations = relationFacts(enriched);
  if (relations.length > 0) facts2.push({ key: "relation", value: relations });
  try {
    const query = `DOI:${trusted.doi(doi)}`;
    facts2.push(messageFact(
      seeAlso`citation counts and references: ${
        callTool("semantic_scholar", { action: "paper", query })
      }`,
    ));
  } catch { /* see above */ }

  return new Document({
    url: doiUrl(doi),
    kind: "record",
    title,
    markdown: lines.join("\n") + "\n",
    contentType: "application/vnd.citationstyles.csl+json",
    facts: facts2,
    citation: title ? citationOf(doi, item, title, authors, journal, cslType, enriched) : undefined,
    source: "doi",
  });
}

function citationOf(
  doi: string,
  item: CslItem,
  title: string,
  authors: Person[],
  venue: string | undefined,
  type: string | undefined,
  enriched: Enrichment | undefined,
): CitationInput {
  const primary = doi.toLowerCase();
  const alts = new Set<string>();
  for (const key of SAME_WORK_RELATIONS) {
    for (const d of enriched?.relations[key] ?? []) {
      if (d !== primary && SHELF_DOI.test(d)) alts.add(d);
    }
  }
  const year = Number(published(item)?.slice(0, 4));
  const orcids: Record<string, string> = {};
  for (const a of authors) if (a.orcid) orcids[a.name] = a.orcid;
  const input: CitationInput = {
    doi: primary,
    title,
    authors: authors.map((a) => a.name),
    sourceTool: "doi",
    kind: workKind(type),
    url: doiUrl(doi),
  };
  if (Number.isInteger(year) && year > 0) input.year = year;
  if (venue) input.venue = venue;
  if (alts.size > 0) input.altDois = [...alts];
  if (Object.keys(orcids).length > 0) input.orcids = orcids;
  if (enriched?.retraction) input.retraction = enriched.retraction;
  return input;
}

/** The arXiv abstract or RFC Editor URL a delegated DOI stands for, with the source's name. */
export function delegateOf(doi: string): { source: string; url: URL } | undefined {
  const arxiv = ARXIV_DOI.exec(doi);
  if (arxiv) return { source: "arxiv", url: new URL(`https://arxiv.org/abs/${arxiv[1]}`) };
  const rfc = RFC_DOI.exec(doi);
  if (rfc && Number(rfc[1]) > 0) {
    return { source: "ietf", url: new URL(`https://www.rfc-editor.org/rfc/rfc${Number(rfc[1])}`) };
  }
  return undefined;
}

function unavailable(doi: string, o: Outcome<unknown>): NetError {
  if (o.ok) throw new Error("unreachable");
  const url = doiUrl(doi);
  switch (o.reason) {
    case "not_found":
      return new NetError(
        "status",
        `DOI ${doi} was not found: ${o.message}. Check the DOI for typos (copy it from the paper's ` +
          `page or reference list); the accepted form is ${DOI_FORMS}`,
        url,
        { remote: { status: o.status ?? 404 } },
      );
    case "rate_limited":
      return new NetError("status", `Could not resolve DOI ${doi}: ${o.message}`, url, {
        remote: { status: 429 },
      });
    case "upstream":
      return new NetError(
        "status",
        `Could not resolve DOI ${doi}: ${o.message}. The DOI may still be valid`,
        url,
        { remote: { status: o.status ?? 502 } },
      );
    case "redirect":
      return new NetError(
        "redirect",
        `Could not resolve DOI ${doi}: ${o.message}. Fetch the publisher's page directly if you need it`,
        url,
      );
    case "malformed":
      return new NetError(
        "transport",
        `Could not resolve DOI ${doi}: ${o.message}; try again later`,
        url,
      );
    default:
      return new NetError("transport", `Could not resolve DOI ${doi}: ${o.message}`, url);
  }
}

/** Loads the Document of a doi.org URL. */
export async function loadDoi(url: URL, options: LoadOptions): Promise<Document> {
  const raw = decodedPath(url).slice(1);
  const doi = parseDoi(raw);
  if (!doi) {
    throw new NetError(
      "invalid_url",
      `'${
        raw.slice(0, 200)
      }' is not a valid DOI. A DOI is ${DOI_FORMS}; check for a missing part or a stray character`,
      url.href,
    );
  }
  const delegate = delegateOf(doi);
  if (delegate) {
    // The router hands every source the list of sources (it imports this module to list it).
    const source = options.sources?.find((s) => s.name === delegate.source);
    if (source && source.detect(delegate.url)) return await source.load(delegate.url, options);
  }
  const signal = options.signal;
  const [csl, citation, enriched] = await Promise.all([
    cslJson(doi, signal),
    formattedCitation(doi, signal),
    enrichment(doi, signal),
  ]);
  options.onStage?.("converting");
  if (!csl.ok) {
    if (csl.reason === "not_found" || !citation) throw unavailable(doi, csl);
  }
  return doiDocument(
    doi,
    csl.ok ? csl.value : undefined,
    citation,
    enriched.ok ? enriched.value : undefined,
    enrichmentFailure(enriched),
  );
}

/** The DOI source. */
export const doiSource: Source = {
  name: "doi",
  detect: isDoiUrl,
  load: loadDoi,
};
