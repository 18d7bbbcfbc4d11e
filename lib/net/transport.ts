/**
 * Transports: the only code that opens connections.
 *
 * - {@link pinnedTransport} connects directly, with Node's http/https client
 *   and a lookup function that returns only the addresses the caller already
 *   checked, so the name is never resolved again between check and connect
 *   (no DNS-rebinding gap). TLS still verifies the certificate against the
 *   host name. It also confirms the socket's peer is one of those addresses.
 * - {@link proxyTransport} goes through the proxy from `HTTPS_PROXY` and
 *   friends with Deno's fetch. The proxy resolves names itself, so the
 *   address check is only advisory there; results say so.
 *
 * @module
 */
import type { IncomingMessage } from "node:http";
import { parseIPv4, parseIPv6 } from "./address.ts";
import { NetError } from "./errors.ts";

/** One request as a transport sees it. */
export interface TransportRequest {
  /** Absolute URL. */
  url: URL;
  /** HTTP method. */
  method: string;
  /** Request headers. */
  headers: Headers;
  /** Request body. */
  body?: Uint8Array;
  /** Checked addresses to connect to; undefined when the check is off. */
  addresses?: string[];
  /** Proxy URL to go through (proxy transport only). */
  proxy?: string;
  /** Aborts the request. */
  signal: AbortSignal;
}

/** A response head and its raw body. */
export interface TransportResponse {
  /** HTTP status. */
  status: number;
  /** Response headers. */
  headers: Headers;
  /** Body bytes as sent (still content-encoded unless `decoded`). */
  body: ReadableStream<Uint8Array> | null;
  /** True when the transport already undid Content-Encoding. */
  decoded: boolean;
  /** The peer address, when known. */
  remoteAddress?: string;
}

/** Something that performs one HTTP exchange. */
export interface Transport {
  /** Short name for logs and results. */
  readonly name: string;
  /** Whether connections are pinned to the checked addresses. */
  readonly pins: boolean;
  /** Performs the exchange (no redirects followed). */
  send(request: TransportRequest): Promise<TransportResponse>;
}

function sameAddress(a: string, b: string): boolean {
  const bare = (s: string) =>
    s.replace(/^\[|\]$/g, "").replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, "$1");
  const x = bare(a);
  const y = bare(b);
  const x4 = parseIPv4(x);
  const y4 = parseIPv4(y);
  if (x4 !== undefined || y4 !== undefined) return x4 === y4;
  const x6 = parseIPv6(x);
  return x6 !== undefined && x6 === parseIPv6(y);
}

function toWebStream(res: IncomingMessage): ReadableStream<Uint8Array> {
  let done = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      res.on("data", (chunk: Uint8Array) => {
        if (done) return;
        // A plain view of the chunk, not a copy: each chunk is a buffer of its own, which the
        // body's reader takes over (and gives back once it has joined them: lib/net/body.ts).
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 1) <= 0) res.pause();
      });
      res.on("end", () => {
        if (done) return;
        done = true;
        controller.close();
      });
      res.on("error", (error) => {
        if (done) return;
        done = true;
        controller.error(error);
      });
    },
    pull() {
      res.resume();
    },
    cancel() {
      done = true;
      res.destroy();
    },
  }, { highWaterMark: 4 });
}

function headersOf(res: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) {
      try {
        headers.append(name, v);
      } catch { /* a header value Headers cannot hold: drop it */ }
    }
  }
  return headers;
}

// Node's http modules load on the first request, not at start-up.
let nodeHttp: Promise<[typeof import("node:http"), typeof import("node:https")]> | undefined;

/** Direct connections pinned to checked addresses. */
export const pinnedTransport: Transport = {
  name: "direct",
  pins: true,
  async send(request) {
    const [http, https] =
      await (nodeHttp ??= Promise.all([import("node:http"), import("node:https")]));
    const mod = request.url.protocol === "https:" ? https : http;
    const addresses = request.addresses;
    type LookupCallback = (error: Error | null, address: unknown, family?: number) => void;
    const lookup = addresses
      ? (_host: string, opts: unknown, callback: LookupCallback) => {
        const all = typeof opts === "object" && opts !== null && (opts as { all?: boolean }).all;
        const entries = addresses.map((address) => ({
          address,
          family: address.includes(":") ? 6 : 4,
        }));
        if (all) callback(null, entries);
        else callback(null, entries[0].address, entries[0].family);
      }
      : undefined;
    return new Promise<TransportResponse>((resolve, reject) => {
      if (request.signal.aborted) return reject(request.signal.reason);
      let req: ReturnType<typeof mod.request>;
      try {
        req = mod.request(request.url, {
          method: request.method,
          headers: Object.fromEntries(request.headers),
          agent: false,
          lookup: lookup as never,
          // `ca: null` (not undefined): trust Deno's own root store. With NODE_EXTRA_CA_CERTS set,
          // Deno's node:https (2.9.6) fills an undefined `ca` with tls.getCACertificates(), which
          // asks for sys access "ca", a permission the command line cannot name (`--allow-sys=ca`
          // is refused; only a bare --allow-sys grants it), so every https request failed. A null
          // `ca` leaves the connection on the store Deno's fetch uses, which the runtime builds
          // itself, without a permission check, from Mozilla's roots (or DENO_TLS_CA_STORE),
          // --cert or DENO_CERT, and NODE_EXTRA_CA_CERTS: the same certificates, no grant.
          ca: null as never,
        }, (res) => {
          const remoteAddress = res.socket?.remoteAddress;
          if (addresses && remoteAddress && !addresses.some((a) => sameAddress(a, remoteAddress))) {
            res.destroy();
            reject(
              new NetError(
                "pin_mismatch",
                `the connection to ${request.url.host} reached ${remoteAddress}, not a checked address; refused`,
                request.url.href,
              ),
            );
            return;
          }
          resolve({
            status: res.statusCode ?? 0,
            headers: headersOf(res),
            body: request.method === "HEAD" ? (res.resume(), null) : toWebStream(res),
            decoded: false,
            remoteAddress,
          });
        });
      } catch (error) {
        // Thrown before any socket exists (a permission the request itself needs): the same
        // mapping as a failed connection, never a bare runtime error.
        return reject(connectionError(request.url, error as Error));
      }
      const onAbort = () => req.destroy(request.signal.reason);
      request.signal.addEventListener("abort", onAbort, { once: true });
      req.on("close", () => request.signal.removeEventListener("abort", onAbort));
      req.on("error", (error: Error & { code?: string }) => {
        if (request.signal.aborted) return reject(request.signal.reason);
        reject(connectionError(request.url, error));
      });
      if (request.body) req.write(request.body);
      req.end();
    });
  },
};

/** A failed exchange as a network error: a refused socket, a refused permission, or the peer. */
function connectionError(url: URL, error: Error & { code?: string }): NetError {
  if (error instanceof Deno.errors.NotCapable) {
    if (/net access/.test(error.message)) return socketRefusal(url, error);
    return new NetError(
      "transport",
      `could not reach ${url.host}: this server's launch line does not grant what the connection asked for (${error.message}); the doctor command says what this launch line grants`,
      url.href,
      { cause: error },
    );
  }
  return new NetError(
    "transport",
    `could not reach ${url.host}: ${error.code ?? ""} ${error.message}`.replace(/\s+/g, " ")
      .trim(),
    url.href,
    { cause: error },
  );
}

/**
 * A connection Deno's permissions refused: the launch line's `--deny-net`
 * (private networks, see lib/install/launch.ts) or a narrowed `--allow-net`.
 */
function socketRefusal(url: URL, error: Error, proxied = false): NetError {
  const target = error.message.match(/access to "([^"]+)"/)?.[1] ?? url.host;
  return new NetError(
    "blocked_address",
    `the connection to ${target}${
      proxied ? " (the proxy, or the host through it)" : ""
    } was refused by this server's launch line (its --deny-net or --allow-net flags), which keeps private and loopback networks out of reach; to reach it on purpose, remove its range from --deny-net and set MCP_ALLOW_PRIVATE_IPS=1`,
    url.href,
    { cause: error },
  );
}

const proxyClients = new Map<string, Deno.HttpClient>();

function clientFor(proxy: string): Deno.HttpClient {
  let client = proxyClients.get(proxy);
  if (!client) {
    client = Deno.createHttpClient({ proxy: { url: proxy } });
    proxyClients.set(proxy, client);
  }
  return client;
}

/** Connections through a proxy (the one {@link proxyFor} picked), with Deno's fetch. */
export const proxyTransport: Transport = {
  name: "proxy",
  pins: false,
  async send(request) {
    let res: Response;
    try {
      res = await fetch(request.url, {
        method: request.method,
        headers: request.headers,
        body: request.body as BodyInit | undefined,
        redirect: "manual",
        signal: request.signal,
        ...(request.proxy ? { client: clientFor(request.proxy) } : {}),
      });
    } catch (error) {
      if (request.signal.aborted) throw request.signal.reason;
      if (error instanceof Deno.errors.NotCapable) throw socketRefusal(request.url, error, true);
      throw new NetError(
        "transport",
        `could not reach ${request.url.host} through the proxy: ${(error as Error).message}`,
        request.url.href,
        { cause: error },
      );
    }
    return { status: res.status, headers: res.headers, body: res.body, decoded: true };
  },
};

/** The proxy that applies to `url` under the usual environment variables, if any. */
export function proxyFor(url: URL, env: (name: string) => string | undefined): string | undefined {
  const pick = (...names: string[]) => names.map(env).find((v) => v);
  const proxy = url.protocol === "https:"
    ? pick("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")
    : pick("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy");
  if (!proxy) return undefined;
  const noProxy = pick("NO_PROXY", "no_proxy");
  if (noProxy) {
    const host = url.hostname.toLowerCase();
    for (const raw of noProxy.split(",")) {
      const entry = raw.trim().toLowerCase().replace(/:\d+$/, "");
      if (!entry) continue;
      if (entry === "*") return undefined;
      const suffix = entry.replace(/^\*?\./, "");
      if (host === suffix || host.endsWith("." + suffix)) return undefined;
    }
  }
  return proxy;
}
