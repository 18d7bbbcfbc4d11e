/**
 * The page cache: a 2Q cache of Documents bounded in bytes.
 *
 * A new entry waits in a FIFO probation queue; a second use promotes it to a
 * protected LRU queue, so one-off fetches (a scan over many URLs) cannot
 * flush the pages an agent keeps returning to. When the byte total passes
 * the bound, probation gives up its oldest entries first while it holds more
 * than its share (a quarter) of the bytes, then the protected queue its
 * least recently used. Entries expire an hour after they were stored. Keys
 * are the URL without its fragment plus a variant (`static`, `rendered`), so
 * the two forms of one page are separate entries.
 *
 * @module
 */
import { type Clock, realClock } from "./clock.ts";
import { keyId, type PageKey } from "./page_key.ts";

/** Default bound: 256 MiB (`PARKOUR_CACHE_MB`). */
export const DEFAULT_CACHE_BYTES = 256 * 1024 * 1024;
/** Default lifetime of an entry: one hour. */
export const DEFAULT_CACHE_TTL_MS = 3_600_000;

/** Forms of one URL that are cached apart. */
export type CacheVariant = "static" | "rendered" | (string & Record<never, never>);

/** Settings of a {@link PageCache}. */
export interface PageCacheOptions<V> {
  /** Byte bound over all entries. */
  maxBytes?: number;
  /** Lifetime of an entry in ms. */
  ttlMs?: number;
  /** Share of the bound probation may hold before it is evicted first. */
  probationShare?: number;
  /** Time source. */
  clock?: Clock;
  /** Size of a value in bytes. */
  sizeOf: (value: V) => number;
  /**
   * Called once no entry holds a value any more (evicted, expired, deleted
   * or replaced by another value): where its memory can be given back at
   * once rather than at the next full collection.
   */
  release?: (value: V) => void;
}

interface Entry<V> {
  value: V;
  bytes: number;
  storedAt: number;
}

/**
 * The identity of an entry: a structured {@link PageKey} by its parts (the
 * callers' keys: lib/net/page_key.ts); a bare URL string and variant by the
 * URL without its fragment.
 */
export function cacheKey(url: string | PageKey, variant: CacheVariant = "static"): string {
  if (typeof url !== "string") return keyId(url);
  let canonical = url;
  try {
    const u = new URL(url);
    u.hash = "";
    canonical = u.href;
  } catch { /* not a URL: use as given */ }
  return `${variant} ${canonical}`;
}

/** A 2Q cache bounded in bytes with expiry. */
export class PageCache<V> {
  readonly #probation = new Map<string, Entry<V>>();
  readonly #protected = new Map<string, Entry<V>>();
  readonly #maxBytes: number;
  readonly #ttlMs: number;
  readonly #probationShare: number;
  readonly #clock: Clock;
  readonly #sizeOf: (value: V) => number;
  readonly #release?: (value: V) => void;
  /** How many entries hold each value (one value may be stored under several keys). */
  readonly #holders = new Map<V, number>();
  /** Values no entry holds since the last public call began: released when it ends. */
  #dropped: V[] = [];
  #bytes = 0;
  #probationBytes = 0;

  /** Creates an empty cache. */
  constructor(options: PageCacheOptions<V>) {
    this.#maxBytes = options.maxBytes ?? DEFAULT_CACHE_BYTES;
    this.#ttlMs = options.ttlMs ?? DEFAULT_CACHE_TTL_MS;
    this.#probationShare = options.probationShare ?? 0.25;
    this.#clock = options.clock ?? realClock;
    this.#sizeOf = options.sizeOf;
    this.#release = options.release;
  }

  /** Bytes held. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Entries held. */
  get size(): number {
    return this.#probation.size + this.#protected.size;
  }

  #expired(entry: Entry<V>): boolean {
    return this.#clock.now() - entry.storedAt >= this.#ttlMs;
  }

  #remove(key: string): void {
    const p = this.#probation.get(key);
    if (p) {
      this.#probation.delete(key);
      this.#bytes -= p.bytes;
      this.#probationBytes -= p.bytes;
      return this.#unhold(p.value);
    }
    const q = this.#protected.get(key);
    if (q) {
      this.#protected.delete(key);
      this.#bytes -= q.bytes;
      this.#unhold(q.value);
    }
  }

  #hold(value: V): void {
    this.#holders.set(value, (this.#holders.get(value) ?? 0) + 1);
  }

  #unhold(value: V): void {
    const n = (this.#holders.get(value) ?? 1) - 1;
    if (n > 0) return void this.#holders.set(value, n);
    this.#holders.delete(value);
    this.#dropped.push(value);
  }

  /**
   * Releases the values no entry holds any more: not one stored again
   * meanwhile, nor `kept` (the value a caller is storing, which it holds).
   */
  #releaseDropped(kept?: V): void {
    if (this.#dropped.length === 0) return;
    const dropped = this.#dropped;
    this.#dropped = [];
    for (const value of dropped) {
      if (value !== kept && !this.#holders.has(value)) this.#release?.(value);
    }
  }

  /** The value for `url`, counting as a use (promotes, refreshes recency). */
  get(url: string | PageKey, variant: CacheVariant = "static"): V | undefined {
    const key = cacheKey(url, variant);
    const p = this.#probation.get(key);
    if (p) {
      if (this.#expired(p)) return void this.#drop(key);
      this.#probation.delete(key);
      this.#probationBytes -= p.bytes;
      this.#protected.set(key, p);
      return p.value;
    }
    const q = this.#protected.get(key);
    if (q) {
      if (this.#expired(q)) return void this.#drop(key);
      this.#protected.delete(key);
      this.#protected.set(key, q);
      return q.value;
    }
    return undefined;
  }

  /** Whether a fresh entry exists, without counting as a use. */
  has(url: string | PageKey, variant: CacheVariant = "static"): boolean {
    const key = cacheKey(url, variant);
    const entry = this.#probation.get(key) ?? this.#protected.get(key);
    return entry !== undefined && !this.#expired(entry);
  }

  /** Which queue holds `url` (for tests and diagnostics). */
  queueOf(
    url: string | PageKey,
    variant: CacheVariant = "static",
  ): "probation" | "protected" | undefined {
    const key = cacheKey(url, variant);
    if (this.#probation.has(key)) return "probation";
    if (this.#protected.has(key)) return "protected";
    return undefined;
  }

  /**
   * Stores a value. Replacing an entry keeps its queue; a value larger than
   * the whole bound is not stored (returns false).
   */
  set(url: string | PageKey, value: V, variant: CacheVariant = "static"): boolean {
    const key = cacheKey(url, variant);
    const bytes = Math.max(1, this.#sizeOf(value));
    const wasProtected = this.#protected.has(key);
    this.#remove(key);
    if (bytes > this.#maxBytes) {
      this.#releaseDropped(value);
      return false;
    }
    const entry = { value, bytes, storedAt: this.#clock.now() };
    if (wasProtected) this.#protected.set(key, entry);
    else {
      this.#probation.set(key, entry);
      this.#probationBytes += bytes;
    }
    this.#hold(value);
    this.#bytes += bytes;
    this.#evict(key);
    this.#releaseDropped();
    return true;
  }

  /** Drops an entry. */
  delete(url: string | PageKey, variant: CacheVariant = "static"): void {
    this.#drop(cacheKey(url, variant));
  }

  #drop(key: string): void {
    this.#remove(key);
    this.#releaseDropped();
  }

  #evict(keep: string): void {
    if (this.#bytes <= this.#maxBytes) return;
    // Expired entries go first.
    for (const [key, entry] of [...this.#probation, ...this.#protected]) {
      if (key !== keep && this.#expired(entry)) this.#remove(key);
    }
    while (this.#bytes > this.#maxBytes) {
      const fromProbation = this.#probationBytes > this.#maxBytes * this.#probationShare ||
        this.#protected.size === 0 || (this.#protected.size === 1 && this.#protected.has(keep));
      const queue = fromProbation && this.#probation.size > 0 ? this.#probation : this.#protected;
      const victim = [...queue.keys()].find((k) => k !== keep);
      if (victim === undefined) {
        const other = queue === this.#probation ? this.#protected : this.#probation;
        const fallback = [...other.keys()].find((k) => k !== keep);
        if (fallback === undefined) return;
        this.#remove(fallback);
      } else this.#remove(victim);
    }
  }
}
