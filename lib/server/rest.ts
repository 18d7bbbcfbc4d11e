/**
 * The HTTP API served beside `/mcp` by `serve --http`: pages as Markdown for
 * programs, one web-standard `Request -> Response` handler.
 *
 * | path            | what                                                          |
 * | --------------- | ------------------------------------------------------------- |
 * | `/api`          | a page (or a view of it) as Markdown, plain text or JSON      |
 * | `/api/sections` | a page's outline, Markdown or JSON                            |
 * | `/api/stream`   | `/api` as server-sent events: `status`... then `result`/`error` |
 * | `/healthz`      | `{status: "ok"|"degraded", version, stores?}`                 |
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
import { answerFirst } from "../runtime/memory.ts";
import { sharedStore } from "../net/shared.ts";
import { shelfHealth } from "../shelf/mod.ts";
import { z } from "zod";
import { ConfigError } from "../config.ts";
import { type Loader, loadWithinLimit, PageTooLarge } from "../views/limit.ts";
import type { Document } from "../content/document/document.ts";
import { htmlToText } from "../content/html/text.ts";
import { envelopeReady, Frontmatter } from "../envelope/frontmatter.ts";
import { trusted } from "../trust.ts";
import { NetError } from "../net/errors.ts";
import { ContentError, SourceError } from "../errors.ts";
import { tokenizerReady } from "../content/tokens/count.ts";
import { log } from "../log.ts";
import { loadDocument, ownsFragment, recount, sourceName } from "../sources/router.ts";
import type { Loaded, LoadOptions, LoadStage } from "../sources/source.ts";
import { type HintContext, readOutline, renderMessage } from "../hint.ts";
import { fillFrontmatter, pageHead, type PageUrl, pageUrl } from "../views/page.ts";
import {
  chooseView,
  fromText,
  OUTLINE_FIELDS,
  OUTLINE_WINDOW,
  PAGE_FIELDS,
  type PageRequest,
  param,
  parseWith,
  RequestError,
  strictSchema,
  unknownParameter,
  type ViewKind,
  VIEWS,
  viewUsesIndex,
} from "../views/request.ts";
import { outline, view, type ViewResult } from "../views/view.ts";
import { VERSION } from "../version.ts";
import { openApiDocument } from "./openapi.ts";
import { markdownToText } from "../content/document/plain_text.ts";

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

/** Output formats of `/api`. */
export const API_FORMATS = ["md", "text", "json"] as const;
/** Output formats of `/api/sections`. */
export const SECTIONS_FORMATS = ["md", "json"] as const;

/** The views of `/api`; at most one per request. */
export { VIEWS };

export type { Loader };

/** Settings of {@link createRestApi}. */
export interface RestOptions {
  /** Loads a page; the router's {@link loadDocument} (cache, sources, web) by default. */
  load?: Loader;
  /** The source adapter name for a URL; the router's by default. */
  sourceOf?: (url: string) => string;
  /** Version reported by `/healthz` and `/openapi.json`. */
  version?: string;
}

/**
 * The health report: the version and, when replicas share stores, whether
 * each answers. A store that is down makes the status `degraded`, not a
 * failure: the replica still serves from its own memory. Addresses are not
 * shown (the path needs no token).
 */
async function health(version: string): Promise<Record<string, unknown>> {
  const stores: Record<string, { kind: string; ok: boolean }> = {};
  const cache = sharedStore();
  if (cache) stores.cache = { kind: cache.kind, ok: (await cache.health()).ok };
  const shelf = shelfHealth();
  if (shelf) stores.shelf = { kind: "postgres", ok: (await shelf).ok };
  const ok = Object.values(stores).every((s) => s.ok);
  return Object.keys(stores).length === 0
    ? { status: "ok", version }
    : { status: ok ? "ok" : "degraded", version, stores };
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

function upstreamExcerpt(
  remote: { body?: string; contentType?: string } | undefined,
): string | undefined {
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
  if (error instanceof ContentError) {
    const kind = error.kind === "unreadable" ? "unreadable_content" : error.kind;
    return new ApiError(error.kind === "unsupported_type" ? 415 : 422, kind, error.message);
  }
  if (error instanceof SourceError && error.kind === "render") {
    return new ApiError(502, "render", error.message);
  }
  if (error instanceof SourceError) {
    const upstream = error.remote?.status;
    const status = upstream === 404 || upstream === 410 ? upstream : 502;
    return new ApiError(status, "source", error.message, {
      upstream_status: upstream,
      upstream_excerpt: upstreamExcerpt(error.remote),
    });
  }
  if (error instanceof ConfigError) return new ApiError(500, "configuration", error.message);
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
// Parameters: the request model's fields, parsed from the query string

function badRequest(message: string, kind = "bad_request"): ApiError {
  return new ApiError(400, kind, message);
}

function requestError(error: RequestError): ApiError {
  return badRequest(error.forFace("rest"), error.kind);
}

/** Reads a query string into a request, field by field, then checks it with `schema`. */
function parseParams<T>(
  params: URLSearchParams,
  schema: z.ZodType<T>,
  keys: readonly string[],
): T {
  const input: Record<string, unknown> = {};
  for (const name of new Set(params.keys())) {
    if (!keys.includes(name)) {
      throw badRequest(unknownParameter(name, keys, "rest"), "unknown_parameter");
    }
  }
  const raw = params.getAll("url").map((u) => u.trim());
  if (raw.length === 0 || raw.every((u) => u === "")) {
    throw new ApiError(
      400,
      "missing_url",
      "missing url: pass the page address as ?url=<http(s) URL, URL-encoded>",
    );
  }
  try {
    for (const key of keys) {
      const values = params.getAll(key);
      if (values.length === 0) continue;
      let value = fromText(key, values);
      if (key === "format" && typeof value === "string") {
        value = value.trim().toLowerCase() === "markdown" ? "md" : value.trim().toLowerCase();
      }
      // A blank view parameter counts as absent.
      if ((key === "query" || key === "search" || key === "slices") && value === "") continue;
      input[key] = value;
    }
    return parseWith(schema, input);
  } catch (error) {
    if (error instanceof RequestError) throw requestError(error);
    throw error;
  }
}

const formatField = (formats: readonly [string, ...string[]]) =>
  z.enum(formats, {
    error: (i) =>
      `${param("format")} must be one of ${formats.join(", ")} (got '${
        String(i.input).slice(0, 40)
      }')`,
  }).optional().describe(`output format: ${formats.join(", ")} (default md)`);

/** Fields of `/api` and `/api/stream`: the page request, an output format, a frontmatter switch. */
const { max_elements: _m, ...API_PAGE_FIELDS } = PAGE_FIELDS;
const API_FIELDS = {
  // The page request as the tools take it (rendering included); the interactive-elements list
  // is the tool's second fence, which the HTTP API's one body has no place for.
  ...API_PAGE_FIELDS,
  format: formatField(API_FORMATS),
  frontmatter: z.boolean({
    error: () => `${param("frontmatter")} must be true or false (also 1 or 0)`,
  })
    .optional().describe("start the body with a frontmatter block of trusted values"),
};
/** Fields of `/api/sections`. */
const SECTIONS_FIELDS = { ...OUTLINE_FIELDS, format: formatField(SECTIONS_FORMATS) };

/** The schema of `/api` (and `/api/stream`) parameters. */
export const apiSchema = strictSchema(API_FIELDS);
/** The schema of `/api/sections` parameters. */
export const sectionsSchema = strictSchema(SECTIONS_FIELDS);

/** Query parameters of `/api` and `/api/stream`. */
export const API_PARAMS: readonly string[] = Object.keys(API_FIELDS);
/** Query parameters of `/api/sections`. */
export const SECTIONS_PARAMS: readonly string[] = Object.keys(SECTIONS_FIELDS);

/** A parsed `/api` (or `/api/stream`) request. */
interface ApiRequest {
  url: PageUrl;
  page: Omit<PageRequest, "max_elements">;
  view: ViewKind;
  format: typeof API_FORMATS[number];
  frontmatter: boolean;
  fullPage: boolean;
}

function parsePageRequest(params: URLSearchParams): ApiRequest {
  const parsed = parseParams(params, apiSchema, API_PARAMS);
  const { format, frontmatter, ...page } = parsed;
  let url: PageUrl;
  try {
    url = pageUrl(page.url);
  } catch (error) {
    throw apiError(error);
  }
  let view: ViewKind;
  try {
    view = chooseView(page, url.fragment, ownsFragment(url.page, url.fragment)).view.kind;
  } catch (error) {
    if (error instanceof RequestError) throw requestError(error);
    throw error;
  }
  return {
    url,
    page,
    view,
    format: (format ?? "md") as typeof API_FORMATS[number],
    frontmatter: frontmatter ?? false,
    fullPage: page.full_page ?? false,
  };
}

// ---------------------------------------------------------------------------
// Answers

function noText(doc: Document, page: string): ApiError {
  return doc.jsShell
    ? new ApiError(
      422,
      "javascript_shell",
      `${page} builds its content with JavaScript and has no text of its own: render it with requires_js=true (the server needs the rendering permissions of start:render), or look for a static version or an API`,
    )
    : new ApiError(
      422,
      "no_text",
      `no text could be extracted from ${page}; the page may be an image, a form or empty`,
    );
}

/** The hints of an answer in REST terms. */
function restHints(url: PageUrl): HintContext {
  return { face: "rest", url: url.href };
}

/** A view that found nothing asked for, as an error with what to try. */
function notFoundError(doc: Document, req: ApiRequest, r: ViewResult): ApiError {
  if (r.kind === "section") {
    const notFound = (r.notFound ?? []).map((m) => ({
      request: m.request,
      suggestions: m.suggestions.map((i) => doc.sections[i].title),
    }));
    const hints = notFound.map((m) =>
      m.suggestions.length > 0
        ? `'${m.request.slice(0, 120)}' (closest: ${m.suggestions.join("; ")})`
        : `'${m.request.slice(0, 120)}'`
    );
    return new ApiError(
      404,
      "section_not_found",
      `no section matched ${hints.join(", ")}; list the page's sections with ${
        renderMessage({ kind: "hint", parts: [readOutline()] }, restHints(req.url))
      }`,
      { sections_not_found: notFound },
    );
  }
  const total = r.totalSlices ?? 0;
  return new ApiError(
    404,
    "slice_not_found",
    `no such slice: valid indexes are 0 to ${
      Math.max(0, total - 1)
    } (or -1 to -${total} from the end)`,
    { slices_not_found: r.slicesNotFound ?? [], total_slices: total },
  );
}

/** Everything an answer is made of, whatever its format. */
interface PageAnswer {
  req: ApiRequest;
  doc: Document;
  cached: boolean;
  source: string;
  result: ViewResult;
  /** The engine that rendered the page (requires_js or actions), if one did. */
  renderer?: string;
}

function frontmatterBlock(a: PageAnswer): string {
  const { req, doc, result } = a;
  const head = pageHead(req.url, doc, a.cached, req.fullPage);
  const fm = new Frontmatter();
  const ctx = restHints(req.url);
  fillFrontmatter(fm, head.facts, [], ctx);
  fm.set("adapter", trusted.matching(a.source, /^[a-z][a-z0-9_-]{0,39}$/));
  fm.set("cached", a.cached);
  fm.set("view", trusted.oneOf(VIEWS, result.kind === "outline" ? "page" : result.kind));
  fillFrontmatter(fm, result.facts, [...head.messages, ...result.messages], ctx);
  return fm.render();
}

function snakeExtract(x: NonNullable<ViewResult["extract"]>): Record<string, unknown> {
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
  const text = format === "text" ? markdownToText(a.result.body) : a.result.body;
  return a.req.frontmatter ? `${frontmatterBlock(a)}\n\n${text}` : text;
}

/** The `format=json` record (also the data of the stream's `result` event). */
function record(a: PageAnswer): Record<string, unknown> {
  const { req, doc, result: r } = a;
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
  out.view = r.kind;
  if (r.query !== undefined) out[r.kind === "search" ? "search" : "query"] = r.query;
  if (r.extract) out.extract = { ...snakeExtract(r.extract), returned_tokens: r.returnedTokens };
  if (r.cut) {
    out.truncated = true;
    out.total_tokens = r.cut.totalTokens;
  }
  out.returned_tokens = r.returnedTokens;
  if (r.sectionsReturned) out.sections_returned = r.sectionsReturned;
  if (r.notFound) {
    out.sections_not_found = r.notFound.map((m) => ({
      request: m.request,
      suggestions: m.suggestions.map((i) => doc.sections[i].title),
    }));
  }
  if (r.totalSlices !== undefined) out.total_slices = r.totalSlices;
  if (r.matchedSlices) out.matched_slices = r.matchedSlices;
  if (r.shownSlices) out.shown_slices = r.shownSlices;
  if (r.searchWarnings?.length) out.search_warnings = r.searchWarnings;
  if (r.slicesNotFound) out.slices_not_found = r.slicesNotFound;
  if (doc.kind === "html" && !req.fullPage) {
    out.dropped_text_share = Math.round(doc.droppedShare * 100) / 100;
  }
  if (doc.degraded) out.degraded = true;
  const ctx = restHints(req.url);
  const messages = r.messages.filter((m) => m.kind === "hint");
  if (messages.length > 0) out.hints = messages.map((m) => renderMessage(m, ctx));
  return out;
}

function answerHeaders(a: PageAnswer): Record<string, string> {
  const h: Record<string, string> = {
    "x-source": a.source,
    "x-cache": a.cached ? "hit" : "miss",
  };
  if (a.renderer) h["x-renderer"] = a.renderer;
  const x = a.result.extract;
  if (x) {
    h["x-extracted"] = String(x.extracted);
    if (x.confidence !== null) h["x-extract-confidence"] = x.confidence;
    h["x-extract-sections"] = String(x.sectionsSelected);
    h["x-extract-original-tokens"] = String(x.originalTokens);
    h["x-extract-returned-tokens"] = String(a.result.returnedTokens);
  }
  if (a.result.cut) h["x-truncated"] = "true";
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
    req: ApiRequest,
    signal: AbortSignal,
    onStage?: (stage: LoadStage | "extracting") => void,
  ): Promise<PageAnswer> {
    const loaded = await loadFor(req, signal, onStage);
    const { doc, cached } = loaded;
    signal.throwIfAborted();
    const source = sourceOfDoc(doc, req.url.page);
    if (doc.markdown.trim() === "") throw noText(doc, req.url.page);
    onStage?.("extracting");
    // Budgets hold in real tokens: the exact count checks what the view returns.
    await tokenizerReady();
    // Without max_tokens, the page view is the whole page: programs asked for its Markdown.
    const result = view(doc, req.page, {
      wholeByDefault: true,
      fragment: req.url.fragment,
      sourceOwnsFragment: ownsFragment(req.url.page, req.url.fragment),
    });
    // Slices and the search index may have been built: let the cache count them.
    if (result.grewIndex) recount(req.url.page, doc, req.fullPage);
    if (result.status === "not_found") throw notFoundError(doc, req, result);
    if (req.frontmatter) await envelopeReady();
    return { req, doc, cached, source, result, renderer: loaded.renderer };
  }

  /**
   * The Document for a request: rendered in the headless browser when it asks
   * for requires_js or actions (as the page tool does; a first-party
   * source's URL and a PDF are read without it), else from the cache or the web.
   */
  async function loadFor(
    req: ApiRequest,
    signal: AbortSignal,
    onStage?: (stage: LoadStage | "extracting") => void,
  ): Promise<Loaded & { renderer?: string }> {
    const actions = req.page.actions ?? [];
    if (req.page.requires_js === true || actions.length > 0) {
      const { loadRendered, renderOrSkip } = await import("../render/document.ts");
      let outcome;
      try {
        outcome = await renderOrSkip(req.url.page, () =>
          loadRendered(req.url.page, {
            actions,
            fullPage: req.fullPage,
            allowOffsite: req.page.allow_offsite ?? false,
            signal,
          }));
      } catch (error) {
        if (error instanceof ApiError || signal.aborted) throw error;
        throw new ApiError(502, "render", error instanceof Error ? error.message : String(error));
      }
      if ("rendered" in outcome) {
        const r = outcome.rendered;
        return { doc: r.doc, cached: r.cached, renderer: r.info.engine };
      }
    }
    return await loadWithin(req.url, req.page.max_page_mb, {
      signal,
      fullPage: req.fullPage,
      onStage,
      needsIndex: viewUsesIndex(req.view),
    });
  }

  /**
   * Loads a page within the call's limit (`max_page_mb`, else the server's
   * default); a page over it says which value of `max_page_mb` reads it, or
   * which setting of the server's operator does.
   */
  async function loadWithin(
    url: PageUrl,
    maxPageMb: number | undefined,
    options: Omit<LoadOptions, "maxBytes">,
  ): Promise<Loaded> {
    try {
      return await loadWithinLimit(load, url.page, maxPageMb, options);
    } catch (error) {
      if (error instanceof PageTooLarge) {
        throw new ApiError(502, error.refusal.kind, error.render(restHints(url)));
      }
      throw error;
    }
  }

  async function api(request: Request): Promise<Response> {
    const req = parsePageRequest(new URL(request.url).searchParams);
    return pageResponse(await answer(req, request.signal));
  }

  async function sections(request: Request): Promise<Response> {
    const parsed = parseParams(new URL(request.url).searchParams, sectionsSchema, SECTIONS_PARAMS);
    let url: PageUrl;
    try {
      url = pageUrl(parsed.url);
    } catch (error) {
      throw apiError(error);
    }
    const format = parsed.format ?? "md";
    const fullPage = parsed.full_page ?? false;
    const slice = parsed.slice;
    const { doc, cached } = await loadWithin(url, parsed.max_page_mb, {
      signal: request.signal,
      fullPage,
    });
    const source = sourceOfDoc(doc, url.page);
    if (doc.markdown.trim() === "") throw noText(doc, url.page);
    const total = doc.sections.length;
    // Without slice, the whole outline in one window; with it, windows as the tools show them.
    const window = slice === undefined ? Math.max(1, total) : OUTLINE_WINDOW;
    const result = outline(doc, { slice }, { window });
    const o = result.outline;
    const headers = {
      ...SECURITY_HEADERS,
      "x-source": source,
      "x-cache": cached ? "hit" : "miss",
      "x-total-sections": String(total),
    };
    if (format === "json") {
      const first = o?.first ?? 0;
      const shown = doc.sections.slice(first, first + window);
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
      if (slice !== undefined && o) {
        Object.assign(body, { slice: o.window, total_slices: o.windows });
        if (o.clampedFrom !== undefined) body.clamped_from = o.clampedFrom;
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
      const ctx = restHints(url);
      body.hints = result.messages.filter((m) => m.kind === "hint").map((m) =>
        renderMessage(m, ctx)
      );
      return json(200, body, headers);
    }
    return new Response(result.body, {
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
        // Its own call: the stream outlives the request handler.
        answerFirst(async () => {
          try {
            const a = await answer(req, signal, (stage) => {
              const data: Record<string, unknown> = { stage, url: req.url.page };
              if (stage === "extracting") data.view = req.view;
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
        });
      },
      cancel() {
        open = false;
        stop.abort(new DOMException("the client closed the stream", "AbortError"));
      },
    });
    return new Response(body, { headers });
  }

  return {
    fetch(request: Request): Promise<Response> {
      // A collection a page's load asks for waits until the answer is out.
      return answerFirst(() => route(request));
    },
  };

  async function route(request: Request): Promise<Response> {
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
          response = json(200, await health(version));
          break;
        case "/openapi.json":
          response = json(
            200,
            openApiDocument(version, { api: apiSchema, sections: sectionsSchema }),
          );
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
  }
}
