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
 * Each path has a handler (the shape of Hono's `app.get`), and every
 * failure goes through one error mapper ({@link apiError}, Hono's
 * `app.onError`). A page handler parses its parameters with the request
 * schema (`rest_params.ts`), reads the page with {@link readPage} (so the
 * REST API shares the page cache, the sources and every rule of loading
 * with the MCP tools) and answers its view (`rest_answer.ts`): raw
 * Markdown, no envelope, no fence; `frontmatter=true` adds a block of
 * trusted values built by the one frontmatter builder.
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
import { envelopeReady } from "../envelope/frontmatter.ts";
import type { LoadStage } from "../sources/source.ts";
import { type Loader, readPage, readTarget, viewPage } from "../views/read.ts";
import { outline } from "../views/view.ts";
import { VERSION } from "../version.ts";
import { openApiDocument } from "./openapi.ts";
import {
  type ApiRequest,
  apiRequest,
  apiSchema,
  sectionsRequest,
  sectionsSchema,
} from "./rest_params.ts";
import {
  ApiError,
  apiError,
  errorResponse,
  json,
  notFoundError,
  type PageAnswer,
  pageResponse,
  record,
  sectionsResponse,
  sectionsWindow,
  SECURITY_HEADERS,
} from "./rest_answer.ts";

export { API_FORMATS, API_PARAMS, SECTIONS_FORMATS, SECTIONS_PARAMS } from "./rest_params.ts";
export { ApiError, apiError, errorResponse };
export type { Loader };

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

/** The views of `/api`; at most one per request. */
export { VIEWS } from "../views/request.ts";

/** Settings of {@link createRestApi}. */
export interface RestOptions {
  /** Loads a page; the router's `loadDocument` (cache, sources, web) by default. */
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

/** A path's handler. */
type Handler = (request: Request, options: RestOptions) => Promise<Response> | Response;

/**
 * The health report: the version and, when replicas share stores, whether
 * each answers. A store that is down makes the status `degraded`, not a
 * failure: the replica still serves from its own memory. Addresses are not
 * shown (the path needs no token).
 */
async function health(_request: Request, options: RestOptions): Promise<Response> {
  const version = options.version ?? VERSION;
  const stores: Record<string, { kind: string; ok: boolean }> = {};
  const cache = sharedStore();
  if (cache) stores.cache = { kind: cache.kind, ok: (await cache.health()).ok };
  const shelf = shelfHealth();
  if (shelf) stores.shelf = { kind: "postgres", ok: (await shelf).ok };
  const ok = Object.values(stores).every((s) => s.ok);
  return json(
    200,
    Object.keys(stores).length === 0
      ? { status: "ok", version }
      : { status: ok ? "ok" : "degraded", version, stores },
  );
}

function openapi(_request: Request, options: RestOptions): Response {
  const document = openApiDocument(options.version ?? VERSION, {
    api: apiSchema,
    sections: sectionsSchema,
  });
  return json(200, document);
}

/** `/api`'s answer: the page's view, for the page handler and the stream. */
async function answer(
  req: ApiRequest,
  options: RestOptions,
  signal: AbortSignal,
  onStage?: (stage: LoadStage | "extracting") => void,
): Promise<PageAnswer> {
  const read = await readPage(req.page, { ...options, signal, onStage });
  onStage?.("extracting");
  // Without max_tokens, the page view is the whole page: programs asked for its Markdown.
  const result = viewPage(read, req.page, { wholeByDefault: true });
  if (result.status === "not_found") throw notFoundError(read, result);
  if (req.frontmatter) await envelopeReady();
  return { req, read, result };
}

async function api(request: Request, options: RestOptions): Promise<Response> {
  const req = apiRequest(new URL(request.url).searchParams);
  return pageResponse(await answer(req, options, request.signal));
}

async function sections(request: Request, options: RestOptions): Promise<Response> {
  const req = sectionsRequest(new URL(request.url).searchParams);
  const read = await readPage(req.outline, { ...options, signal: request.signal, outline: true });
  const window = sectionsWindow(read, req);
  return sectionsResponse(read, req, outline(read.doc, req.outline, { window }), window);
}

function stream(request: Request, options: RestOptions): Response {
  const req = apiRequest(new URL(request.url).searchParams);
  // A URL or views the request gets wrong are a 400, before the stream starts.
  const { url, view } = readTarget(req.page);
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
          controller.enqueue(encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`));
        } catch {
          open = false;
        }
      };
      // Its own call: the stream outlives the request handler.
      answerFirst(async () => {
        try {
          const a = await answer(req, options, signal, (stage) => {
            const data: Record<string, unknown> = { stage, url: url.page };
            if (stage === "extracting") data.view = view;
            send("status", data);
          });
          send("result", record(a));
        } catch (error) {
          if (signal.aborted) return;
          const e = apiError(error, url.href);
          send("error", { error: e.message, status: e.status, kind: e.kind, ...e.extra });
        } finally {
          if (open) {
            open = false;
            try {
              controller.close();
            } catch { /* already closed */ }
          }
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

const ROUTES: Record<RestPath, Handler> = {
  "/api": api,
  "/api/sections": sections,
  "/api/stream": stream,
  "/healthz": health,
  "/openapi.json": openapi,
};

/** Builds the REST API. */
export function createRestApi(options: RestOptions = {}): RestApi {
  return {
    // A collection a page's load asks for waits until the answer is out.
    fetch: (request) => answerFirst(() => route(request, options)),
  };
}

async function route(request: Request, options: RestOptions): Promise<Response> {
  const url = new URL(request.url);
  const path = restPath(url.pathname);
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
    response = await ROUTES[path](request, options);
    if (path === "/api/stream") return response;
  } catch (error) {
    response = errorResponse(apiError(error, url.searchParams.get("url") ?? ""));
  }
  if (request.method === "HEAD") {
    await response.body?.cancel();
    return new Response(null, { status: response.status, headers: response.headers });
  }
  return response;
}
