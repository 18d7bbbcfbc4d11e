/**
 * Kagi: the Search API v1, the Enrichment API (Teclis web and TinyGem news
 * indexes) and the Small Web feed, as lists of results. Summarising
 * endpoints (Universal Summarizer, FastGPT) are deliberately not here.
 *
 * - Search v1: `POST https://kagi.com/api/v1/search` with a JSON body
 *   `{query, limit, workflow?, lens_id?, page?, filters?: {region?, after?,
 *   before?}}` and `Authorization: Bearer <key>`. The answer's `data` is an
 *   object of arrays keyed by result type (`search`, `image`, `video`,
 *   `news`, `podcast`, `related_search`, …); items carry `url`, `title`,
 *   `snippet` (HTML highlights and entities) and an optional ISO `time`.
 *   Errors come as `{"errors": [{"code", "message"}]}`.
 * - Enrichment (v0): `GET https://kagi.com/api/v0/enrich/{web,news}?q=` with
 *   `Authorization: Bot <key>`; `data` is a flat list of `t: 0` results
 *   (`url`, `title`, `snippet`, `published`) and `t: 1` related searches;
 *   errors as `{"error": [{"code", "msg"}]}`.
 * - Small Web: `GET https://kagi.com/api/v1/smallweb/feed/?limit=N`, an
 *   Atom feed of recent posts from personal sites; no key needed.
 *
 * The key (`KAGI_API_KEY`, else the file `kagi_api_key` in the config
 * folder) is sent to kagi.com only and never logged or echoed. Searches are
 * billed per request, so nothing here retries.
 *
 * @module
 */
import { credential } from "../config.ts";
import { htmlToText } from "../content/html/text.ts";
import { defaultNet } from "../net/default.ts";
import { ToolError } from "../errors.ts";
import { NetError } from "../net/errors.ts";
import type { FetchResult } from "../net/fetch.ts";
import {
  childrenNamed,
  LENIENT_XML,
  parseXml,
  textOf,
  type XmlElement,
} from "../content/html/xml.ts";

/** The v1 search endpoint. */
export const KAGI_SEARCH_URL = "https://kagi.com/api/v1/search";
/** The Small Web feed. */
export const KAGI_SMALLWEB_URL = "https://kagi.com/api/v1/smallweb/feed/";
/** Where a user creates an API key. */
export const KAGI_KEY_PAGE = "https://kagi.com/settings?p=api";
/** Where a user adds API credit. */
export const KAGI_BILLING_PAGE = "https://kagi.com/settings?p=billing_api";

/** Workflows of the v1 search endpoint. */
export const SEARCH_WORKFLOWS = ["search", "images", "videos", "news", "podcasts"] as const;
/** Every workflow the tool offers. */
export const WORKFLOWS = [...SEARCH_WORKFLOWS, "enrich_web", "enrich_news", "small_web"] as const;
/** A workflow. */
export type Workflow = typeof WORKFLOWS[number];

/** The `data` key holding each v1 workflow's results. */
const RESULT_KEY: Record<typeof SEARCH_WORKFLOWS[number], string> = {
  search: "search",
  images: "image",
  videos: "video",
  news: "news",
  podcasts: "podcast",
};

/**
 * Region codes the v1 `filters.region` accepts: lowercase, case-sensitive
 * (`US` is refused upstream with `search.filters_region_invalid`).
 * `no_region` turns regional ranking off. `int` is left out: v1 rejects it.
 */
export const REGIONS: Readonly<Record<string, string>> = {
  no_region: "No region",
  ar: "Argentina",
  at: "Austria",
  au: "Australia",
  be: "Belgium (Dutch)",
  be_fr: "Belgium (French)",
  bg: "Bulgaria",
  br: "Brazil",
  ca: "Canada (English)",
  ca_fr: "Canada (French)",
  ch: "Switzerland (German)",
  ch_fr: "Switzerland (French)",
  cl: "Chile",
  cn: "China",
  co: "Colombia",
  cz: "Czech Republic",
  de: "Germany",
  dk: "Denmark",
  ee: "Estonia",
  es: "Spain",
  fi: "Finland",
  fr: "France",
  gb: "United Kingdom",
  gr: "Greece",
  hk: "Hong Kong",
  hr: "Croatia",
  hu: "Hungary",
  id: "Indonesia",
  ie: "Ireland",
  il: "Israel",
  in: "India",
  is: "Iceland",
  it: "Italy",
  jp: "Japan",
  kr: "South Korea",
  lt: "Lithuania",
  lv: "Latvia",
  mx: "Mexico",
  my: "Malaysia",
  ng: "Nigeria",
  nl: "Netherlands",
  no: "Norway",
  nz: "New Zealand",
  pe: "Peru",
  ph: "Philippines",
  pk: "Pakistan",
  pl: "Poland",
  pt: "Portugal",
  ro: "Romania",
  rs: "Serbia",
  ru: "Russia",
  sa: "Saudi Arabia",
  se: "Sweden",
  sg: "Singapore",
  si: "Slovenia",
  sk: "Slovakia",
  th: "Thailand",
  tr: "Turkey",
  tw: "Taiwan",
  ua: "Ukraine",
  us: "United States",
  vn: "Vietnam",
  za: "South Africa",
  zm: "Zambia",
};

/** One built-in lens. */
export interface Lens {
  /** Slug sent as `lens_id` (lowercase, spaces kept). */
  slug: string;
  /** What it searches. */
  about: string;
  /** Whether a Kagi account must switch it on before the API honours it. */
  activation: boolean;
}

/** Kagi's built-in lenses. */
export const LENSES: readonly Lens[] = [
  { slug: "forums", about: "discussion forums and Q&A sites", activation: false },
  {
    slug: "programming",
    about: "programming documentation, Q&A and code hosts",
    activation: false,
  },
  { slug: "news 360", about: "news from across the political spectrum", activation: false },
  { slug: "fediverse forums", about: "Lemmy, kbin and other fediverse forums", activation: false },
  { slug: "usenet/archive", about: "Usenet and archived discussions", activation: false },
  { slug: "academic", about: "scholarly papers and academic sites", activation: false },
  { slug: "pdfs", about: "PDF documents only", activation: false },
  { slug: "kagi documentation", about: "Kagi's own help pages", activation: false },
  { slug: "cyber security", about: "security research and advisories", activation: true },
  { slug: "small web", about: "personal, non-commercial sites", activation: true },
  { slug: "recipes", about: "recipe sites", activation: true },
];

/** A failed Kagi request, explained. */
export class KagiError extends Error {
  /** HTTP status, when there was an answer. */
  readonly status?: number;
  /** Kagi's own error text, upstream text for the fence. */
  readonly upstream?: string;
  /** Creates the error. */
  constructor(message: string, status?: number, upstream?: string) {
    super(message);
    this.name = "KagiError";
    this.status = status;
    this.upstream = upstream;
  }
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Checks a `YYYY-MM-DD` date naming a real day; returns it. */
export function checkDate(name: string, value: string): string {
  const m = DATE.exec(value);
  const valid = m !== null && (() => {
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
    const day = new Date(Date.UTC(y, mo - 1, d));
    return day.getUTCFullYear() === y && day.getUTCMonth() === mo - 1 && day.getUTCDate() === d;
  })();
  if (!valid) {
    throw new ToolError(
      `${name} must be a date written YYYY-MM-DD (e.g. 2024-05-01); got '${value.slice(0, 40)}'`,
    );
  }
  return value;
}

/** Checks a region code; the error lists every valid one. */
export function checkRegion(value: string): string {
  if (Object.hasOwn(REGIONS, value)) return value;
  const lower = value.toLowerCase();
  const close = Object.hasOwn(REGIONS, lower) ? ` (region codes are lowercase: '${lower}')` : "";
  throw new ToolError(
    `unknown region '${value.slice(0, 40)}'${close}. Valid regions: ${
      Object.keys(REGIONS).join(", ")
    } (the resource kagi://regions names them)`,
  );
}

const LENS_ID = /^[A-Za-z0-9_-]{16,64}$/;

/**
 * Checks a lens: a built-in slug (exact case), a shareable lens id, or a
 * kagi.com lens URL (its id is used). The error lists the built-in slugs.
 */
export function checkLens(value: string): string {
  const v = value.trim();
  if (LENSES.some((l) => l.slug === v)) return v;
  let id = v;
  try {
    const url = new URL(v);
    const m = /^\/lenses\/([^/]+)\/?$/.exec(url.pathname);
    if (url.hostname === "kagi.com" && m) id = decodeURIComponent(m[1]);
    else id = "";
  } catch {
    // not a URL: a slug or an id
  }
  // Shareable ids are long mixed tokens; a lowercase word is a misspelt slug.
  if (LENS_ID.test(id) && /[A-Z0-9]/.test(id)) return id;
  const builtIn = LENSES.find((l) => l.slug === v.toLowerCase());
  const hint = builtIn ? ` (built-in slugs are lowercase: '${builtIn.slug}')` : "";
  throw new ToolError(
    `unknown lens '${v.slice(0, 80)}'${hint}. Give a built-in lens (${
      LENSES.map((l) => `'${l.slug}'`).join(", ")
    }), a shareable lens id, or a https://kagi.com/lenses/<id> URL (the resource kagi://lenses describes them)`,
  );
}

/** The key, or undefined when none is configured. Never logged. */
export function kagiApiKey(): string | undefined {
  return credential("KAGI_API_KEY", "kagi_api_key");
}

/** One search result. */
export interface KagiResult {
  /** Result URL. */
  url: string;
  /** Title (upstream text). */
  title: string;
  /** Snippet as plain text (upstream text). */
  snippet: string;
  /** Publication or update time, ISO 8601, when given. */
  date?: string;
}

/** The results of one query. */
export interface KagiResults {
  /** Results in rank order. */
  results: KagiResult[];
  /** Related searches (upstream text). */
  related: string[];
}

/** What a v1 search sends. */
export interface SearchRequest {
  /** The query, operators included. */
  query: string;
  /** Workflow (search by default). */
  workflow: typeof SEARCH_WORKFLOWS[number];
  /** Page size. */
  limit: number;
  /** Page (1-10). */
  page?: number;
  /** Lens slug or id. */
  lens?: string;
  /** Region code. */
  region?: string;
  /** Earliest date. */
  after?: string;
  /** Latest date. */
  before?: string;
}

/** The v1 JSON body for a request. */
export function searchBody(request: SearchRequest): Record<string, unknown> {
  const body: Record<string, unknown> = { query: request.query, limit: request.limit };
  if (request.workflow !== "search") body.workflow = request.workflow;
  if (request.lens) body.lens_id = request.lens;
  if (request.page) body.page = request.page;
  const filters: Record<string, string> = {};
  if (request.region) filters.region = request.region;
  if (request.after) filters.after = request.after;
  if (request.before) filters.before = request.before;
  if (Object.keys(filters).length > 0) body.filters = filters;
  return body;
}

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function plain(html: string): string {
  return htmlToText(html).replace(/\s+/g, " ").trim();
}

function isoDate(value: unknown): string | undefined {
  return typeof value === "string" && /^\d{4}-\d{2}-\d{2}/.test(value) ? value : undefined;
}

function httpUrl(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : undefined;
  } catch {
    return undefined;
  }
}

function result(item: Record<string, unknown>, dateField: string): KagiResult | undefined {
  const url = httpUrl(item.url);
  if (!url) return undefined;
  const r: KagiResult = { url, title: plain(str(item.title)), snippet: plain(str(item.snippet)) };
  const date = isoDate(item[dateField]);
  if (date) r.date = date;
  return r;
}

function parseJson(res: FetchResult, what: string): unknown {
  try {
    return res.json();
  } catch {
    throw new KagiError(
      `Kagi ${what} answered HTTP ${res.status} with a body that is not JSON; try again later`,
      res.status,
    );
  }
}

function upstreamErrors(body: unknown): { code: string; message: string }[] {
  if (!body || typeof body !== "object") return [];
  const o = body as Record<string, unknown>;
  const list = Array.isArray(o.errors) ? o.errors : Array.isArray(o.error) ? o.error : [];
  return list.filter((e): e is Record<string, unknown> => !!e && typeof e === "object").map((
    e,
  ) => ({
    code: String(e.code ?? ""),
    message: str(e.message) || str(e.msg),
  }));
}

function failure(res: FetchResult, what: string): KagiError {
  let body: unknown;
  try {
    body = res.json();
  } catch {
    body = undefined;
  }
  const errors = upstreamErrors(body);
  const codes = errors.map((e) => e.code.toLowerCase()).join(" ");
  const upstream = errors.map((e) => `${e.message}${e.code ? ` (${e.code})` : ""}`).join("; ") ||
    undefined;
  const s = res.status;
  if (s === 401 || codes.includes("unauthorized")) {
    return new KagiError(
      `Kagi refused the API key (HTTP ${s}): check KAGI_API_KEY or ~/.config/parkour/kagi_api_key, or create a new key at ${KAGI_KEY_PAGE}`,
      s,
      upstream,
    );
  }
  if (s === 402 || codes.includes("insufficient_credit") || codes.includes("billing")) {
    return new KagiError(
      `Kagi says the API balance is too low (HTTP ${s}); add credit at ${KAGI_BILLING_PAGE}, then try again`,
      s,
      upstream,
    );
  }
  if (s === 429) {
    const after = res.headers.get("retry-after");
    const wait = after && /^\d{1,5}$/.test(after) ? ` (Retry-After: ${after} s)` : "";
    return new KagiError(
      `Kagi is rate limiting this key (HTTP 429)${wait}; wait, then search again with fewer queries at once`,
      s,
      upstream,
    );
  }
  if (s >= 500) {
    return new KagiError(
      `Kagi ${what} failed on its side (HTTP ${s}); try again later`,
      s,
      upstream,
    );
  }
  return new KagiError(
    `Kagi ${what} refused the request (HTTP ${s})${
      upstream ? "; its explanation is in the fenced text" : ""
    }; check the query and filters`,
    s,
    upstream,
  );
}

async function send(
  url: string,
  init: { method: "GET" | "POST"; headers: Record<string, string>; body?: string },
  what: string,
  signal?: AbortSignal,
): Promise<FetchResult> {
  try {
    return await defaultNet().fetch(url, {
      ...init,
      retry: false,
      deadlineMs: 30_000,
      maxBytes: 4 * 1024 * 1024,
      signal,
    });
  } catch (error) {
    if (error instanceof NetError && error.kind === "timeout") {
      throw new KagiError(`Kagi ${what} did not answer within 30 s; try again later`);
    }
    throw error;
  }
}

/** Runs one v1 search. */
export async function searchV1(
  request: SearchRequest,
  key: string,
  signal?: AbortSignal,
): Promise<KagiResults> {
  const res = await send(
    KAGI_SEARCH_URL,
    {
      method: "POST",
      headers: {
        "accept": "application/json",
        "content-type": "application/json",
        "authorization": `Bearer ${key}`,
      },
      body: JSON.stringify(searchBody(request)),
    },
    "search",
    signal,
  );
  if (res.status < 200 || res.status >= 300) throw failure(res, "search");
  const body = parseJson(res, "search");
  const errors = upstreamErrors(body);
  if (errors.length > 0 && !(body as Record<string, unknown>).data) throw failure(res, "search");
  const data = (body as Record<string, unknown> | null)?.data;
  if (!data || typeof data !== "object" || Array.isArray(data)) {
    throw new KagiError(
      "Kagi search answered without a data object (not the v1 shape); try again later",
      res.status,
    );
  }
  const d = data as Record<string, unknown>;
  const items = d[RESULT_KEY[request.workflow]];
  const results = (Array.isArray(items) ? items : [])
    .filter((i): i is Record<string, unknown> => !!i && typeof i === "object")
    .map((i) => result(i, "time"))
    .filter((r): r is KagiResult => r !== undefined).slice(0, request.limit);
  const related = (Array.isArray(d.related_search) ? d.related_search : [])
    .map((r) => plain(typeof r === "string" ? r : str((r as Record<string, unknown>)?.title)))
    .filter((t) => t !== "");
  return { results, related };
}

/** The enrichment URL for an index and query. */
export function enrichUrl(index: "web" | "news", query: string): string {
  const url = new URL(`https://kagi.com/api/v0/enrich/${index}`);
  url.searchParams.set("q", query);
  return url.href;
}

/** Queries an enrichment index (v0 shape). */
export async function enrich(
  index: "web" | "news",
  query: string,
  limit: number,
  key: string,
  signal?: AbortSignal,
): Promise<KagiResults> {
  const what = `enrichment (${index})`;
  const res = await send(
    enrichUrl(index, query),
    {
      method: "GET",
      headers: { "accept": "application/json", "authorization": `Bot ${key}` },
    },
    what,
    signal,
  );
  if (res.status < 200 || res.status >= 300) throw failure(res, what);
  const body = parseJson(res, what);
  const data = (body as Record<string, unknown> | null)?.data;
  if (!Array.isArray(data)) {
    if (upstreamErrors(body).length > 0) throw failure(res, what);
    throw new KagiError(`Kagi ${what} answered without a data list; try again later`, res.status);
  }
  const items = data.filter((i): i is Record<string, unknown> => !!i && typeof i === "object");
  const results = items.filter((i) => i.t === 0).map((i) => result(i, "published"))
    .filter((r): r is KagiResult => r !== undefined).slice(0, limit);
  const related = items.filter((i) => i.t === 1).flatMap((i) =>
    Array.isArray(i.list) ? i.list.map((t) => plain(str(t))).filter((t) => t !== "") : []
  );
  return { results, related };
}

function child(e: XmlElement, name: string): XmlElement | undefined {
  return childrenNamed(e, name)[0];
}

/** Reads the Small Web Atom feed. */
export function readSmallWebFeed(xml: string): KagiResult[] {
  let root: XmlElement;
  try {
    root = parseXml(xml, LENIENT_XML);
  } catch (error) {
    throw new KagiError(
      `the Kagi Small Web feed is not well-formed XML (${
        (error as Error).message
      }); try again later`,
    );
  }
  if (root.name !== "feed") {
    throw new KagiError("the Kagi Small Web feed is not an Atom feed; try again later");
  }
  return childrenNamed(root, "entry").map((entry) => {
    const links = childrenNamed(entry, "link");
    const link = links.find((l) => (l.attrs.rel ?? "alternate") === "alternate") ?? links[0];
    const url = httpUrl(link?.attrs.href);
    if (!url) return undefined;
    const r: KagiResult = {
      url,
      title: plain(textOf(child(entry, "title"))),
      snippet: plain(textOf(child(entry, "summary") ?? child(entry, "content"))).slice(0, 300),
    };
    const date = isoDate(textOf(child(entry, "published") ?? child(entry, "updated")));
    if (date) r.date = date;
    return r;
  }).filter((r): r is KagiResult => r !== undefined);
}

/** The Small Web feed's URL for a limit. */
export function smallWebUrl(limit: number): string {
  return `${KAGI_SMALLWEB_URL}?limit=${limit}`;
}

/** Fetches recent Small Web posts (no key needed). */
export async function smallWeb(limit: number, signal?: AbortSignal): Promise<KagiResults> {
  const res = await send(
    smallWebUrl(limit),
    {
      method: "GET",
      headers: { "accept": "application/atom+xml, application/xml;q=0.9" },
    },
    "Small Web feed",
    signal,
  );
  if (res.status < 200 || res.status >= 300) throw failure(res, "Small Web feed");
  return { results: readSmallWebFeed(res.text()).slice(0, limit), related: [] };
}
