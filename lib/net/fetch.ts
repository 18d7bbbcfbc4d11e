/**
 * The one door to the network. Every source and the generic web path call
 * {@link Net.fetch}; nothing else in the product opens a connection.
 *
 * For each request it:
 *
 * - allows only http and https, and refuses credentials in URLs;
 * - resolves the host (A and AAAA) and refuses if any address is not public
 *   (see `address.ts`), on every redirect hop, following at most 10 redirects
 *   by hand; the connection is pinned to the checked addresses;
 *   `MCP_ALLOW_PRIVATE_IPS=1` turns the check off; behind a proxy the check is
 *   advisory and the result says so (`degraded`); a hop to another origin (or
 *   scheme) carries only the safe headers, never a source's credentials;
 * - refuses a Content-Length over the cap and stops a body that passes it,
 *   counted after decompression, and stops at a wall-clock deadline
 *   (defaults 5 MiB and 60 s);
 * - sends an honest User-Agent;
 * - spaces requests per host (queueing, not failing) and retries 429 and 503
 *   with bounded backoff that honours Retry-After;
 * - decodes text with the charset from the header or the document.
 *
 * @module
 */
import { classifyAddress, ipLiteral } from "./address.ts";
import { formatBytes, readBody } from "./body.ts";
import { currentProgress } from "../runtime/progress.ts";

import { type Charset, decodeText } from "./charset.ts";
import { type Clock, realClock } from "./clock.ts";
import { NetError } from "./errors.ts";
import { HostLimiter, type Limit, limitFor, type SharedSlots } from "./limiter.ts";
import { type Resolver, systemResolver } from "./resolver.ts";
import {
  DEFAULT_RETRY,
  parseRetryAfter,
  RETRY_STATUSES,
  retryDelay,
  type RetryPolicy,
} from "./retry.ts";
import {
  pinnedTransport,
  proxyFor,
  proxyTransport,
  type Transport,
  type TransportResponse,
} from "./transport.ts";
import { PROJECT_URL, SERVER_NAME, VERSION } from "../version.ts";

/** Default cap on a response body (decoded). */
export const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;
/** Cap for calls that build an outline or a search index of a whole page. */
export const LARGE_MAX_BYTES = 50 * 1024 * 1024;
/** Default wall-clock deadline for one fetch, redirects and retries included. */
export const DEFAULT_DEADLINE_MS = 60_000;
/** Most redirects followed. */
export const MAX_REDIRECTS = 10;

/** The honest User-Agent every request carries. */
export function userAgent(contact?: string): string {
  const mail = contact ? ` mailto:${contact};` : "";
  return `${SERVER_NAME}/${VERSION} (MCP content tool;${mail} +${PROJECT_URL})`;
}

/** Options of one fetch. */
export interface FetchOptions {
  /** HTTP method; GET by default. */
  method?: "GET" | "HEAD" | "POST";
  /** Extra request headers. */
  headers?: HeadersInit;
  /** Request body (POST). */
  body?: string | Uint8Array;
  /** Cap on the decoded body; {@link DEFAULT_MAX_BYTES} by default. */
  maxBytes?: number;
  /** Deadline in ms over redirects, retries and the body; 60 s by default. */
  deadlineMs?: number;
  /** Spacing for hosts the table does not know (a MediaWiki or Discourse site). */
  limit?: Limit;
  /** Retry policy, or false for none. */
  retry?: Partial<RetryPolicy> | false;
  /** Aborts the fetch. */
  signal?: AbortSignal;
}

/** A completed fetch. */
export interface FetchResult {
  /** The URL asked for. */
  requestedUrl: string;
  /** The final URL after redirects. */
  url: string;
  /** Final status. */
  status: number;
  /** Final headers. */
  headers: Headers;
  /** Decoded body bytes. */
  bytes: Uint8Array;
  /** Media type without parameters, lowercased ("" if none). */
  contentType: string;
  /** Every URL visited before the final one. */
  redirects: string[];
  /** True when the address check could not be enforced (proxy). */
  degraded: boolean;
  /** Whether the connection was pinned to checked addresses. */
  pinned: boolean;
  /** Peer address, when known. */
  remoteAddress?: string;
  /** The body as text, decoded with the detected charset. */
  text(): string;
  /** The charset used by {@link FetchResult.text}. */
  charset(): Charset;
  /** The body parsed as JSON. */
  json<T = unknown>(): T;
}

/** What a {@link Net} is built from. */
export interface NetDeps {
  /** Request slots shared with other processes (the shared store), read at each request. */
  sharedSlots?: () => SharedSlots | undefined;
  /** Performs exchanges; pinned direct connections by default. */
  transport?: Transport;
  /** Resolves names for the address check. */
  resolver?: Resolver;
  /** Time source. */
  clock?: Clock;
  /** Skip the address check (`MCP_ALLOW_PRIVATE_IPS`). */
  allowPrivate?: boolean;
  /** Address policy (tests substitute their own); the public-address rules by default. */
  classify?: (address: string) => string | undefined;
  /** Environment reader for proxy variables. */
  env?: (name: string) => string | undefined;
  /** Contact address for the User-Agent (`MCP_CONTACT_EMAIL`). */
  contact?: string;
  /** Transport used when a proxy applies. */
  proxyTransport?: Transport;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * The request headers a redirect to another origin (or from https to http)
 * keeps; every other header a source set (credentials under any name:
 * `authorization`, `x-api-key`, `private-token`, ...) is dropped.
 */
const CROSS_ORIGIN_HEADERS: ReadonlySet<string> = new Set([
  "accept",
  "accept-encoding",
  "accept-language",
  "user-agent",
  "range",
  "content-type",
]);

interface Hop {
  requested: string;
  url: URL;
  redirects: string[];
  response: TransportResponse;
  degraded: boolean;
  pinned: boolean;
  status: number;
  headers: Headers;
}

function mediaType(headers: Headers): string {
  return (headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
}

/** The network, with its limiter state and settings. */
export class Net {
  readonly #transport: Transport;
  readonly #proxyTransport: Transport;
  readonly #resolver: Resolver;
  readonly #clock: Clock;
  readonly #limiter: HostLimiter;
  readonly #allowPrivate: boolean;
  readonly #classify: (address: string) => string | undefined;
  readonly #env: (name: string) => string | undefined;
  readonly #userAgent: string;

  /** Creates a network with the given parts (real ones by default). */
  constructor(deps: NetDeps = {}) {
    this.#transport = deps.transport ?? pinnedTransport;
    this.#proxyTransport = deps.proxyTransport ?? proxyTransport;
    this.#resolver = deps.resolver ?? systemResolver;
    this.#clock = deps.clock ?? realClock;
    this.#limiter = new HostLimiter(this.#clock, deps.sharedSlots);
    this.#allowPrivate = deps.allowPrivate ?? false;
    this.#classify = deps.classify ?? classifyAddress;
    this.#env = deps.env ?? (() => undefined);
    this.#userAgent = userAgent(deps.contact);
  }

  /** Fetches `url` under every guarantee of this module. */
  async fetch(url: string | URL, options: FetchOptions = {}): Promise<FetchResult> {
    const deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
    const deadline = new AbortController();
    const timer = setTimeout(
      () =>
        deadline.abort(
          new NetError("timeout", `no complete response within ${deadlineMs / 1000} s`),
        ),
      deadlineMs,
    );
    const signal = options.signal
      ? AbortSignal.any([options.signal, deadline.signal])
      : deadline.signal;
    const start = typeof url === "string" ? url : url.href;
    try {
      return await this.#fetchWithRetries(start, options, signal);
    } catch (error) {
      if (deadline.signal.aborted && (error === deadline.signal.reason || signal.aborted)) {
        throw new NetError(
          "timeout",
          `no complete response from ${start} within ${
            deadlineMs / 1000
          } s; the server is slow or stalled, try again later`,
          start,
        );
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  async #fetchWithRetries(
    start: string,
    options: FetchOptions,
    signal: AbortSignal,
  ): Promise<FetchResult> {
    const policy = options.retry === false
      ? { ...DEFAULT_RETRY, retries: 0 }
      : { ...DEFAULT_RETRY, ...options.retry };
    for (let attempt = 0;; attempt++) {
      const result = await this.#fetchOnce(start, options, signal);
      if (!RETRY_STATUSES.has(result.status)) return await this.#finish(result, options, signal);
      const wait = retryDelay(
        attempt,
        parseRetryAfter(result.headers.get("retry-after"), this.#clock.now()),
        policy,
      );
      if (wait === undefined) return await this.#finish(result, options, signal);
      // The host asked for a pause: every request to it waits, not only this retry.
      const limit = options.limit ?? limitFor(result.url.hostname);
      if (result.status === 429 || result.headers.has("retry-after")) {
        await this.#limiter.backOff(limit.key, wait);
      }
      await result.response.body?.cancel().catch(() => {});
      await this.#clock.sleep(wait, signal);
    }
  }

  async #addressesFor(url: URL): Promise<string[] | undefined> {
    if (this.#allowPrivate) return undefined;
    const literal = ipLiteral(url.hostname);
    const addresses = literal ? [literal] : await this.#resolver.resolve(url.hostname);
    if (addresses.length === 0) {
      throw new NetError("dns", `${url.hostname} does not resolve to any address`, url.href);
    }
    for (const address of addresses) {
      const verdict = this.#classify(address);
      if (verdict) {
        const via = literal ? "" : ` resolves to ${address}, which`;
        throw new NetError(
          "blocked_address",
          `refused to fetch ${url.href}: ${url.hostname}${via} is a ${verdict} address. ` +
            "Only public addresses are fetched; on a trusted machine set MCP_ALLOW_PRIVATE_IPS=1 to allow private ones",
          url.href,
        );
      }
    }
    return addresses;
  }

  async #fetchOnce(start: string, options: FetchOptions, signal: AbortSignal): Promise<Hop> {
    let current = checkUrl(start);
    let method = options.method ?? "GET";
    let body: Uint8Array | undefined = typeof options.body === "string"
      ? new TextEncoder().encode(options.body)
      : options.body;
    const headers = requestHeaders(options.headers);
    headers.set("user-agent", this.#userAgent);
    if (!headers.has("accept")) headers.set("accept", "*/*");
    // A byte range counts bytes of the stored file: ask for it unencoded.
    headers.set("accept-encoding", headers.has("range") ? "identity" : "gzip, deflate, br");
    const visited = new Set<string>();
    const redirects: string[] = [];
    let degraded = false;
    for (let hop = 0;; hop++) {
      const proxy = proxyFor(current, this.#env);
      const proxied = proxy !== undefined;
      let addresses: string[] | undefined;
      if (proxied) {
        degraded = true;
        if (!this.#allowPrivate && isLocalhostName(current.hostname)) {
          throw new NetError(
            "blocked_address",
            `refused to fetch ${current.href}: ${current.hostname} is a loopback name. ` +
              "Only public addresses are fetched; on a trusted machine set MCP_ALLOW_PRIVATE_IPS=1 to allow private ones",
            current.href,
          );
        }
        // The proxy resolves names itself: check what we can, do not pin.
        try {
          await this.#addressesFor(current);
        } catch (error) {
          if (!(error instanceof NetError) || error.kind !== "dns") throw error;
        }
      } else {
        addresses = await this.#addressesFor(current);
      }
      const limit = options.limit ?? limitFor(current.hostname);
      await this.#limiter.acquire(limit.key, limit.intervalMs, signal);
      const transport = proxied ? this.#proxyTransport : this.#transport;
      const response = await transport.send({
        url: current,
        method,
        headers,
        body,
        addresses,
        proxy,
        signal,
      });
      const location = response.headers.get("location");
      if (!REDIRECTS.has(response.status) || location === null) {
        return {
          requested: start,
          url: current,
          redirects,
          response,
          degraded,
          pinned: transport.pins && !proxied,
          status: response.status,
          headers: response.headers,
        };
      }
      await response.body?.cancel().catch(() => {});
      visited.add(`${method} ${current.href}`);
      redirects.push(current.href);
      let next: URL;
      try {
        next = new URL(location, current);
      } catch {
        throw new NetError(
          "redirect",
          `${current.href} redirected to an invalid URL`,
          current.href,
        );
      }
      if (next.protocol !== "http:" && next.protocol !== "https:") {
        throw new NetError(
          "redirect",
          `${current.href} redirected to a ${
            next.protocol.replace(":", "")
          } URL, which is refused; only http and https are fetched`,
          current.href,
        );
      }
      checkUrl(next.href);
      if (
        response.status === 303 ||
        ((response.status === 301 || response.status === 302) && method === "POST")
      ) {
        method = method === "HEAD" ? "HEAD" : "GET";
        body = undefined;
        headers.delete("content-type");
      }
      if (next.origin !== current.origin) {
        // Another origin (host, port or scheme): nothing a source set may follow, but the safe few.
        for (const name of [...headers.keys()]) {
          if (!CROSS_ORIGIN_HEADERS.has(name)) headers.delete(name);
        }
      }
      if (visited.has(`${method} ${next.href}`)) {
        throw new NetError(
          "redirect",
          `redirect loop at ${next.href}; the site is misconfigured`,
          next.href,
        );
      }
      if (hop + 1 > MAX_REDIRECTS) {
        throw new NetError(
          "redirect",
          `more than ${MAX_REDIRECTS} redirects starting at ${start}; the site is misconfigured`,
          start,
        );
      }
      current = next;
    }
  }

  async #finish(
    hop: Hop,
    options: FetchOptions,
    signal: AbortSignal,
  ): Promise<FetchResult> {
    const { response } = hop;
    const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    const length = Number(response.headers.get("content-length") ?? "");
    const encoding = response.decoded ? null : response.headers.get("content-encoding");
    // Compressed or not, a body whose wire size is over the cap decodes to more.
    if (Number.isFinite(length) && length > maxBytes) {
      await response.body?.cancel().catch(() => {});
      throw new NetError(
        "too_large",
        `${hop.url.href} is ${codingless(encoding) ? "" : "at least "}${
          formatBytes(length)
        }, over the ${formatBytes(maxBytes)} limit`,
        hop.url.href,
        // Without a content coding the wire length is the decoded size.
        { limit: maxBytes, size: codingless(encoding) ? length : undefined },
      );
    }
    const progress = currentProgress();
    // The wire length is the decoded length only without a content coding.
    const total = Number.isFinite(length) && length > 0 && codingless(encoding)
      ? length
      : undefined;
    const where = hop.url.host;
    const bytes = await readBody(response.body, {
      contentEncoding: encoding,
      maxBytes,
      url: hop.url.href,
      signal,
      expectedBytes: total,
      onBytes: progress &&
        ((n) =>
          progress.report(
            "download",
            n,
            total,
            `downloaded ${formatBytes(n)}${
              total === undefined ? "" : ` of ${formatBytes(total)}`
            } from ${where}`,
          )),
    });
    let decoded: { text: string; charset: Charset } | undefined;
    const decode = () => (decoded ??= decodeText(bytes, response.headers.get("content-type")));
    return {
      requestedUrl: hop.requested,
      url: hop.url.href,
      status: response.status,
      headers: response.headers,
      bytes,
      contentType: mediaType(response.headers),
      redirects: hop.redirects,
      degraded: hop.degraded,
      pinned: hop.pinned,
      remoteAddress: response.remoteAddress,
      text: () => decode().text,
      charset: () => decode().charset,
      json: <T>() => JSON.parse(decode().text) as T,
    };
  }
}

/**
 * The caller's headers; a value a header cannot carry (a line break) is an
 * error naming the header, never its value (it may be a credential).
 */
function requestHeaders(init: HeadersInit | undefined): Headers {
  const headers = new Headers();
  const entries = init instanceof Headers
    ? [...init]
    : Array.isArray(init)
    ? init
    : Object.entries(init ?? {});
  for (const [name, value] of entries) {
    try {
      headers.set(name, value);
    } catch {
      throw new NetError(
        "invalid_header",
        `the request header '${
          name.replace(/[^\x21-\x7e]/g, "?").slice(0, 60)
        }' holds characters a header cannot carry (a line break or a control character); if it comes from a key you set, set the key again on one line`,
      );
    }
  }
  return headers;
}

/** Whether `hostname` is `localhost` or under `.localhost`, whatever its case or trailing dot. */
function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.+$/, "");
  return name === "localhost" || name.endsWith(".localhost");
}

/** Parses and checks a URL before any network use. */
export function checkUrl(input: string): URL {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new NetError(
      "invalid_url",
      `'${input.slice(0, 200)}' is not a valid URL; give an absolute http(s) URL`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new NetError(
      "scheme",
      `${url.protocol.replace(":", "")} URLs are refused; only http and https are fetched`,
      url.href,
    );
  }
  if (url.username || url.password) {
    throw new NetError(
      "credentials",
      "URLs with a user name or password are refused; remove the credentials from the URL",
      url.href,
    );
  }
  return url;
}

/**
 * Returns `result` if its status is 2xx; otherwise throws a `status` error
 * that carries the upstream body, so the tool error can quote the server's
 * own explanation.
 */
export function expectOk(result: FetchResult): FetchResult {
  if (result.status >= 200 && result.status < 300) return result;
  const hint = result.status === 404 || result.status === 410
    ? "check the URL"
    : result.status === 401 || result.status === 403
    ? "the server refuses access; the page may need a login or block automated clients"
    : result.status === 429
    ? "the server is rate limiting; wait and try again"
    : result.status >= 500
    ? "the server failed; try again later"
    : "check the request";
  throw new NetError("status", `HTTP ${result.status} for ${result.url}; ${hint}`, result.url, {
    remote: { status: result.status, body: result.text(), contentType: result.contentType },
  });
}

function codingless(encoding: string | null): boolean {
  return encoding === null || encoding.trim() === "" ||
    encoding.trim().toLowerCase() === "identity";
}
