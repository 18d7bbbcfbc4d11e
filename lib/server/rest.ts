/**
 * The HTTP API served beside `/mcp` by `serve --http`: pages as Markdown for
 * programs, one web-standard `Request -> Response` handler.
 *
 * | path            | what                                                          |
 * | --------------- | ------------------------------------------------------------- |
 * | `/api`          | a page (or a view of it) as Markdown, plain text or JSON      |
 * | `/api/sections` | a page's outline, Markdown or JSON                            |
 * | `/api/stream`   | `/api` as server-sent events: `status`... then `result`/`error` |
 * | `/healthz`      | `{status: "ok", version}`                                     |
 * | `/openapi.json` | the OpenAPI 3.1 description ({@link openApiDocument})         |
 *
 * Every page goes through {@link loadDocument}, so the REST API shares the
 * page cache with the MCP tools: several questions about one URL within the
 * hour cost one upstream fetch. Views are the ones the tools use (sections by
 * {@link findSections}, BM25 search, slices, query-scoped extraction), but
 * the body is raw Markdown: no envelope, no fence. `frontmatter=true` adds a
 * block of trusted values built by the one {@link Frontmatter} builder.
 *
 * Failures are JSON `{"error": "<what happened and what to try>", "kind":
 * "<category>"}` with a status that says who is at fault: 400 for the
 * request, 403 for a refused address, 404/410 when the page does not exist
 * upstream, 415/422 for content that cannot be read, 502 for other upstream
 * failures (including pages over the size cap), 504 for upstream timeouts.
 *
 * The gates (Host, Origin, bearer token) are applied in `http.ts` before
 * this handler runs.
 *
 * @module
 */
import { ConfigError } from "../config.ts";
import type { Document } from "../content/document.ts";
import {
  extractForQuery,
  QUERY_DEFAULT_TOKENS,
  QUERY_MAX_TOKENS,
  QUERY_MIN_TOKENS,
  type QueryExtraction,
} from "../content/query_extract.ts";
import { htmlToText } from "../content/text.ts";
import {
  cutToBudget,
  findSections,
  outlineView,
  renderSlices,
  sectionsView,
  sliceEntries,
} from "../content/views.ts";
import { envelopeReady, Frontmatter } from "../envelope/frontmatter.ts";
import { trusted } from "../envelope/trusted.ts";
import { NetError } from "../net/errors.ts";
import { DEFAULT_MAX_BYTES, LARGE_MAX_BYTES } from "../net/fetch.ts";
import { log } from "../log.ts";
import { loadDocument, recount, sourceName } from "../sources/router.ts";
import type { LoadStage } from "../sources/web.ts";
import {
  CONTENT_KINDS,
  DROPPED_NOTE_SHARE,
  type Loader,
  type PageUrl,
  pageUrl,
  setExtractFields,
} from "../tools/page_view.ts";
import { DEFAULT_MAX_TOKENS } from "../tools/web_fetch_incisive.ts";
import { VERSION } from "../version.ts";
import { openApiDocument } from "./openapi.ts";
import { markdownToText } from "../content/plain_text.ts";

/** The paths this handler serves. */
export const REST_PATHS = [
  "/api",
  "/api/sections",
  "/api/stream",
  "/healthz",
  "/openapi.json",
] as const;
/** One of {@link REST_PATHS}. */
export type RestPath = typeof REST_PATHS[number];

/** Paths served without the bearer token (the Host and Origin gates still apply). */
export const TOKEN_FREE_PATHS: ReadonlySet<string> = new Set<string>(["/healthz"]);

/** Methods the REST paths answer; anything else gets 405 with `Allow`. */
export const REST_METHODS = ["GET", "HEAD"] as const;

/** The REST path a request path names (one trailing slash tolerated), or undefined. */
export function restPath(pathname: string): RestPath | undefined {
  const path = pathname.length > 1 && pathname.endsWith("/") ? pathname.slice(0, -1) : pathname;
  return (REST_PATHS as readonly string[]).includes(path) ? path as RestPath : undefined;
}

/** Query parameters of `/api` and `/api/stream`. */
export const API_PARAMS = [
  "url",
  "query",
  "max_tokens",
  "section",
  "auto_expand",
  "search",
  "slices",
  "format",
  "frontmatter",
  "full_page",
] as const;
/** Query parameters of `/api/sections`. */
export const SECTIONS_PARAMS = ["url", "slice", "format", "full_page"] as const;

/** Output formats of `/api`. */
export const API_FORMATS = ["md", "text", "json"] as const;
/** Output formats of `/api/sections`. */
export const SECTIONS_FORMATS = ["md", "json"] as const;

/** The views of `/api`; at most one per request. */
export const VIEWS = ["page", "query", "section", "search", "slices"] as const;
type ViewKind = typeof VIEWS[number];

/** Settings of {@link createRestApi}. */
export interface RestOptions {
  /** Loads a page; the router's {@link loadDocument} (cache, sources, web) by default. */
  load?: Loader;
  /** The source adapter name for a URL; the router's by default. */
  sourceOf?: (url: string) => string;
  /** Version reported by `/healthz` and `/openapi.json`. */
  version?: string;
}

/** The REST API: a web-standard handler. */
export interface RestApi {
  /** Answers a request for one of {@link REST_PATHS} (others get 404). */
  fetch(request: Request): Promise<Response>;
}

/** A failure with its HTTP status; the message says what happened and what to try. */
export class ApiError extends Error {
  /** HTTP status. */
  readonly status: number;
  /** Category, for programs (`bad_request`, `blocked_address`, `status`, ...). */
  readonly kind: string;
  /** Extra fields of the JSON body. */
  readonly extra: Record<string, unknown>;

  /** Creates the error. */
  constructor(status: number, kind: string, message: string, extra: Record<string, unknown> = {}) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.kind = kind;
    this.extra = extra;
  }
}

const SECURITY_HEADERS = { "x-content-type-options": "nosniff" };
const JSON_TYPE = "application/json";
const MARKDOWN_TYPE = "text/markdown; charset=utf-8";
const TEXT_TYPE = "text/plain; charset=utf-8";
const UPSTREAM_EXCERPT_CHARS = 600;

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": JSON_TYPE, ...SECURITY_HEADERS, ...headers },
  });
}

/** The JSON error response for a failure. */
export function errorResponse(error: ApiError): Response {
  return json(error.status, { error: error.message, kind: error.kind, ...error.extra });
}

function upstreamExcerpt(remote: NetError["remote"]): string | undefined {
  if (!remote?.body) return undefined;
  const isHtml = /html/i.test(remote.contentType ?? "") ||
    /^\s*<(?:!doctype|html|head|body)/i.test(remote.body);
  let text = isHtml ? htmlToText(remote.body) : remote.body.trim();
  if (text.length > UPSTREAM_EXCERPT_CHARS) {
    text = text.slice(0, UPSTREAM_EXCERPT_CHARS).trimEnd() + " …";
  }
  return text || undefined;
}

/**
 * The status and body for any failure while serving a page:
 *
 * | failure                                          | status |
 * | ------------------------------------------------ | ------ |
 * | invalid URL, scheme other than http(s), credentials | 400 |
 * | address refused (private, loopback, metadata...) | 403    |
 * | upstream 404 / 410                               | 404 / 410 |
 * | any other upstream status                        | 502    |
 * | page over the byte cap                           | 502    |
 * | DNS, redirect, transport failures                | 502    |
 * | upstream deadline                                | 504    |
 * | a type that cannot be read as text               | 415    |
 * | content that could not be converted              | 422    |
 * | the client went away                             | 499    |
 * | a setting of this server is malformed (a key)    | 500    |
 * | anything else                                    | 500    |
 */
export function apiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof NetError) {
    switch (error.kind) {
      case "invalid_url":
      case "scheme":
      case "credentials":
        return new ApiError(400, error.kind, error.message);
      case "blocked_address":
        return new ApiError(403, error.kind, error.message);
      case "timeout":
        return new ApiError(504, error.kind, error.message);
      case "too_large":
        return new ApiError(
          502,
          error.kind,
          `${error.message} (the cap is 5 MiB for a whole page and 50 MiB with section, search, slices or query)`,
        );
      case "status": {
        const upstream = error.remote?.status;
        const status = upstream === 404 || upstream === 410 ? upstream : 502;
        return new ApiError(status, error.kind, `the page's server answered ${error.message}`, {
          upstream_status: upstream,
          upstream_excerpt: upstreamExcerpt(error.remote),
        });
      }
      default:
        return new ApiError(502, error.kind, error.message);
    }
  }
  if (error instanceof ConfigError) return new ApiError(500, "configuration", error.message);
  if (error instanceof Error && error.name === "ContentError") {
    const unsupported = /cannot be read as text/.test(error.message);
    return new ApiError(
      unsupported ? 415 : 422,
      unsupported ? "unsupported_type" : "unreadable_content",
      error.message,
    );
  }
  if (error instanceof DOMException && error.name === "AbortError") {
    return new ApiError(499, "cancelled", "the request was cancelled before it finished");
  }
  log("error", "REST handler failed", error);
  const message = error instanceof Error ? error.message : String(error);
  return new ApiError(
    500,
    "internal",
    `the request failed unexpectedly (${message}); retry once, and report it with the URL if it fails again`,
  );
}

// ---------------------------------------------------------------------------
// Parameters

function badRequest(message: string): ApiError {
  return new ApiError(400, "bad_request", message);
}

function single(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) {
    throw badRequest(`give ${name} once (it was given ${values.length} times)`);
  }
  return values[0];
}

function flag(params: URLSearchParams, name: string): boolean {
  const value = single(params, name)?.trim().toLowerCase();
  if (value === undefined) return false;
  if (value === "true" || value === "1" || value === "yes" || value === "") return true;
  if (value === "false" || value === "0" || value === "no") return false;
  throw badRequest(`${name} must be true or false (also 1 or 0)`);
}

function choice<T extends string>(
  params: URLSearchParams,
  name: string,
  allowed: readonly T[],
  fallback: T,
): T {
  const raw = single(params, name)?.trim().toLowerCase();
  if (raw === undefined || raw === "") return fallback;
  const value = raw === "markdown" ? "md" : raw;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw badRequest(`${name} must be one of ${allowed.join(", ")} (got '${raw.slice(0, 40)}')`);
}

function pageUrlParam(params: URLSearchParams): PageUrl {
  const raw = single(params, "url")?.trim();
  if (!raw) {
    throw new ApiError(
      400,
      "missing_url",
      "missing url: pass the page address as ?url=<http(s) URL, URL-encoded>",
    );
  }
  try {
    return pageUrl(raw);
  } catch (error) {
    throw apiError(error);
  }
}

/** The view a request asks for. */
type View =
  | { kind: "page" }
  | { kind: "query"; query: string }
  | { kind: "section"; names: string[]; autoExpand: boolean }
  | { kind: "search"; query: string }
  | { kind: "slices"; indexes: number[] };

/** A parsed `/api` (or `/api/stream`) request. */
interface PageRequest {
  url: PageUrl;
  view: View;
  maxTokens?: number;
  format: typeof API_FORMATS[number];
  frontmatter: boolean;
  fullPage: boolean;
}

function parseMaxTokens(params: URLSearchParams): number | undefined {
  const raw = single(params, "max_tokens")?.trim();
  if (raw === undefined || raw === "") return undefined;
  const value = /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
  if (!(value >= QUERY_MIN_TOKENS && value <= QUERY_MAX_TOKENS)) {
    throw new ApiError(
      400,
      "bad_max_tokens",
      `max_tokens must be a whole number from ${QUERY_MIN_TOKENS} to ${QUERY_MAX_TOKENS} (got '${
        raw.slice(0, 40)
      }'); leave it out for the default (${QUERY_DEFAULT_TOKENS} with query, the whole text otherwise)`,
    );
  }
  return value;
}

function parseSlices(raw: string): number[] {
  const parts = raw.split(",").map((x) => x.trim()).filter(Boolean);
  if (parts.length > 100) throw badRequest("slices takes at most 100 indexes per request");
  return parts.map((x) => {
    if (!/^-?\d{1,9}$/.test(x)) {
      throw badRequest(
        `slices must be comma-separated whole numbers such as 3,4,5 (got '${x.slice(0, 40)}')`,
      );
    }
    return Number(x);
  });
}

function parsePageRequest(params: URLSearchParams): PageRequest {
  const url = pageUrlParam(params);
  const format = choice(params, "format", API_FORMATS, "md");
  const frontmatter = flag(params, "frontmatter");
  const fullPage = flag(params, "full_page");
  const maxTokens = parseMaxTokens(params);
  const query = single(params, "query")?.trim() || undefined;
  const search = single(params, "search")?.trim() || undefined;
  const slicesRaw = single(params, "slices")?.trim() || undefined;
  const sections = params.getAll("section").map((s) => s.trim()).filter(Boolean);
  const given = [
    query !== undefined && "query",
    sections.length > 0 && "section",
    search !== undefined && "search",
    slicesRaw !== undefined && "slices",
  ].filter((x): x is string => typeof x === "string");
  if (given.length > 1) {
    throw new ApiError(
      400,
      "conflicting_views",
      `${
        given.join(" and ")
      } cannot be combined: use one of query, section, search or slices per request`,
    );
  }
  if (search !== undefined && search.length > 2000) {
    throw badRequest("search is limited to 2000 characters");
  }
  if (query !== undefined && query.length > 2000) {
    throw badRequest("query is limited to 2000 characters");
  }
  if (sections.length > 50) throw badRequest("section can be given at most 50 times");
  let view: View;
  if (query !== undefined) view = { kind: "query", query };
  else if (search !== undefined) view = { kind: "search", query: search };
  else if (slicesRaw !== undefined) view = { kind: "slices", indexes: parseSlices(slicesRaw) };
  else if (sections.length > 0 || url.fragment !== undefined) {
    // A URL #fragment is a section request when no view is given.
    view = {
      kind: "section",
      names: sections.length > 0 ? sections : [url.fragment!],
      autoExpand: flag(params, "auto_expand"),
    };
  } else view = { kind: "page" };
  return { url, view, maxTokens, format, frontmatter, fullPage };
}

// ---------------------------------------------------------------------------
// Views

/** What a view produced, before it is formatted. */
interface ViewOutcome {
  kind: ViewKind;
  markdown: string;
  cut?: { totalTokens: number; keptTokens: number };
  extract?: QueryExtraction;
  query?: string;
  sectionsReturned?: number[];
  sectionsNotFound?: { request: string; suggestions: string[] }[];
  matchedSlices?: number[];
  shownSlices?: number[];
  searchWarnings?: string[];
  slicesNotFound?: number[];
  totalSlices?: number;
}

function noText(doc: Document, page: string): ApiError {
  return doc.jsShell
    ? new ApiError(
      422,
      "javascript_shell",
      `${page} builds its content with JavaScript and has no text of its own; the renderer is not available yet in this version: look for a static version of the page or its API`,
    )
    : new ApiError(
      422,
      "no_text",
      `no text could be extracted from ${page}; the page may be an image, a form or empty`,
    );
}

function buildView(doc: Document, req: PageRequest): ViewOutcome {
  const view = req.view;
  switch (view.kind) {
    case "page": {
      if (req.maxTokens === undefined) return { kind: "page", markdown: doc.markdown };
      const cut = cutToBudget(doc.markdown, req.maxTokens);
      return {
        kind: "page",
        markdown: cut.text,
        cut: cut.truncated
          ? { totalTokens: cut.totalTokens, keptTokens: cut.keptTokens }
          : undefined,
      };
    }
    case "query": {
      const extract = extractForQuery(doc, view.query, req.maxTokens ?? QUERY_DEFAULT_TOKENS);
      return { kind: "query", markdown: extract.text, extract, query: view.query };
    }
    case "section": {
      const lookups = findSections(doc, view.names);
      const found = lookups.filter((l) => l.index !== undefined).map((l) => l.index!);
      const notFound = lookups.filter((l) => l.index === undefined).map((l) => ({
        request: l.request,
        suggestions: l.suggestions.map((i) => doc.sections[i].title),
      }));
      if (found.length === 0) {
        const hints = notFound.map((m) =>
          m.suggestions.length > 0
            ? `'${m.request.slice(0, 120)}' (closest: ${m.suggestions.join("; ")})`
            : `'${m.request.slice(0, 120)}'`
        );
        throw new ApiError(
          404,
          "section_not_found",
          `no section matched ${
            hints.join(", ")
          }; list the page's sections with /api/sections?url=...`,
          { sections_not_found: notFound },
        );
      }
      const sections = sectionsView(doc, found, view.autoExpand);
      let markdown = sections.text;
      let cut: ViewOutcome["cut"];
      if (req.maxTokens !== undefined) {
        const c = cutToBudget(markdown, req.maxTokens);
        markdown = c.text;
        if (c.truncated) cut = { totalTokens: c.totalTokens, keptTokens: c.keptTokens };
      }
      return {
        kind: "section",
        markdown,
        cut,
        sectionsReturned: sections.returned,
        sectionsNotFound: notFound.length > 0 ? notFound : undefined,
      };
    }
    case "search": {
      const outcome = doc.index.search(view.query);
      const matched = outcome.hits.map((h) => h.index);
      const rendered = matched.length > 0
        ? renderSlices(sliceEntries(doc, matched), req.maxTokens ?? DEFAULT_MAX_TOKENS)
        : { text: "", shown: [] };
      return {
        kind: "search",
        markdown: rendered.text,
        query: view.query,
        matchedSlices: matched,
        shownSlices: rendered.shown,
        searchWarnings: outcome.warnings,
        totalSlices: doc.slices.length,
      };
    }
    case "slices": {
      const total = doc.slices.length;
      const resolved = view.indexes.map((i) => (i < 0 ? total + i : i));
      const valid = [...new Set(resolved.filter((i) => i >= 0 && i < total))];
      const invalid = view.indexes.filter((_, k) => resolved[k] < 0 || resolved[k] >= total);
      if (valid.length === 0) {
        throw new ApiError(
          404,
          "slice_not_found",
          `no such slice: valid indexes are 0 to ${
            Math.max(0, total - 1)
          } (or -1 to -${total} from the end)`,
          { slices_not_found: invalid, total_slices: total },
        );
      }
      const rendered = renderSlices(
        sliceEntries(doc, valid),
        req.maxTokens ?? Number.POSITIVE_INFINITY,
      );
      return {
        kind: "slices",
        markdown: rendered.text,
        shownSlices: rendered.shown,
        slicesNotFound: invalid.length > 0 ? invalid : undefined,
        totalSlices: total,
      };
    }
  }
}

// ---------------------------------------------------------------------------
// Output

/** Everything an answer is made of, whatever its format. */
interface PageAnswer {
  req: PageRequest;
  doc: Document;
  cached: boolean;
  source: string;
  outcome: ViewOutcome;
}

function frontmatterBlock(a: PageAnswer): string {
  const { req, doc, outcome } = a;
  const fm = new Frontmatter();
  fm.set("source", trusted.url(req.url.href));
  if (doc.url !== req.url.page) {
    try {
      fm.set("final_url", trusted.url(doc.url));
    } catch { /* not http(s) */ }
  }
  fm.set("adapter", trusted.matching(a.source, /^[a-z][a-z0-9_-]{0,39}$/));
  fm.set("content_type", trusted.oneOf(CONTENT_KINDS, doc.kind));
  fm.set("cached", a.cached);
  if (req.fullPage) fm.set("full_page", true);
  else if (doc.kind === "html" && doc.droppedShare >= DROPPED_NOTE_SHARE) {
    fm.set("dropped_text_share", Math.round(doc.droppedShare * 100) / 100);
  }
  fm.set("total_sections", doc.sections.length);
  fm.set("view", trusted.oneOf(VIEWS, outcome.kind));
  if (outcome.query !== undefined) {
    fm.set(outcome.kind === "search" ? "search" : "query", trusted.echo(outcome.query, 300));
  }
  const x = outcome.extract;
  if (x) {
    setExtractFields(fm, x);
    fm.set("returned_tokens", x.returnedTokens);
  }
  if (outcome.cut) {
    fm.set("truncated", true);
    fm.set("total_tokens", outcome.cut.totalTokens);
    fm.set("returned_tokens", outcome.cut.keptTokens);
  }
  if (outcome.sectionsReturned) fm.set("sections_returned", outcome.sectionsReturned);
  if (outcome.sectionsNotFound) {
    fm.set("sections_not_found", outcome.sectionsNotFound.map((m) => trusted.echo(m.request, 120)));
  }
  if (outcome.totalSlices !== undefined) fm.set("total_slices", outcome.totalSlices);
  if (outcome.matchedSlices) fm.set("matched_slices", outcome.matchedSlices);
  if (outcome.shownSlices) fm.set("shown_slices", outcome.shownSlices);
  if (outcome.slicesNotFound) fm.set("slices_not_found", outcome.slicesNotFound);
  if (doc.degraded) {
    fm.append(
      "warning",
      trusted
        .text`fetched through a proxy: the proxy resolved the host, so the private-address check could not be enforced`,
    );
  }
  return fm.render();
}

function snakeExtract(x: QueryExtraction): Record<string, unknown> {
  return {
    extracted: x.extracted,
    confidence: x.confidence,
    sections_selected: x.sectionsSelected,
    original_tokens: x.originalTokens,
    returned_tokens: x.returnedTokens,
  };
}

/** The body text of an answer: the view, as Markdown or plain text, after the frontmatter. */
function bodyText(a: PageAnswer, format: "md" | "text" | "json"): string {
  const text = format === "text" ? markdownToText(a.outcome.markdown) : a.outcome.markdown;
  return a.req.frontmatter ? `${frontmatterBlock(a)}\n\n${text}` : text;
}

/** The `format=json` record (also the data of the stream's `result` event). */
function record(a: PageAnswer): Record<string, unknown> {
  const { req, doc, outcome } = a;
  const out: Record<string, unknown> = {
    markdown: bodyText(a, "json"),
    title: doc.title || null,
    url: req.url.href,
  };
  if (doc.url !== req.url.page) out.final_url = doc.url;
  out.content_type = doc.kind;
  if (doc.contentType) out.media_type = doc.contentType;
  out.source = a.source;
  out.cached = a.cached;
  out.full_page = req.fullPage;
  out.total_sections = doc.sections.length;
  out.view = outcome.kind;
  if (outcome.query !== undefined) {
    out[outcome.kind === "search" ? "search" : "query"] = outcome.query;
  }
  if (outcome.extract) out.extract = snakeExtract(outcome.extract);
  if (outcome.cut) {
    out.truncated = true;
    out.total_tokens = outcome.cut.totalTokens;
    out.returned_tokens = outcome.cut.keptTokens;
  }
  if (outcome.sectionsReturned) out.sections_returned = outcome.sectionsReturned;
  if (outcome.sectionsNotFound) out.sections_not_found = outcome.sectionsNotFound;
  if (outcome.totalSlices !== undefined) out.total_slices = outcome.totalSlices;
  if (outcome.matchedSlices) out.matched_slices = outcome.matchedSlices;
  if (outcome.shownSlices) out.shown_slices = outcome.shownSlices;
  if (outcome.searchWarnings?.length) out.search_warnings = outcome.searchWarnings;
  if (outcome.slicesNotFound) out.slices_not_found = outcome.slicesNotFound;
  if (doc.kind === "html" && !req.fullPage) {
    out.dropped_text_share = Math.round(doc.droppedShare * 100) / 100;
  }
  if (doc.degraded) out.degraded = true;
  return out;
}

function answerHeaders(a: PageAnswer): Record<string, string> {
  const h: Record<string, string> = {
    "x-source": a.source,
    "x-cache": a.cached ? "hit" : "miss",
  };
  const x = a.outcome.extract;
  if (x) {
    h["x-extracted"] = String(x.extracted);
    if (x.confidence !== null) h["x-extract-confidence"] = x.confidence;
    h["x-extract-sections"] = String(x.sectionsSelected);
    h["x-extract-original-tokens"] = String(x.originalTokens);
    h["x-extract-returned-tokens"] = String(x.returnedTokens);
  }
  if (a.outcome.cut) h["x-truncated"] = "true";
  return h;
}

function pageResponse(a: PageAnswer): Response {
  const headers = { ...SECURITY_HEADERS, ...answerHeaders(a) };
  switch (a.req.format) {
    case "json":
      return json(200, record(a), headers);
    case "text":
      return new Response(bodyText(a, "text"), {
        headers: { "content-type": TEXT_TYPE, ...headers },
      });
    default:
      return new Response(bodyText(a, "md"), {
        headers: { "content-type": MARKDOWN_TYPE, ...headers },
      });
  }
}

// ---------------------------------------------------------------------------
// Handler

/** Builds the REST API. */
export function createRestApi(options: RestOptions = {}): RestApi {
  const load = options.load ?? loadDocument;
  const sourceOf = options.sourceOf ?? sourceName;
  const version = options.version ?? VERSION;
  // The source that made the Document (a forum page read through its API says so); the
  // URL's source when the Document came from the generic web path.
  const sourceOfDoc = (doc: Document, page: string): string =>
    doc.source !== "web" ? doc.source : sourceOf(page);

  async function answer(
    req: PageRequest,
    signal: AbortSignal,
    onStage?: (stage: LoadStage | "extracting") => void,
  ): Promise<PageAnswer> {
    const maxBytes = req.view.kind === "page" ? DEFAULT_MAX_BYTES : LARGE_MAX_BYTES;
    const { doc, cached } = await load(req.url.page, {
      maxBytes,
      signal,
      fullPage: req.fullPage,
      onStage,
    });
    signal.throwIfAborted();
    const source = sourceOfDoc(doc, req.url.page);
    if (doc.markdown.trim() === "") throw noText(doc, req.url.page);
    onStage?.("extracting");
    const outcome = buildView(doc, req);
    // Slices and the search index may have been built: let the cache count them.
    if (req.view.kind !== "page" && req.view.kind !== "section") {
      recount(req.url.page, doc, req.fullPage);
    }
    if (req.frontmatter) await envelopeReady();
    return { req, doc, cached, source, outcome };
  }

  async function api(request: Request): Promise<Response> {
    const req = parsePageRequest(new URL(request.url).searchParams);
    return pageResponse(await answer(req, request.signal));
  }

  async function sections(request: Request): Promise<Response> {
    const params = new URL(request.url).searchParams;
    const url = pageUrlParam(params);
    const format = choice(params, "format", SECTIONS_FORMATS, "md");
    const fullPage = flag(params, "full_page");
    const sliceRaw = single(params, "slice")?.trim();
    let slice: number | undefined;
    if (sliceRaw !== undefined && sliceRaw !== "") {
      if (!/^-?\d{1,9}$/.test(sliceRaw)) {
        throw badRequest(
          "slice must be a whole number: 0 for the first window of 100 sections, -1 for the last",
        );
      }
      slice = Number(sliceRaw);
    }
    const { doc, cached } = await load(url.page, {
      maxBytes: LARGE_MAX_BYTES,
      signal: request.signal,
      fullPage,
    });
    const source = sourceOfDoc(doc, url.page);
    if (doc.markdown.trim() === "") throw noText(doc, url.page);
    const total = doc.sections.length;
    // Without slice, the whole outline in one window; with it, windows of 100 as the tool shows.
    const view = slice === undefined
      ? outlineView(doc, 0, Math.max(1, total))
      : outlineView(doc, slice);
    const headers = {
      ...SECURITY_HEADERS,
      "x-source": source,
      "x-cache": cached ? "hit" : "miss",
      "x-total-sections": String(total),
    };
    if (format === "json") {
      const shown = slice === undefined
        ? doc.sections
        : doc.sections.slice(view.first, view.first + 100);
      const body: Record<string, unknown> = {
        url: url.href,
        title: doc.title || null,
      };
      if (doc.url !== url.page) body.final_url = doc.url;
      Object.assign(body, {
        content_type: doc.kind,
        source,
        cached,
        full_page: fullPage,
        total_sections: total,
      });
      if (slice !== undefined) {
        Object.assign(body, { slice: view.window, total_slices: view.windows });
        if (view.clampedFrom !== undefined) body.clamped_from = view.clampedFrom;
      }
      body.sections = shown.map((s) => ({
        index: s.index,
        level: s.level,
        title: s.title,
        address: `#${s.id ?? s.slug}`,
        slug: s.slug,
        id: s.id ?? null,
        parent: s.parent,
        header_only: s.headerOnly,
      }));
      return json(200, body, headers);
    }
    return new Response(view.lines.join("\n"), {
      headers: { "content-type": MARKDOWN_TYPE, ...headers },
    });
  }

  function stream(request: Request): Response {
    const req = parsePageRequest(new URL(request.url).searchParams);
    const headers = {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      "x-accel-buffering": "no",
      ...SECURITY_HEADERS,
    };
    if (request.method === "HEAD") return new Response(null, { headers });
    const stop = new AbortController();
    const signal = AbortSignal.any([request.signal, stop.signal]);
    const encoder = new TextEncoder();
    let open = true;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        const send = (event: string, data: unknown) => {
          if (!open) return;
          try {
            controller.enqueue(
              encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`),
            );
          } catch {
            open = false;
          }
        };
        const close = () => {
          if (!open) return;
          open = false;
          try {
            controller.close();
          } catch { /* already closed */ }
        };
        (async () => {
          try {
            const a = await answer(req, signal, (stage) => {
              const data: Record<string, unknown> = { stage, url: req.url.page };
              if (stage === "extracting") data.view = req.view.kind;
              send("status", data);
            });
            send("result", record(a));
          } catch (error) {
            if (signal.aborted) return;
            const e = apiError(error);
            send("error", { error: e.message, status: e.status, kind: e.kind, ...e.extra });
          } finally {
            close();
          }
        })();
      },
      cancel() {
        open = false;
        stop.abort(new DOMException("the client closed the stream", "AbortError"));
      },
    });
    return new Response(body, { headers });
  }

  return {
    async fetch(request: Request): Promise<Response> {
      const path = restPath(new URL(request.url).pathname);
      if (path === undefined) {
        return json(404, { error: `no such path; the API serves ${REST_PATHS.join(", ")}` });
      }
      if (!(REST_METHODS as readonly string[]).includes(request.method)) {
        return json(
          405,
          {
            error: `${request.method} is not allowed on ${path}; use GET (or HEAD)`,
            kind: "method_not_allowed",
          },
          { allow: REST_METHODS.join(", ") },
        );
      }
      let response: Response;
      try {
        switch (path) {
          case "/healthz":
            response = json(200, { status: "ok", version });
            break;
          case "/openapi.json":
            response = json(200, openApiDocument(version));
            break;
          case "/api":
            response = await api(request);
            break;
          case "/api/sections":
            response = await sections(request);
            break;
          case "/api/stream":
            return stream(request);
        }
      } catch (error) {
        response = errorResponse(apiError(error));
      }
      if (request.method === "HEAD") {
        await response.body?.cancel();
        return new Response(null, { status: response.status, headers: response.headers });
      }
      return response;
    },
  };
}
