/**
 * The address guard of the browser. Deno's permissions do not reach the
 * browser, a child process, so every request the page makes (navigations,
 * frames, scripts, images, fetch/XHR) is intercepted and checked by the
 * address rules of `lib/net` before it may go out:
 *
 * - only http(s) (and the browser's own `data:`/`blob:`/`about:` URLs);
 * - the host must resolve only to public addresses (`lib/net/address.ts`),
 *   unless `MCP_ALLOW_PRIVATE_IPS=1`, or the origin is listed in
 *   `PARKOUR_RENDER_ALLOW_ORIGINS` (comma-separated `http://127.0.0.1:8080`
 *   origins; meant for tests that render a local page);
 * - once the first page has loaded, the top frame stays on its host unless
 *   the caller allowed leaving it.
 *
 * Playwright's route handler sees only the first URL of a redirect chain
 * and never a WebSocket, so it is the polite first layer (clear errors for
 * the URL asked for). What enforces the rules is the render's proxy
 * (`proxy.ts`), which every connection of the browser goes through, each
 * redirect hop and WebSocket included, and which connects only to the
 * addresses {@link vet} checked.
 *
 * @module
 */
import { env, envFlag } from "../config.ts";
import { classifyAddress, ipLiteral } from "../net/address.ts";
import { type Resolver, systemResolver } from "../net/resolver.ts";

/** Settings of a guard. */
export interface GuardOptions {
  /** Skip the address check. */
  allowPrivate: boolean;
  /** Origins let through although private. */
  allowedOrigins: string[];
  /** Name resolution. */
  resolver: Resolver;
}

/** The guard's settings from the environment. */
export function guardOptionsFromEnv(): GuardOptions {
  return {
    allowPrivate: envFlag("MCP_ALLOW_PRIVATE_IPS"),
    allowedOrigins: (env("PARKOUR_RENDER_ALLOW_ORIGINS") ?? "").split(",").map((s) => s.trim())
      .filter(Boolean).map((s) => {
        try {
          return new URL(s).origin;
        } catch {
          return s;
        }
      }),
    resolver: systemResolver,
  };
}

const LOCAL_SCHEMES = new Set(["data:", "blob:", "about:"]);

/** The port of an http(s) URL, the scheme's default when it names none. */
function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
}

/**
 * Whether `host`:`port` is an origin listed in `PARKOUR_RENDER_ALLOW_ORIGINS`
 * (under either scheme: a tunnel names only host and port).
 */
function listed(host: string, port: number, options: GuardOptions): boolean {
  const want = host.toLowerCase();
  return options.allowedOrigins.some((origin) => {
    try {
      const url = new URL(origin);
      return url.hostname.toLowerCase() === want && portOf(url) === port;
    } catch {
      return false;
    }
  });
}

/** The checked addresses to connect to, or why the host may not be reached. */
export type Verdict = { addresses: string[] } | { reason: string };

/**
 * Resolves `host` (a URL hostname: an IPv6 literal in brackets) and checks
 * every address it has, as `lib/net` does; the caller connects to exactly
 * the addresses returned (pinned: no second resolution). A listed origin or
 * `MCP_ALLOW_PRIVATE_IPS=1` skips the check, not the resolution.
 */
export async function vet(host: string, port: number, options: GuardOptions): Promise<Verdict> {
  const literal = ipLiteral(host);
  let addresses: string[];
  try {
    addresses = literal ? [literal] : await options.resolver.resolve(host.replace(/\.$/, ""));
  } catch {
    return { reason: `${host} does not resolve` };
  }
  if (addresses.length === 0) return { reason: `${host} does not resolve` };
  if (options.allowPrivate || listed(host, port, options)) return { addresses };
  for (const address of addresses) {
    const verdict = classifyAddress(address);
    if (verdict) {
      return {
        reason: `${host}${literal ? "" : ` resolves to ${address}, which`} is a ${verdict} address`,
      };
    }
  }
  return { addresses };
}

/** Why the browser may not request `url`, or undefined when it may. */
export async function refusal(url: string, options: GuardOptions): Promise<string | undefined> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "not a valid URL";
  }
  if (LOCAL_SCHEMES.has(parsed.protocol)) return undefined;
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return `the ${parsed.protocol} scheme is not fetched`;
  }
  if (options.allowPrivate || options.allowedOrigins.includes(parsed.origin)) return undefined;
  const verdict = await vet(parsed.hostname, portOf(parsed), options);
  return "reason" in verdict ? verdict.reason : undefined;
}
