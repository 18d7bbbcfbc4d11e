/**
 * MCP over Streamable HTTP at `/mcp`, both eras, the REST API of
 * `rest.ts` (`/api`, `/api/sections`, `/api/stream`, `/healthz`,
 * `/openapi.json`) and its try-it page of `web.ts` (`/`), behind the same
 * three gates.
 *
 * 1. **Host** (DNS-rebinding protection): on a loopback bind only
 *    `localhost`, `127.0.0.1` and `[::1]` (any port, names as written:
 *    not `127.1` or `2130706433`, which a URL parser reads as loopback) are accepted, plus
 *    `PARKOUR_HTTP_ALLOWED_HOSTS`; on another address, that address and the
 *    configured hosts (a wildcard bind with no configured hosts accepts any
 *    Host, and relies on the token). Otherwise 403.
 * 2. **Origin**: absent is fine (non-browser clients); present, it must be a
 *    loopback origin or one listed in `PARKOUR_HTTP_ALLOWED_ORIGINS`.
 *    Otherwise 403.
 * 3. **Token** ({@link authorizer}): with `PARKOUR_HTTP_TOKEN` set, every
 *    request needs `Authorization: Bearer <token>`; with OAuth
 *    (`PARKOUR_AUTH_ISSUER`, see `auth.ts`) a valid access token; otherwise
 *    401. Binding a non-loopback address with neither is refused at start. `/healthz` is served
 *    without the token (probes carry no credentials; it tells only the
 *    version), and so is the try-it page (it holds no data, and its own API
 *    calls send the token), but both still pass the Host and Origin gates.
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
import { LOCAL, type Principal, runAs } from "../principal.ts";
import { type AuthDecision, metadataPaths, type OAuthResource } from "./auth.ts";
import { rememberPeer } from "./inflight.ts";
import { type RestApi, restPath, TOKEN_FREE_PATHS } from "./rest.ts";
import { webPath, webResponse } from "./web.ts";
import { type ConnectionLimits, guardConnections, peerOfInner } from "./connections.ts";
import { serving } from "./workers.ts";

/** Settings of {@link serveHttp}. */
export interface HttpServeOptions {
  /** The MCP handler. */
  handler: McpHttpHandler;
  /** The REST API (`/api`, `/healthz`, ...); without it only `/mcp` is served. */
  rest?: RestApi;
  /** Address to bind. */
  host: string;
  /** Port (0 for any free port). */
  port: number;
  /** Bearer token. */
  token?: string;
  /** OAuth resource server: bearer access tokens from an authorization server. */
  oauth?: OAuthResource;
  /** Extra allowed origins. */
  allowedOrigins?: string[];
  /** Extra allowed Host names. */
  allowedHosts?: string[];
  /** Called with the bound address once listening. */
  onListen?: (address: { hostname: string; port: number }) => void;
  /** Stops the server when aborted. */
  signal?: AbortSignal;
  /** Header timeout, idle timeout and connection cap (lib/server/connections.ts). */
  limits?: Partial<ConnectionLimits>;
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

// A Host header: a name or IPv4 address, or an IPv6 address in brackets, and a port.
const HOST_HEADER = /^(?:\[([0-9a-f:.]+)\]|([a-z0-9_.-]+))(?::(\d{1,5}))?$/i;

/**
 * The hostname part of a Host header as written (no port, no brackets),
 * lowercased; undefined when the header is not a host[:port]. It is not
 * read as a URL would read it: `127.1`, `2130706433`, `0x7f000001` or
 * `[0:0:0:0:0:0:0:1]` stay as written (a URL parser makes them all
 * loopback), so the allowlist matches only the names it lists.
 */
export function hostnameOf(hostHeader: string): string | undefined {
  const m = HOST_HEADER.exec(hostHeader);
  if (!m || Number(m[3] ?? 0) > 65535) return undefined;
  return (m[1] ?? m[2]).toLowerCase();
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

/** A request the Host or Origin gate refused: status, category and message. */
export interface GateRefusal {
  /** HTTP status (403). */
  status: number;
  /** Category: `forbidden_host` or `forbidden_origin`. */
  kind: "forbidden_host" | "forbidden_origin";
  /** What happened and what to do. */
  message: string;
}

/**
 * The Host and Origin gates as one check: undefined when the request may
 * pass, else the refusal. The token gate is {@link authorizer}.
 */
export function gates(
  options: Pick<HttpServeOptions, "host" | "allowedHosts" | "allowedOrigins">,
): (request: Request) => GateRefusal | undefined {
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

  return (request) => {
    const hostHeader = request.headers.get("host");
    const hostname = hostHeader ? hostnameOf(hostHeader) : undefined;
    if (!anyHost && (!hostname || !allowedHosts.has(hostname))) {
      log("warn", `refused request with Host ${JSON.stringify(hostHeader)}`);
      return {
        status: 403,
        kind: "forbidden_host",
        message:
          "Forbidden: Host header not allowed (DNS-rebinding protection); add it to PARKOUR_HTTP_ALLOWED_HOSTS if it is yours",
      };
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
        return {
          status: 403,
          kind: "forbidden_origin",
          message:
            "Forbidden: Origin not allowed; add it to PARKOUR_HTTP_ALLOWED_ORIGINS if it is yours",
        };
      }
    }
    return undefined;
  };
}

const CHALLENGE = 'Bearer realm="parkour"';

/**
 * The token gate: who the request acts for, or why it may not pass. The
 * static token makes its holder the owner; with OAuth configured, any other
 * bearer token must be a valid access token (see `auth.ts`).
 */
export function authorizer(
  options: Pick<HttpServeOptions, "token" | "oauth">,
): (request: Request) => Promise<AuthDecision> {
  return async (request) => {
    if (options.token === undefined && options.oauth === undefined) {
      return { ok: true, principal: LOCAL };
    }
    const auth = request.headers.get("authorization") ?? "";
    const match = /^Bearer\s+(.+)$/i.exec(auth);
    const presented = match?.[1].trim();
    if (
      presented !== undefined && options.token !== undefined && sameSecret(presented, options.token)
    ) {
      return { ok: true, principal: { kind: "owner", id: "owner" } satisfies Principal };
    }
    if (options.oauth !== undefined) {
      return presented === undefined
        ? options.oauth.missing()
        : await options.oauth.verify(presented);
    }
    return {
      ok: false,
      status: 401,
      kind: "unauthorized",
      message: "Unauthorized: send Authorization: Bearer <PARKOUR_HTTP_TOKEN>",
      challenge: CHALLENGE,
    };
  };
}

/**
 * Builds the request handler (exported for tests and embedding): the gates
 * run first on every path, then `/mcp` goes to the MCP handler and the REST
 * paths to the REST API, each run as the request's principal. MCP refusals
 * are JSON-RPC errors, REST refusals `{"error", "kind"}`; `/healthz` and the
 * OAuth metadata skip only the token.
 */
export function gatedHandler(
  options: Omit<HttpServeOptions, "port" | "onListen" | "signal">,
): (request: Request) => Promise<Response> {
  const check = gates(options);
  const authorize = authorizer(options);
  const metadata = new Set(options.oauth ? metadataPaths(options.oauth.settings) : []);
  return async (request: Request): Promise<Response> => {
    const host = request.headers.get("host");
    let url: URL;
    try {
      if (host !== null && hostnameOf(host) === undefined) throw new TypeError("bad host");
      url = new URL(request.url);
    } catch {
      return Response.json({
        error: "Bad request: the Host header is not a valid host[:port]; send the server's address",
        kind: "bad_host",
      }, { status: 400 });
    }
    const mcp = url.pathname === "/mcp" || url.pathname === "/mcp/";
    const rest = options.rest !== undefined ? restPath(url.pathname) : undefined;
    const refuse = (status: number, kind: string, message: string, challenge?: string) => {
      const headers = challenge ? { "www-authenticate": challenge } : undefined;
      if (mcp) return jsonError(status, -32000, message, headers);
      return Response.json({ error: message, kind }, { status, headers });
    };
    const refusal = check(request);
    if (refusal) return refuse(refusal.status, refusal.kind, refusal.message);
    if (metadata.has(url.pathname) && request.method === "GET") {
      return Response.json(options.oauth!.metadata(), {
        headers: { "cache-control": "max-age=300" },
      });
    }
    // The try-it page is a client of the REST API, so it is served with it (its calls carry the token).
    const web = options.rest !== undefined ? webPath(url.pathname) : undefined;
    let principal: Principal = LOCAL;
    if (web === undefined && !(rest !== undefined && TOKEN_FREE_PATHS.has(rest))) {
      const decision = await authorize(request);
      if (!decision.ok) {
        return refuse(decision.status, decision.kind, decision.message, decision.challenge);
      }
      principal = decision.principal;
    }
    if (mcp) return await runAs(principal, () => options.handler.fetch(request));
    if (rest !== undefined) return await runAs(principal, () => options.rest!.fetch(request));
    if (web !== undefined) return webResponse(web, request);
    return Response.json(
      {
        error: "not found",
        hint: options.rest
          ? "the MCP endpoint is /mcp, the HTTP API /api, the try-it page /"
          : "the MCP endpoint is /mcp",
      },
      { status: 404 },
    );
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

const TOKEN_ADVICE =
  "64 random hex characters or 43 random base64url ones; make one with: openssl rand -hex 32";

/**
 * A generous estimate of a token's entropy in bits: its length times the
 * bits of the alphabet its character classes span (lowercase, uppercase,
 * digits, others), and 0 for fewer than 8 distinct characters.
 */
export function tokenBits(token: string): number {
  if (new Set(token).size < 8) return 0;
  let alphabet = 0;
  if (/[a-z]/.test(token)) alphabet += 26;
  if (/[A-Z]/.test(token)) alphabet += 26;
  if (/[0-9]/.test(token)) alphabet += 10;
  if (/[^a-zA-Z0-9]/.test(token)) alphabet += 32;
  return token.length * Math.log2(alphabet);
}

/** Starts serving; refuses a non-loopback bind without a strong token. */
export function serveHttp(options: HttpServeOptions): HttpServerHandle {
  serving();
  if (!isLoopback(options.host) && options.token === undefined && options.oauth === undefined) {
    throw new Error(
      `binding ${options.host} exposes the server beyond this machine; set PARKOUR_HTTP_TOKEN to require a bearer token (${TOKEN_ADVICE}), or PARKOUR_AUTH_ISSUER and PARKOUR_AUTH_RESOURCE for OAuth access tokens`,
    );
  }
  if (!isLoopback(options.host) && options.token !== undefined && tokenBits(options.token) < 256) {
    throw new Error(
      `PARKOUR_HTTP_TOKEN is too weak for binding ${options.host}: a token that guards a server beyond this machine needs at least 32 bytes of entropy (${TOKEN_ADVICE})`,
    );
  }
  const handle = gatedHandler(options);
  // Deno.serve has no header timeout or connection cap: it listens on
  // loopback only, behind the connection guard on the configured address.
  const inner = new AbortController();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: inner.signal,
    // Always set, so Deno's default "Listening on" line never reaches stdout.
    onListen: () => {},
    onError: (error) => {
      log("error", "HTTP handler failed", error);
      return jsonError(500, -32603, "Internal error");
    },
  }, (request, info) => {
    // The peer scopes cancel notifications (inflight.ts): the client behind the guard's relay.
    if (info.remoteAddr.transport === "tcp") {
      rememberPeer(request, peerOfInner(info.remoteAddr.port) ?? info.remoteAddr.hostname);
    }
    return handle(request);
  });
  let guard;
  try {
    guard = guardConnections({
      hostname: options.host,
      port: options.port,
      innerPort: (server.addr as Deno.NetAddr).port,
      limits: options.limits,
    });
  } catch (error) {
    inner.abort();
    throw error;
  }
  options.onListen?.(guard.address);
  const shutdown = async () => {
    guard.stopAccepting();
    // Answers under way finish; then whatever is left open is closed.
    guard.closeIdle();
    await server.shutdown();
    guard.closeAll();
    await guard.finished;
  };
  options.signal?.addEventListener("abort", () => void shutdown(), { once: true });
  return {
    address: guard.address,
    finished: server.finished.then(() => guard.finished),
    shutdown,
  };
}
