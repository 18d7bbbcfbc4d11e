/**
 * The store replicas share (`PARKOUR_CACHE=redis://...`): converted pages,
 * load locks and per-host request slots, so a fleet of stateless replicas
 * behaves like one server. Without it every process keeps its own (the
 * default, and the right choice for one process).
 *
 * The store is a second level: each process keeps its in-memory 2Q cache in
 * front of it. A store that stops answering never stops a request: reads
 * count as misses, locks as taken by nobody, slots fall back to the local
 * limiter, and `/healthz` says the store is down.
 *
 * This module holds the interface and the process's store; the Redis
 * implementation is `redis.ts`, opened by `open_store.ts`.
 *
 * @module
 */

/** What a shared store offers. */
export interface SharedStore {
  /** Store kind, for the health report. */
  readonly kind: "redis";
  /** Where it is, without credentials. */
  readonly where: string;
  /** A value, or undefined when absent or the store is unreachable. */
  get(key: string): Promise<Uint8Array | undefined>;
  /** Stores a value for `ttlMs`; false when the store did not take it. */
  set(key: string, value: Uint8Array, ttlMs: number): Promise<boolean>;
  /** Takes a lock for `ttlMs`: its token, or undefined when someone holds it. */
  lock(key: string, ttlMs: number): Promise<string | undefined>;
  /** Extends a lock this token holds; false when it was lost. */
  renew(key: string, token: string, ttlMs: number): Promise<boolean>;
  /** Releases a lock this token holds. */
  unlock(key: string, token: string): Promise<void>;
  /** Whether anyone holds the lock. */
  locked(key: string): Promise<boolean>;
  /**
   * Reserves the next request slot of `key`, spaced `intervalMs` after the
   * previous one on the store's clock; resolves to the wait in ms.
   */
  reserveSlot(key: string, intervalMs: number): Promise<number>;
  /** Moves the next slot of `key` at least `waitMs` from now (429 / Retry-After). */
  pushBack(key: string, waitMs: number): Promise<void>;
  /** Whether the store answers, and a short description. */
  health(): Promise<{ ok: boolean; detail: string }>;
  /** Disconnects. */
  close(): Promise<void>;
}

let current: SharedStore | undefined;

/** The process's shared store, if one was configured. */
export function sharedStore(): SharedStore | undefined {
  return current;
}

/** Sets (or clears) the process's shared store; returns the previous one. */
export function useSharedStore(store: SharedStore | undefined): SharedStore | undefined {
  const previous = current;
  current = store;
  return previous;
}
