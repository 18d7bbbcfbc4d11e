/**
 * The HTTP API's answers: a page's view as Markdown, plain text or a JSON
 * record with its facts as headers, an outline as Markdown or JSON, and
 * every failure as a JSON body with the status that says who is at fault
 * ({@link apiError}, the one mapping of the error vocabulary to statuses).
 *
 * @module
 */
import { ConfigError } from "../config.ts";
import { ContentError, SourceError } from "../errors.ts";
import { Frontmatter } from "../envelope/frontmatter.ts";
import { htmlToText } from "../content/html/text.ts";
import { markdownToText } from "../content/document/plain_text.ts";
import {
  type HintContext,
  type HintValue,
  type Message,
  readOutline,
  renderMessage,
  shown,
} from "../hint.ts";
import { log } from "../log.ts";
import { NetError } from "../net/errors.ts";
import { trusted } from "../trust.ts";
import { PageTooLarge } from "../views/limit.ts";
import { bodyTitle, fillFrontmatter, pageHead } from "../views/page.ts";
import type { PageRead } from "../views/read.ts";
import { OUTLINE_WINDOW, RequestError, VIEWS } from "../views/request.ts";
import type { ViewResult } from "../views/view.ts";
import type { ApiRequest, SectionsRequest } from "./rest_params.ts";

/** Headers every answer carries. */
export const SECURITY_HEADERS = { "x-content-type-options": "nosniff" };
const JSON_TYPE = "application/json";
const MARKDOWN_TYPE = "text/markdown; charset=utf-8";
const TEXT_TYPE = "text/plain; charset=utf-8";
const UPSTREAM_EXCERPT_CHARS = 600;

/** A JSON response. */
export function json(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": JSON_TYPE, ...SECURITY_HEADERS, ...headers },
  });
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

/** An upstream status as ours: 404 and 410 pass through, anything else is 502. */
function upstream(message: string, kind: string, remote?: SourceError["remote"]): ApiError {
  const status = remote?.status;
  return new ApiError(status === 404 || status === 410 ? status : 502, kind, message, {
    upstream_status: status,
    upstream_excerpt: upstreamExcerpt(remote),
  });
}

/**
 * The status and body for any failure while serving a page (`url`, the
 * page's address as asked, spells the hints):
 *
 * | failure                                          | status |
 * | ------------------------------------------------ | ------ |
 * | invalid URL, scheme other than http(s), credentials, bad parameters or input | 400 |
 * | address refused (private, loopback, metadata...) | 403    |
 * | upstream 404 / 410                               | 404 / 410 |
 * | any other upstream status                        | 502    |
 * | page over the byte cap, or the call's page limit | 502    |
 * | DNS, redirect, transport failures; a render that failed | 502 |
 * | upstream deadline                                | 504    |
 * | a type that cannot be read as text               | 415    |
 * | content that could not be converted, a page with no text | 422 |
 * | a page that did not convert within the conversion deadline | 422 |
 * | the client went away                             | 499    |
 * | a setting of this server is malformed (a key)    | 500    |
 * | anything else                                    | 500    |
 */
export function apiError(error: unknown, url = ""): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof RequestError) return new ApiError(400, error.kind, error.forFace("rest"));
  if (error instanceof PageTooLarge) {
    return new ApiError(502, error.refusal.kind, error.render(restHints(url)));
  }
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
      case "status":
        return upstream(`the page's server answered ${error.message}`, error.kind, error.remote);
      default:
        return new ApiError(502, error.kind, error.message);
    }
  }
  if (error instanceof ContentError) {
    const kind = error.kind === "unreadable" ? "unreadable_content" : error.kind;
    return new ApiError(error.kind === "unsupported_type" ? 415 : 422, kind, error.message);
  }
  if (error instanceof SourceError) {
    switch (error.kind) {
      case "bad_input":
        return new ApiError(400, error.kind, error.message);
      case "render":
        return new ApiError(502, error.kind, error.message);
      default:
        return upstream(error.message, "source", error.remote);
    }
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

/** The hints of an answer in REST terms. */
export function restHints(url: string): HintContext {
  return { face: "rest", url };
}

/** A view that found nothing asked for, as an error with what to try. */
export function notFoundError(read: PageRead, r: ViewResult): ApiError {
  if (r.kind === "section") {
    const notFound = (r.notFound ?? []).map((m) => ({
      request: m.request,
      suggestions: m.suggestions.map((i) => read.doc.sections[i].title),
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
        renderMessage({ kind: "hint", parts: [readOutline()] }, restHints(read.url.href))
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

/** Everything a page's answer is made of, whatever its format. */
export interface PageAnswer {
  /** The request. */
  req: ApiRequest;
  /** The page read. */
  read: PageRead;
  /** The view of it. */
  result: ViewResult;
}

function frontmatterBlock(a: PageAnswer): string {
  const { read, result } = a;
  const head = pageHead(read.url, read.doc, read.cached, read.fullPage);
  const fm = new Frontmatter();
  const ctx = restHints(read.url.href);
  fillFrontmatter(fm, head.facts, [], ctx);
  fm.set("adapter", trusted.matching(read.source, /^[a-z][a-z0-9_-]{0,39}$/));
  fm.set("cached", read.cached);
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

/**
 * The view's body under the page's title line (`# Title`), as the envelope
 * shows it (see `bodyTitle`). The view counted the line in the budget.
 */
export function titledBody(body: string, title: string): string {
  const line = bodyTitle(body, title);
  return line ? `# ${line}\n\n${body}` : body;
}

/** The body text of an answer: the view, as Markdown or plain text, after the frontmatter. */
function bodyText(a: PageAnswer, format: "md" | "text" | "json"): string {
  const body = titledBody(a.result.body, a.read.doc.title);
  const text = format === "text" ? markdownToText(body) : body;
  return a.req.frontmatter ? `${frontmatterBlock(a)}\n\n${text}` : text;
}

/** The `format=json` record (also the data of the stream's `result` event). */
export function record(a: PageAnswer): Record<string, unknown> {
  const { read, result: r } = a;
  const { doc, url } = read;
  const out: Record<string, unknown> = {
    markdown: bodyText(a, "json"),
    title: doc.title || null,
    url: url.href,
  };
  if (doc.url !== url.page) out.final_url = doc.url;
  out.content_type = doc.kind;
  if (doc.contentType) out.media_type = doc.contentType;
  out.source = read.source;
  out.cached = read.cached;
  out.full_page = read.fullPage;
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
  if (doc.kind === "html" && !read.fullPage) {
    out.dropped_text_share = Math.round(doc.droppedShare * 100) / 100;
  }
  if (doc.degraded) out.degraded = true;
  const ctx = restHints(url.href);
  const messages = r.messages.filter((m) => m.kind === "hint" && shown(m, ctx));
  if (messages.length > 0) {
    out.hints = messages.map((m) => renderMessage(m, ctx));
    out.hint_steps = messages.map((m) => hintSteps(m, ctx));
  }
  return out;
}

/**
 * A call a hint names, for a client that runs it (the page at `/` makes it
 * a button): the view, its parameters (a value to fill in is
 * `{"placeholder": "..."}`; the URL is the answer's own) and the request.
 */
export interface HintCall {
  /** `page` (`/api`) or `outline` (`/api/sections`). */
  view: "page" | "outline";
  /** The parameters besides the URL. */
  params: Record<string, HintValue>;
  /** The request, as {@link record}'s `hints` write it. */
  href: string;
}

/** A hint as its pieces: server-written text and the calls it names. */
export function hintSteps(message: Message, ctx: HintContext): (string | HintCall)[] {
  const out: (string | HintCall)[] = [];
  for (const part of message.parts) {
    if (typeof part === "object" && "call" in part) {
      const href = renderMessage({ kind: message.kind, parts: [part] }, ctx);
      out.push({ view: part.call, params: { ...part.params }, href });
      continue;
    }
    const text = renderMessage({ kind: message.kind, parts: [part] }, ctx);
    if (typeof out.at(-1) === "string") out[out.length - 1] += text;
    else out.push(text);
  }
  return out;
}

/** The headers that say where a page came from. */
function sourceHeaders(read: PageRead): Record<string, string> {
  return {
    ...SECURITY_HEADERS,
    "x-source": read.source,
    "x-cache": read.cached ? "hit" : "miss",
  };
}

function answerHeaders(a: PageAnswer): Record<string, string> {
  const h = sourceHeaders(a.read);
  if (a.read.rendered) h["x-renderer"] = a.read.rendered.info.engine;
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

/** A page's answer in the format asked for. */
export function pageResponse(a: PageAnswer): Response {
  const headers = answerHeaders(a);
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

/**
 * The sections in one window: without `slice` the whole outline, with it
 * windows as the tools show them.
 */
export function sectionsWindow(read: PageRead, req: SectionsRequest): number {
  return req.outline.slice === undefined ? Math.max(1, read.doc.sections.length) : OUTLINE_WINDOW;
}

/** An outline's answer: Markdown, or a JSON list of the window's sections. */
export function sectionsResponse(
  read: PageRead,
  req: SectionsRequest,
  result: ViewResult,
  window: number,
): Response {
  const { doc, url } = read;
  const total = doc.sections.length;
  const headers = { ...sourceHeaders(read), "x-total-sections": String(total) };
  if (req.format !== "json") {
    return new Response(result.body, { headers: { "content-type": MARKDOWN_TYPE, ...headers } });
  }
  const o = result.outline;
  const first = o?.first ?? 0;
  const body: Record<string, unknown> = { url: url.href, title: doc.title || null };
  if (doc.url !== url.page) body.final_url = doc.url;
  Object.assign(body, {
    content_type: doc.kind,
    source: read.source,
    cached: read.cached,
    full_page: read.fullPage,
    total_sections: total,
  });
  if (req.outline.slice !== undefined && o) {
    Object.assign(body, { slice: o.window, total_slices: o.windows });
    if (o.clampedFrom !== undefined) body.clamped_from = o.clampedFrom;
  }
  body.sections = doc.sections.slice(first, first + window).map((s) => ({
    index: s.index,
    level: s.level,
    title: s.title,
    address: `#${s.id ?? s.slug}`,
    slug: s.slug,
    id: s.id ?? null,
    parent: s.parent,
    header_only: s.headerOnly,
  }));
  const ctx = restHints(url.href);
  body.hints = result.messages.filter((m) => m.kind === "hint").map((m) => renderMessage(m, ctx));
  return json(200, body, headers);
}
