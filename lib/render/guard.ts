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
 * The browser resolves names again when it connects, so a host whose
 * answer changes between check and connection is not caught here; Deno's
 * own fetches are pinned to the checked addresses (`lib/net/transport.ts`).
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
  const literal = ipLiteral(parsed.hostname);
  let addresses: string[];
  try {
    addresses = literal ? [literal] : await options.resolver.resolve(parsed.hostname);
  } catch {
    return `${parsed.hostname} does not resolve`;
  }
  if (addresses.length === 0) return `${parsed.hostname} does not resolve`;
  for (const address of addresses) {
    const verdict = classifyAddress(address);
    if (verdict) {
      return `${parsed.hostname}${
        literal ? "" : ` resolves to ${address}, which`
      } is a ${verdict} address`;
    }
  }
  return undefined;
}
