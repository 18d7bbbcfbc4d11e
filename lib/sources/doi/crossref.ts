/**
 * DOI enrichment shared by the paper sources (arXiv, Semantic Scholar, DOI):
 * CrossRef (or DataCite) metadata and the formatted citation from doi.org.
 *
 * - The registration agency of a prefix comes from `https://doi.org/doiRA/<prefix>`
 *   (cached per prefix for the process's life).
 * - CrossRef DOIs are enriched from `https://api.crossref.org/works/<doi>`:
 *   update records (`updated-by`) give retractions, expressions of concern
 *   and corrections, `update-to` says a DOI is itself such a notice;
 *   relations, licences, ORCIDs, the work type.
 * - DataCite DOIs from `https://api.datacite.org/dois/<doi>`: ORCIDs, SPDX
 *   licence, related identifiers, `resourceTypeGeneral`.
 * - doi.org content negotiation gives CSL-JSON and the APA citation;
 *   redirects are accepted only to doi.org, data.crosscite.org and
 *   api.crossref.org.
 *
 * Everything taken from an API that may reach the frontmatter is validated
 * by shape here (DOI pattern, calendar dates, closed enums, ORCID iD
 * pattern); free text (labels) is capped and stripped of control
 * characters and belongs inside the fence only.
 *
 * @module
 */
import { defaultNet } from "../../net/default.ts";
import type { FetchResult } from "../../net/fetch.ts";
import type { Retraction } from "../../citation.ts";

/** A correction notice. */
export interface Correction {
  /** DOI of the notice. */
  noticeDoi: string;
  /** `YYYY[-MM[-DD]]`. */
  date?: string;
  /** Who reported it. */
  source?: "publisher" | "retraction-watch" | "unknown";
  /** The notice's label (at most 120 printable characters; page text: fence only). */
  label?: string;
}

/** What a DOI is itself a notice of (CrossRef `update-to`). */
export interface UpdateTarget {
  /** Kind of notice. */
  kind: "retraction" | "expression_of_concern" | "correction";
  /** DOI of the work the notice updates. */
  targetDoi: string;
  /** `YYYY[-MM[-DD]]`. */
  date?: string;
}

/** What CrossRef or DataCite add to a DOI. */
export interface Enrichment {
  /** Retraction or expression of concern, if any. */
  retraction?: Retraction;
  /** Latest correction or erratum, if any. */
  correction?: Correction;
  /** Related DOIs by relation (`is_preprint_of`, `has_version`, ...), validated and lowercased. */
  relations: Record<string, string[]>;
  /** Licence URL or SPDX id. */
  license?: string;
  /** Licence URL (http(s)) when known, also when {@link Enrichment.license} is an SPDX id. */
  licenseUrl?: string;
  /** Citation count as CrossRef reports it. */
  citedBy?: number;
  /** CrossRef work type or DataCite resourceTypeGeneral. */
  type?: string;
  /** Author name to ORCID iD. */
  orcids?: Record<string, string>;
  /** Registration agency that answered (`Crossref` or `DataCite`). */
  agency?: "Crossref" | "DataCite";
  /** Works this DOI is a notice of (it is a retraction or correction notice itself). */
  updateTo?: UpdateTarget[];
}

/** Relations that name the same work under another DOI (shelf alt DOIs come from these only). */
export const SAME_WORK_RELATIONS: readonly string[] = [
  "is_preprint_of",
  "has_preprint",
  "is_version_of",
  "has_version",
  "is_identical_to",
];

/** A DOI as CrossRef recommends matching it: `10.<4-9 digits>/<suffix>`. */
export const DOI_PATTERN: RegExp = /^10\.\d{4,9}\/[^\s"'<>\\]+$/;

/** The accepted forms of a DOI, for error messages. */
export const DOI_FORMS =
  "10.<4-9 digit registrant>/<suffix> (for example 10.1038/nature14539), the same with a doi: prefix, " +
  "or a https://doi.org/ URL (https://doi.org/10.1038/nature14539)";

/**
 * The DOI in `input` (a bare DOI, `doi:10...`, or a doi.org / dx.doi.org
 * URL), trimmed and percent-decoded; undefined when it is not one.
 */
export function parseDoi(input: string): string | undefined {
  let s = input.trim();
  const url = /^https?:\/\/(?:dx\.|www\.)?doi\.org\/(.*)$/i.exec(s);
  if (url) {
    s = url[1].replace(/[?#].*$/, "");
    try {
      s = decodeURIComponent(s);
    } catch {
      return undefined;
    }
  }
  s = s.replace(/^doi:\s*/i, "");
  if (s.length > 300 || !DOI_PATTERN.test(s)) return undefined;
  return s;
}

/** `doi` in a doi.org URL path (each character that needs it percent-encoded, slashes kept). */
export function doiPath(doi: string): string {
  return doi.split("/").map(encodeURIComponent).join("/");
}

/** The doi.org URL of `doi`. */
export function doiUrl(doi: string): string {
  return `https://doi.org/${doiPath(doi)}`;
}

// ---------------------------------------------------------------------------
// Validation of API values.

const ORCID = /^\d{4}-\d{4}-\d{4}-\d{3}[\dX]$/;
const NON_PRINTABLE =
  // deno-lint-ignore no-control-regex
  /[\u0000-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]+/g;

/** A DOI from an API, validated and lowercased; undefined when malformed. */
export function validDoi(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const doi = value.trim().replace(/^https?:\/\/(?:dx\.)?doi\.org\//i, "");
  if (doi.length > 300 || !DOI_PATTERN.test(doi)) return undefined;
  // The stricter character set the frontmatter accepts for DOIs.
  if (!/^10\.\d{4,9}\/[-._;()/:A-Za-z0-9<>[\]]+$/.test(doi)) return undefined;
  return doi.toLowerCase();
}

function pad(n: number): string {
  return String(n).padStart(2, "0");
}

/** `YYYY[-MM[-DD]]` from CSL/CrossRef `date-parts` (or a `date-time`), validated; else undefined. */
export function partialDate(value: unknown): string | undefined {
  if (!value || typeof value !== "object") return undefined;
  const v = value as { "date-parts"?: unknown; "date-time"?: unknown };
  const parts = Array.isArray(v["date-parts"]) ? v["date-parts"][0] : undefined;
  if (Array.isArray(parts) && parts.length > 0) {
    const [y, m, d] = parts.map((p) => typeof p === "string" ? Number(p) : p);
    if (!Number.isInteger(y) || y < 1000 || y > 9999) return undefined;
    if (m === undefined || m === null) return String(y);
    if (!Number.isInteger(m) || m < 1 || m > 12) return String(y);
    if (d === undefined || d === null) return `${y}-${pad(m)}`;
    const day = new Date(Date.UTC(y, m - 1, d));
    if (!Number.isInteger(d) || day.getUTCMonth() !== m - 1) return `${y}-${pad(m)}`;
    return `${y}-${pad(m)}-${pad(d)}`;
  }
  if (typeof v["date-time"] === "string" && /^\d{4}-\d{2}-\d{2}/.test(v["date-time"])) {
    return partialDate({ "date-parts": [v["date-time"].slice(0, 10).split("-").map(Number)] });
  }
  return undefined;
}

/** Free text cut to at most `max` printable characters on one line; undefined when empty. */
export function printable(value: unknown, max = 120): string | undefined {
  if (typeof value !== "string") return undefined;
  const flat = value.toWellFormed().replace(NON_PRINTABLE, " ").replace(/\s+/g, " ").trim();
  if (!flat) return undefined;
  const chars = Array.from(flat);
  return chars.length <= max ? flat : chars.slice(0, max - 1).join("") + "…";
}

function orcidOf(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const id = value.trim().replace(/^https?:\/\/orcid\.org\//i, "").toUpperCase();
  return ORCID.test(id) ? id : undefined;
}

function httpUrl(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  try {
    const url = new URL(value.trim());
    if ((url.protocol === "http:" || url.protocol === "https:") && !url.username) return url.href;
  } catch { /* not a URL */ }
  return undefined;
}

function snake(value: string): string {
  return value.replace(/([a-z])([A-Z])/g, "$1_$2").replace(/[-\s]+/g, "_").toLowerCase();
}

function str(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (Array.isArray(value) && typeof value[0] === "string") return value[0];
  return undefined;
}

function personName(family: unknown, given: unknown, literal?: unknown): string | undefined {
  const f = printable(family, 200);
  const g = printable(given, 200);
  if (f && g) return `${f}, ${g}`;
  return f ?? g ?? printable(literal, 200);
}

const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
};

/** Replacer for `/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi`: the character an HTML entity stands for. */
export function decodeEntity(match: string, entity: string): string {
  if (entity[0] === "#") {
    const code = entity[1] === "x" || entity[1] === "X"
      ? parseInt(entity.slice(2), 16)
      : Number(entity.slice(1));
    return code > 0 && code < 0x110000 ? String.fromCodePoint(code) : match;
  }
  return ENTITIES[entity.toLowerCase()] ?? match;
}

// ---------------------------------------------------------------------------
// Update records (CrossRef `updated-by` / `update-to`).

const RETRACTION_TYPES = new Set(["retraction", "withdrawal", "removal"]);
const CONCERN_TYPES = new Set(["expression_of_concern", "expression-of-concern"]);
const CORRECTION_TYPES = new Set(["correction", "erratum", "corrigendum"]);
const SOURCES = new Set(["publisher", "retraction-watch"]);

interface Notice {
  kind: "retraction" | "expression_of_concern" | "correction";
  doi: string;
  date?: string;
  source: "publisher" | "retraction-watch" | "unknown";
  label?: string;
}

function notice(entry: unknown): Notice | undefined {
  if (!entry || typeof entry !== "object") return undefined;
  const e = entry as Record<string, unknown>;
  const type = typeof e.type === "string" ? e.type.toLowerCase() : "";
  const kind = RETRACTION_TYPES.has(type)
    ? "retraction"
    : CONCERN_TYPES.has(type)
    ? "expression_of_concern"
    : CORRECTION_TYPES.has(type)
    ? "correction"
    : undefined;
  if (!kind) return undefined;
  const raw = typeof e.DOI === "string" ? e.DOI.trim() : "";
  // The notice's own DOI must match the pattern before anything is shown.
  if (!DOI_PATTERN.test(raw)) return undefined;
  const doi = validDoi(raw);
  if (!doi) return undefined;
  const source = typeof e.source === "string" && SOURCES.has(e.source)
    ? e.source as "publisher" | "retraction-watch"
    : "unknown";
  return { kind, doi, date: partialDate(e.updated), source, label: printable(e.label) };
}

function latest(notices: Notice[]): Notice | undefined {
  let best: Notice | undefined;
  for (const n of notices) {
    if (!best || (n.date ?? "") > (best.date ?? "")) best = n;
  }
  return best;
}

/** Retraction, concern and correction from a CrossRef work's `updated-by` records. */
export function updatesOf(
  updatedBy: unknown,
): { retraction?: Retraction; correction?: Correction } {
  const notices = (Array.isArray(updatedBy) ? updatedBy : []).map(notice).filter((n): n is Notice =>
    n !== undefined
  );
  const pick = latest(notices.filter((n) => n.kind === "retraction")) ??
    latest(notices.filter((n) => n.kind === "expression_of_concern"));
  const fix = latest(notices.filter((n) => n.kind === "correction"));
  const out: { retraction?: Retraction; correction?: Correction } = {};
  if (pick) {
    out.retraction = {
      kind: pick.kind as Retraction["kind"],
      noticeDoi: pick.doi,
      date: pick.date,
      source: pick.source,
      label: pick.label,
    };
  }
  if (fix) {
    out.correction = { noticeDoi: fix.doi, date: fix.date, source: fix.source, label: fix.label };
  }
  return out;
}

// ---------------------------------------------------------------------------
// Network.

/** Why a lookup gave nothing. */
export type FailureReason =
  | "not_found"
  | "rate_limited"
  | "upstream"
  | "malformed"
  | "redirect"
  | "network";

/** A lookup's result: the value, or why there is none (with a message for the caller). */
export type Outcome<T> =
  | { ok: true; value: T }
  | { ok: false; reason: FailureReason; message: string; status?: number };

const CN_HOSTS = new Set(["doi.org", "data.crosscite.org", "api.crossref.org"]);
const MAX_BYTES = 4 * 1024 * 1024;
const DEADLINE_MS = 20_000;

function failure<T>(reason: FailureReason, message: string, status?: number): Outcome<T> {
  return { ok: false, reason, message, status };
}

async function get(
  url: string,
  accept: string,
  signal: AbortSignal | undefined,
  what: string,
): Promise<Outcome<FetchResult>> {
  let result: FetchResult;
  try {
    result = await defaultNet().fetch(url, {
      headers: { accept },
      maxBytes: MAX_BYTES,
      deadlineMs: DEADLINE_MS,
      signal,
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    const message = error instanceof Error ? error.message : String(error);
    return failure("network", `${what} could not be reached (${message})`);
  }
  const status = result.status;
  if (status >= 200 && status < 300) return { ok: true, value: result };
  if (status === 404 || status === 410) {
    return failure("not_found", `${what} answered HTTP ${status}`, status);
  }
  if (status === 429) {
    return failure(
      "rate_limited",
      `${what} is rate limiting (HTTP 429); wait a minute and try again`,
      status,
    );
  }
  if (status >= 500) {
    return failure("upstream", `${what} failed (HTTP ${status}); try again later`, status);
  }
  return failure("upstream", `${what} answered HTTP ${status}`, status);
}

function parseJson<T>(result: FetchResult, what: string): Outcome<T> {
  try {
    const value = result.json<T>();
    if (value === null || typeof value !== "object") {
      return failure("malformed", `${what} returned JSON that is not an object`);
    }
    return { ok: true, value };
  } catch {
    return failure("malformed", `${what} returned malformed JSON`);
  }
}

/** The final URL of a content negotiation is acceptable only on the known hosts. */
function negotiatedHostOk(result: FetchResult): boolean {
  return [...result.redirects, result.url].every((u) => {
    try {
      return CN_HOSTS.has(new URL(u).hostname.toLowerCase());
    } catch {
      return false;
    }
  });
}

/** Media type of CSL-JSON for content negotiation. */
export const CSL_JSON = "application/vnd.citationstyles.csl+json";
/** Media type (with style) of the APA citation for content negotiation. */
export const APA_CITATION = "text/x-bibliography; style=apa";

async function negotiate(
  doi: string,
  accept: string,
  signal?: AbortSignal,
): Promise<Outcome<FetchResult>> {
  const what = `doi.org (content negotiation for ${doi})`;
  const got = await get(doiUrl(doi), accept, signal, what);
  if (!got.ok) return got;
  if (!negotiatedHostOk(got.value)) {
    return failure(
      "redirect",
      `${what} redirected outside doi.org, data.crosscite.org and api.crossref.org (to ${
        new URL(got.value.url).hostname
      }), so no metadata was taken from it`,
    );
  }
  return got;
}

/** A CSL-JSON item as doi.org serves it (fields used here). */
export interface CslItem {
  /** Any field. */
  [key: string]: unknown;
}

/** CSL-JSON of `doi` by doi.org content negotiation. */
export async function cslJson(doi: string, signal?: AbortSignal): Promise<Outcome<CslItem>> {
  const got = await negotiate(doi, CSL_JSON, signal);
  if (!got.ok) return got;
  const parsed = parseJson<CslItem>(got.value, `doi.org (CSL-JSON for ${doi})`);
  if (parsed.ok && Array.isArray(parsed.value)) {
    return failure("malformed", `doi.org (CSL-JSON for ${doi}) returned a list, not one item`);
  }
  return parsed;
}

/** The APA citation of `doi` from doi.org; undefined when unavailable. Never throws. */
export async function formattedCitation(
  doi: string,
  signal?: AbortSignal,
): Promise<string | undefined> {
  try {
    const parsed = parseDoi(doi);
    if (!parsed) return undefined;
    const got = await negotiate(parsed, APA_CITATION, signal);
    if (!got.ok) return undefined;
    const text = got.value.text().replace(/<[^>]*>/g, "")
      .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, decodeEntity).replace(/\s+/g, " ").trim();
    // An HTML page is not a citation (a landing page served on the allowed hosts).
    if (!text || got.value.contentType.includes("html") || text.length > 4000) return undefined;
    return text;
  } catch {
    return undefined;
  }
}

const agencies = new Map<string, string>();
const MAX_AGENCIES = 10_000;

/**
 * Registration agency of `doi`'s prefix (`Crossref`, `DataCite`, `mEDRA`,
 * ...) from doi.org, cached per prefix; `not_found` when doi.org says the
 * prefix or DOI does not exist.
 */
export async function registrationAgency(
  doi: string,
  signal?: AbortSignal,
): Promise<Outcome<string>> {
  const prefix = doi.slice(0, doi.indexOf("/"));
  const cached = agencies.get(prefix);
  if (cached) return { ok: true, value: cached };
  const what = `doi.org (registration agency of ${prefix})`;
  const got = await get(
    `https://doi.org/doiRA/${encodeURIComponent(prefix)}`,
    "application/json",
    signal,
    what,
  );
  if (!got.ok) return got;
  let body: unknown;
  try {
    body = got.value.json();
  } catch {
    return failure("malformed", `${what} returned malformed JSON`);
  }
  const first = Array.isArray(body) ? body[0] as Record<string, unknown> | undefined : undefined;
  if (!first || typeof first !== "object") {
    return failure("malformed", `${what} returned an unexpected shape`);
  }
  if (typeof first.RA === "string" && /^[A-Za-z][A-Za-z0-9 ._-]{0,40}$/.test(first.RA)) {
    if (agencies.size >= MAX_AGENCIES) agencies.clear();
    agencies.set(prefix, first.RA);
    return { ok: true, value: first.RA };
  }
  if (typeof first.status === "string" && /does not exist|invalid/i.test(first.status)) {
    return failure("not_found", `doi.org knows no DOI prefix ${prefix}`);
  }
  return failure("malformed", `${what} named no agency`);
}

// ---------------------------------------------------------------------------
// CrossRef and DataCite records.

const CROSSREF_RELATIONS = ["is-preprint-of", "has-preprint", "is-version-of", "has-version"];
const MAX_RELATED = 10;

/** Enrichment from a CrossRef work (`message` of `/works/<doi>`). */
export function crossrefEnrichment(work: Record<string, unknown>): Enrichment {
  const out: Enrichment = { relations: {}, agency: "Crossref" };
  Object.assign(out, updatesOf(work["updated-by"]));
  const targets: UpdateTarget[] = [];
  for (const entry of Array.isArray(work["update-to"]) ? work["update-to"] : []) {
    const n = notice(entry);
    if (n) targets.push({ kind: n.kind, targetDoi: n.doi, date: n.date });
  }
  if (targets.length > 0) out.updateTo = targets.slice(0, MAX_RELATED);
  const relation = work.relation as Record<string, unknown> | undefined;
  if (relation && typeof relation === "object") {
    for (const key of CROSSREF_RELATIONS) {
      const items = Array.isArray(relation[key]) ? relation[key] as unknown[] : [];
      const dois = items.flatMap((item) => {
        const r = item as Record<string, unknown>;
        if (!r || String(r["id-type"]).toLowerCase() !== "doi") return [];
        const doi = validDoi(r.id);
        return doi ? [doi] : [];
      });
      if (dois.length > 0) out.relations[key.replaceAll("-", "_")] = [...new Set(dois)];
    }
  }
  const licenses = Array.isArray(work.license) ? work.license as Record<string, unknown>[] : [];
  const license = licenses.find((l) => l?.["content-version"] === "vor") ?? licenses[0];
  const licenseUrl = httpUrl(license?.URL);
  if (licenseUrl) out.license = out.licenseUrl = licenseUrl;
  const cited = work["is-referenced-by-count"];
  if (typeof cited === "number" && Number.isInteger(cited) && cited >= 0) out.citedBy = cited;
  if (typeof work.type === "string" && /^[a-z][a-z-]{0,40}$/.test(work.type)) out.type = work.type;
  const orcids: Record<string, string> = {};
  for (const a of Array.isArray(work.author) ? work.author as Record<string, unknown>[] : []) {
    const id = orcidOf(a?.ORCID);
    const name = personName(a?.family, a?.given, a?.name);
    if (id && name) orcids[name] = id;
  }
  if (Object.keys(orcids).length > 0) out.orcids = orcids;
  return out;
}

/** Enrichment from a DataCite DOI record (`data.attributes` of `/dois/<doi>`). */
export function dataciteEnrichment(attributes: Record<string, unknown>): Enrichment {
  const out: Enrichment = { relations: {}, agency: "DataCite" };
  const orcids: Record<string, string> = {};
  for (const c of Array.isArray(attributes.creators) ? attributes.creators : []) {
    const creator = c as Record<string, unknown>;
    const ids = Array.isArray(creator?.nameIdentifiers) ? creator.nameIdentifiers : [];
    const orcid = ids.map((i: Record<string, unknown>) =>
      String(i?.nameIdentifierScheme).toUpperCase() === "ORCID"
        ? orcidOf(i?.nameIdentifier)
        : undefined
    ).find((id) => id !== undefined);
    const name = personName(creator?.familyName, creator?.givenName, creator?.name);
    if (orcid && name) orcids[name] = orcid;
  }
  if (Object.keys(orcids).length > 0) out.orcids = orcids;
  const rights = (Array.isArray(attributes.rightsList) ? attributes.rightsList : []) as Record<
    string,
    unknown
  >[];
  const spdx = rights.find((r) => String(r?.rightsIdentifierScheme).toUpperCase() === "SPDX");
  const spdxId = typeof spdx?.rightsIdentifier === "string" &&
      /^[A-Za-z0-9][A-Za-z0-9.+-]{0,63}$/.test(spdx.rightsIdentifier)
    ? spdx.rightsIdentifier
    : undefined;
  const withUri = spdx && httpUrl(spdx.rightsUri)
    ? spdx
    : rights.find((r) => httpUrl(r?.rightsUri));
  const licenseUrl = httpUrl(withUri?.rightsUri);
  if (licenseUrl) out.licenseUrl = licenseUrl;
  out.license = spdxId ?? licenseUrl;
  if (!out.license) delete out.license;
  let count = 0;
  for (
    const r of Array.isArray(attributes.relatedIdentifiers) ? attributes.relatedIdentifiers : []
  ) {
    if (count >= MAX_RELATED) break;
    const rel = r as Record<string, unknown>;
    if (String(rel?.relatedIdentifierType).toUpperCase() !== "DOI") continue;
    if (typeof rel.relationType !== "string" || !/^[A-Za-z]{2,40}$/.test(rel.relationType)) {
      continue;
    }
    const doi = validDoi(rel.relatedIdentifier);
    if (!doi) continue;
    const key = snake(rel.relationType);
    (out.relations[key] ??= []).includes(doi) || out.relations[key].push(doi);
    count++;
  }
  const types = attributes.types as Record<string, unknown> | undefined;
  const general = types?.resourceTypeGeneral;
  if (typeof general === "string" && /^[A-Za-z]{2,40}$/.test(general)) out.type = general;
  return out;
}

/** The CrossRef work record of `doi`. */
export async function crossrefWork(
  doi: string,
  signal?: AbortSignal,
): Promise<Outcome<Record<string, unknown>>> {
  const what = `api.crossref.org (work ${doi})`;
  const got = await get(
    `https://api.crossref.org/works/${doiPath(doi)}`,
    "application/json",
    signal,
    what,
  );
  if (!got.ok) return got;
  const parsed = parseJson<{ message?: Record<string, unknown> }>(got.value, what);
  if (!parsed.ok) return parsed;
  const message = parsed.value.message;
  if (!message || typeof message !== "object") {
    return failure("malformed", `${what} returned no work record`);
  }
  return { ok: true, value: message };
}

/** The DataCite record (`data.attributes`) of `doi`. */
export async function dataciteRecord(
  doi: string,
  signal?: AbortSignal,
): Promise<Outcome<Record<string, unknown>>> {
  const what = `api.datacite.org (DOI ${doi})`;
  const got = await get(
    `https://api.datacite.org/dois/${doiPath(doi)}`,
    "application/vnd.api+json",
    signal,
    what,
  );
  if (!got.ok) return got;
  const parsed = parseJson<{ data?: { attributes?: Record<string, unknown> } }>(got.value, what);
  if (!parsed.ok) return parsed;
  const attributes = parsed.value.data?.attributes;
  if (!attributes || typeof attributes !== "object") {
    return failure("malformed", `${what} returned no DOI record`);
  }
  return { ok: true, value: attributes };
}

/**
 * Enrichment of `doi` with the reason when there is none: DataCite DOIs
 * from DataCite, other agencies nothing, Crossref (or an unknown agency)
 * from CrossRef.
 */
export async function enrichment(doi: string, signal?: AbortSignal): Promise<Outcome<Enrichment>> {
  const agency = await registrationAgency(doi, signal);
  if (!agency.ok && agency.reason === "not_found") return agency;
  const ra = agency.ok ? agency.value.toLowerCase() : "crossref";
  if (ra === "datacite") {
    const record = await dataciteRecord(doi, signal);
    return record.ok ? { ok: true, value: dataciteEnrichment(record.value) } : record;
  }
  if (ra !== "crossref") {
    return failure("not_found", `${doi} is registered with ${agency.ok ? agency.value : ra}`);
  }
  const work = await crossrefWork(doi, signal);
  return work.ok ? { ok: true, value: crossrefEnrichment(work.value) } : work;
}

/** CrossRef/DataCite enrichment of `doi`; undefined when unavailable. Never throws. */
export async function enrichDoi(
  doi: string,
  signal?: AbortSignal,
): Promise<Enrichment | undefined> {
  try {
    const parsed = parseDoi(doi);
    if (!parsed) return undefined;
    const got = await enrichment(parsed, signal);
    return got.ok ? got.value : undefined;
  } catch {
    return undefined;
  }
}

/** Title, authors and other display fields of a CSL item (page text: fence only). */
export function cslText(item: CslItem, field: string): string | undefined {
  return str(item[field]);
}
