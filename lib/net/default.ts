/**
 * The process's network, configured from the environment:
 *
 * - `MCP_ALLOW_PRIVATE_IPS=1`: no address check (trusted machines only);
 * - `HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY`, `NO_PROXY`: proxied requests,
 *   where the address check is advisory (results say `degraded`);
 * - `MCP_CONTACT_EMAIL`: a contact address in the User-Agent;
 * - `PARKOUR_REPLAY_DIR`: serve every request from recorded exchanges
 *   (tests; per-host spacing and retry waits then pass 100 times faster);
 *   `PARKOUR_RECORD_DIR`: record every exchange there;
 * - `PARKOUR_SHARED_DIR`: where replayed exchanges find the shared captures;
 * - `PARKOUR_CACHE_MB`: page cache bound (default 256);
 * - `PARKOUR_HOST_INTERVALS`: `host=ms,...`, request spacing per host suffix
 *   beside (and over) the built-in table;
 * - `PARKOUR_CACHE=redis://...`: a store shared by replicas (see `shared.ts`),
 *   whose request slots this network then uses.
 *
 * @module
 */
import { env, envFlag } from "../config.ts";
import { DEFAULT_CACHE_BYTES, PageCache } from "./cache.ts";
import { fastClock } from "./clock.ts";
import { Net } from "./fetch.ts";
import { parseHostIntervals, setHostIntervals } from "./limiter.ts";
import { recordingTransport, ReplayStore } from "./replay.ts";
import { sharedStore } from "./shared.ts";
import { pinnedTransport, proxyTransport } from "./transport.ts";

/** Builds a network from the environment. */
export function netFromEnv(): Net {
  const intervals = env("PARKOUR_HOST_INTERVALS");
  if (intervals) setHostIntervals(parseHostIntervals(intervals));
  const allowPrivate = envFlag("MCP_ALLOW_PRIVATE_IPS");
  const replay = env("PARKOUR_REPLAY_DIR");
  if (replay) {
    const store = new ReplayStore(replay, env("PARKOUR_SHARED_DIR"));
    const transport = store.transport();
    return new Net({
      transport,
      proxyTransport: transport,
      resolver: store.resolver(),
      allowPrivate,
      // Replayed answers need no spacing: waits (limiter, retry backoff) pass 100 times faster.
      clock: fastClock(0.01),
    });
  }
  const record = env("PARKOUR_RECORD_DIR");
  return new Net({
    transport: record ? recordingTransport(pinnedTransport, record) : pinnedTransport,
    proxyTransport: record ? recordingTransport(proxyTransport, record) : proxyTransport,
    allowPrivate,
    env,
    contact: env("MCP_CONTACT_EMAIL"),
    sharedSlots: sharedStore,
  });
}

let shared: Net | undefined;

/** The process-wide network (created on first use). */
export function defaultNet(): Net {
  return (shared ??= netFromEnv());
}

/** The page cache bound in bytes from `PARKOUR_CACHE_MB`. */
export function cacheBytesFromEnv(): number {
  const mb = Number(env("PARKOUR_CACHE_MB"));
  return Number.isFinite(mb) && mb > 0 ? Math.round(mb * 1024 * 1024) : DEFAULT_CACHE_BYTES;
}

/** A page cache sized from the environment. */
export function pageCacheFromEnv<V>(
  sizeOf: (value: V) => number,
  release?: (value: V) => void,
): PageCache<V> {
  return new PageCache<V>({ maxBytes: cacheBytesFromEnv(), sizeOf, release });
}
