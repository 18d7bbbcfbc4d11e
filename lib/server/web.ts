/**
 * The try-it page of `serve --http` at `/`: one HTML page with its scripts,
 * style sheet and icon, a client of the HTTP API on the same origin (`/api`,
 * `/api/sections`). No build step: the files in `web/` are embedded as text
 * imports (`--unstable-raw-imports`), so the bundle and binaries carry them,
 * and so are the two libraries the page renders answers with, from their npm
 * packages (the import map pins them): `marked` turns an answer's Markdown
 * into HTML and `dompurify` sanitises it (see `web/render.js`).
 *
 * The page is served without the bearer token (it holds no data and no
 * secret; a person needs it to type the token in), behind the Host and
 * Origin gates like every path. Its own requests to `/api` carry the token
 * as an `Authorization` header. A strict Content Security Policy allows only
 * this origin's scripts (modules, no inline script), style, images and API:
 * no other hosts.
 *
 * @module
 */
import PAGE from "./web/index.html" with { type: "text" };
import SCRIPT from "./web/app.js" with { type: "text" };
import RENDER from "./web/render.js" with { type: "text" };
import STYLE from "./web/style.css" with { type: "text" };
import ICON from "./web/favicon.svg" with { type: "text" };
import MARKED from "marked" with { type: "text" };
import PURIFY from "dompurify" with { type: "text" };

const JS = "text/javascript; charset=utf-8";
const SVG = "image/svg+xml";

/** A library's module without its source-map comment (the map is not served). */
function withoutSourceMap(source: string): string {
  return source.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, "\n");
}

/** The files of the page by path, with their media types. */
const FILES: Readonly<Record<string, { body: string; type: string }>> = {
  "/": { body: PAGE, type: "text/html; charset=utf-8" },
  "/web/app.js": { body: SCRIPT, type: JS },
  "/web/render.js": { body: RENDER, type: JS },
  "/web/style.css": { body: STYLE, type: "text/css; charset=utf-8" },
  "/web/vendor/marked.js": { body: withoutSourceMap(MARKED), type: JS },
  "/web/vendor/purify.js": { body: withoutSourceMap(PURIFY), type: JS },
  "/favicon.svg": { body: ICON, type: SVG },
  // Asked for by browsers and tools that do not read the page's icon link.
  "/favicon.ico": { body: ICON, type: SVG },
};

/** The paths of the page (served without the token). */
export const WEB_PATHS: readonly string[] = Object.keys(FILES);

/** The Content Security Policy of the page: this origin only, no inline code. */
export const PAGE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** The page path a request path names (`/index.html` is `/`), or undefined. */
export function webPath(pathname: string): string | undefined {
  const path = pathname === "/index.html" ? "/" : pathname;
  return Object.hasOwn(FILES, path) ? path : undefined;
}

/** Answers a request for one of {@link WEB_PATHS}: GET and HEAD, else 405. */
export function webResponse(path: string, request: Request): Response {
  if (request.method !== "GET" && request.method !== "HEAD") {
    return Response.json(
      { error: `${request.method} is not allowed on ${path}; use GET`, kind: "method_not_allowed" },
      { status: 405, headers: { allow: "GET, HEAD" } },
    );
  }
  const file = FILES[path];
  const headers = {
    "content-type": file.type,
    "content-security-policy": PAGE_POLICY,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-cache",
  };
  return new Response(request.method === "HEAD" ? null : file.body, { headers });
}
