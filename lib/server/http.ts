/**
 * MCP over Streamable HTTP at `/mcp`, both eras, behind three gates.
 *
 * 1. **Host** (DNS-rebinding protection): on a loopback bind only
 *    `localhost`, `127.0.0.1` and `[::1]` (any port) are accepted, plus
 *    `PARKOUR_HTTP_ALLOWED_HOSTS`; on another address, that address and the
 *    configured hosts (a wildcard bind with no configured hosts accepts any
 *    Host, and relies on the token). Otherwise 403.
 * 2. **Origin**: absent is fine (non-browser clients); present, it must be a
 *    loopback origin or one listed in `PARKOUR_HTTP_ALLOWED_ORIGINS`.
 *    Otherwise 403.
 * 3. **Token**: with `PARKOUR_HTTP_TOKEN` set, every request needs
 *    `Authorization: Bearer <token>`; otherwise 401. Binding a non-loopback
 *    address without a token is refused at start.
 *
 * Behind the gates the SDK's per-request handler serves 2026-07-28 traffic
 * (POST only; `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` checked
 * against the body, -32020 on mismatch) and 2025-era traffic statelessly
 * (GET and DELETE answer 405).
 *
 * @module
 */
import type { McpHttpHandler } from "@modelcontextprotocol/server";
import { log } from "../log.ts";

/** Settings of {@link serveHttp}. */
export interface HttpServeOptions {
  /** The MCP handler. */
  handler: McpHttpHandler;
  /** Address to bind. */
  host: string;
  /** Port (0 for any free port). */
  port: number;
  /** Bearer token. */
  token?: string;
  /** Extra allowed origins. */
  allowedOrigins?: string[];
  /** Extra allowed Host names. */
  allowedHosts?: string[];
  /** Called with the bound address once listening. */
  onListen?: (address: { hostname: string; port: number }) => void;
  /** Stops the server when aborted. */
  signal?: AbortSignal;
}

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);

/** Whether `host` is a loopback address or name. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127\.\d+\.\d+\.\d+$/.test(h);
}

function isWildcard(host: string): boolean {
  return host === "0.0.0.0" || host === "::" || host === "[::]";
}

/** The hostname part of a Host header (no port, no brackets), lowercased. */
export function hostnameOf(hostHeader: string): string | undefined {
  try {
    return new URL(`http://${hostHeader}`).hostname.replace(/^\[|\]$/g, "")
      .toLowerCase();
  } catch {
    return undefined;
  }
}

function jsonError(status: number, code: number, message: string, headers?: HeadersInit): Response {
  return new Response(
    JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } }),
    {
      status,
      headers: { "content-type": "application/json", ...headers },
    },
  );
}

/** Constant-time comparison of two strings. */
function sameSecret(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  }
  return diff === 0;
}

/** Builds the request handler with its gates (exported for tests and embedding). */
export function gatedHandler(
  options: Omit<HttpServeOptions, "port" | "onListen" | "signal">,
): (request: Request) => Promise<Response> {
  const bindLoopback = isLoopback(options.host);
  const allowedHosts = new Set(
    (options.allowedHosts ?? []).map((h) => h.toLowerCase().replace(/^\[|\]$/g, "")),
  );
  if (bindLoopback) { for (const n of LOOPBACK_NAMES) allowedHosts.add(n.replace(/^\[|\]$/g, "")); }
  else if (!isWildcard(options.host)) {
    allowedHosts.add(options.host.replace(/^\[|\]$/g, "").toLowerCase());
  }
  const anyHost = !bindLoopback && isWildcard(options.host) &&
    (options.allowedHosts ?? []).length === 0;
  const allowedOrigins = new Set(
    (options.allowedOrigins ?? []).map((o) => o.replace(/\/$/, "").toLowerCase()),
  );

  return async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (url.pathname !== "/mcp" && url.pathname !== "/mcp/") {
      return Response.json(
        { error: "not found", hint: "the MCP endpoint is /mcp" },
        { status: 404 },
      );
    }
    const hostHeader = request.headers.get("host");
    const hostname = hostHeader ? hostnameOf(hostHeader) : undefined;
    if (!anyHost && (!hostname || !allowedHosts.has(hostname))) {
      log("warn", `refused request with Host ${JSON.stringify(hostHeader)}`);
      return jsonError(
        403,
        -32000,
        "Forbidden: Host header not allowed (DNS-rebinding protection); add it to PARKOUR_HTTP_ALLOWED_HOSTS if it is yours",
      );
    }
    const origin = request.headers.get("origin");
    if (origin !== null) {
      let ok = allowedOrigins.has(origin.toLowerCase());
      if (!ok) {
        try {
          const o = new URL(origin);
          ok = (o.protocol === "http:" || o.protocol === "https:") &&
            isLoopback(o.hostname);
        } catch {
          ok = false;
        }
      }
      if (!ok) {
        log("warn", `refused request with Origin ${JSON.stringify(origin)}`);
        return jsonError(
          403,
          -32000,
          "Forbidden: Origin not allowed; add it to PARKOUR_HTTP_ALLOWED_ORIGINS if it is yours",
        );
      }
    }
    if (options.token !== undefined) {
      const auth = request.headers.get("authorization") ?? "";
      const match = /^Bearer\s+(.+)$/i.exec(auth);
      if (!match || !sameSecret(match[1].trim(), options.token)) {
        return jsonError(
          401,
          -32000,
          "Unauthorized: send Authorization: Bearer <PARKOUR_HTTP_TOKEN>",
          { "www-authenticate": 'Bearer realm="parkour"' },
        );
      }
    }
    return await options.handler.fetch(request);
  };
}

/** A running HTTP server. */
export interface HttpServerHandle {
  /** Bound address. */
  address: { hostname: string; port: number };
  /** Resolves when the server has stopped. */
  finished: Promise<void>;
  /** Stops accepting and closes. */
  shutdown(): Promise<void>;
}

/** Starts serving; refuses a non-loopback bind without a token. */
export function serveHttp(options: HttpServeOptions): HttpServerHandle {
  if (!isLoopback(options.host) && options.token === undefined) {
    throw new Error(
      `binding ${options.host} exposes the server beyond this machine; set PARKOUR_HTTP_TOKEN to require a bearer token`,
    );
  }
  const handle = gatedHandler(options);
  const server = Deno.serve({
    hostname: options.host,
    port: options.port,
    signal: options.signal,
    // Always set, so Deno's default "Listening on" line never reaches stdout.
    onListen: (addr) => options.onListen?.(addr),
    onError: (error) => {
      log("error", "HTTP handler failed", error);
      return jsonError(500, -32603, "Internal error");
    },
  }, handle);
  const addr = server.addr as Deno.NetAddr;
  return {
    address: { hostname: addr.hostname, port: addr.port },
    finished: server.finished,
    shutdown: () => server.shutdown(),
  };
}
