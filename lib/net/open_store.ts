/**
 * Opening the shared store `PARKOUR_CACHE` (or `--cache`) names: `memory`
 * (none: each process keeps its own) or a Redis URL, whose client
 * (`redis.ts`) loads only then.
 *
 * @module
 */
import { ConfigError } from "../config.ts";
import { type SharedStore, useSharedStore } from "./shared.ts";

/** What `PARKOUR_CACHE` names. */
export type CacheSpec = { kind: "memory" } | { kind: "redis"; url: string };

/** Reads `memory` (the default), `redis://...` or `rediss://...`. */
export function parseCacheSpec(value: string | undefined, origin = "PARKOUR_CACHE"): CacheSpec {
  if (value === undefined || value === "" || value === "memory") return { kind: "memory" };
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch { /* reported below */ }
  if (url && (url.protocol === "redis:" || url.protocol === "rediss:") && url.hostname) {
    return { kind: "redis", url: url.href };
  }
  throw new ConfigError(
    `invalid ${origin} '${
      value.replace(/\/\/[^@/]*@/, "//***@")
    }'; valid values: memory, redis://[user:password@]host[:port][/db], rediss://... (TLS)`,
  );
}

/** Opens the store a spec names (undefined for `memory`) and makes it the process's. */
export async function openSharedStore(spec: CacheSpec): Promise<SharedStore | undefined> {
  if (spec.kind === "memory") return undefined;
  const { RedisStore } = await import("./redis.ts");
  const store = await RedisStore.open(spec.url);
  useSharedStore(store);
  return store;
}
