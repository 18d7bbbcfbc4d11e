/**
 * The page cache's second level, shared by replicas (`PARKOUR_CACHE`): a
 * Document converted by one process is served by every other without a
 * fetch, and a cold page asked of N replicas at once is loaded once.
 *
 * The first process to miss takes the page's load lock (renewed while it
 * works, so a slow download keeps it; a killed process's lock lapses within
 * {@link LOCK_TTL_MS}), loads, stores the entry and releases the lock. The
 * others poll for the entry; when the lock lapses without one (the loader
 * failed or died), one of them takes it and loads.
 *
 * @module
 */
import type { Document } from "../content/document/document.ts";
import { decodeDocument, encodeDocument } from "../content/document/serial.ts";
import { DEFAULT_CACHE_TTL_MS } from "../net/cache.ts";
import { realClock } from "../net/clock.ts";
import { sharedStore } from "../net/shared.ts";
import { log } from "../log.ts";

/** How long a load lock lives without renewal. */
export const LOCK_TTL_MS = 10_000;
const RENEW_EVERY_MS = 3_000;
const POLL_MS = 100;
/** Largest entry stored (compressed); bigger Documents stay local. */
const MAX_ENTRY_BYTES = 64 * 1024 * 1024;

function entryKey(key: string): string {
  return `doc:${key}`;
}

function lockKey(key: string): string {
  return `lock:${key}`;
}

/** The shared entry of `key`, or undefined (no store, a miss, an unreadable entry). */
export async function sharedLookup(key: string): Promise<Document | undefined> {
  const store = sharedStore();
  if (!store) return undefined;
  const bytes = await store.get(entryKey(key));
  return bytes ? decodeDocument(bytes) : undefined;
}

async function publish(key: string, doc: Document): Promise<void> {
  const store = sharedStore();
  if (!store) return;
  const bytes = encodeDocument(doc);
  if (bytes.byteLength > MAX_ENTRY_BYTES) return;
  await store.set(entryKey(key), bytes, DEFAULT_CACHE_TTL_MS);
}

/**
 * Loads `key` once across the fleet: under its lock, or by waiting for the
 * process that holds it. Without a shared store, just `load()`.
 */
export async function sharedLoad(
  key: string,
  load: () => Promise<Document>,
  signal?: AbortSignal,
): Promise<Document> {
  const store = sharedStore();
  if (!store) return await load();
  while (true) {
    signal?.throwIfAborted();
    const token = await store.lock(lockKey(key), LOCK_TTL_MS);
    if (token !== undefined) {
      const renewal = setInterval(() => {
        store.renew(lockKey(key), token, LOCK_TTL_MS).catch(() => {});
      }, RENEW_EVERY_MS);
      try {
        // Another process may have finished between our miss and the lock.
        const ready = await sharedLookup(key);
        if (ready) return ready;
        const doc = await load();
        await publish(key, doc).catch((error) => log("debug", "shared cache write failed", error));
        return doc;
      } finally {
        clearInterval(renewal);
        await store.unlock(lockKey(key), token);
      }
    }
    // Someone else is loading: wait for their entry, or for their lock to lapse.
    while (true) {
      await realClock.sleep(POLL_MS, signal);
      const ready = await sharedLookup(key);
      if (ready) return ready;
      if (!(await store.locked(lockKey(key)))) break;
    }
  }
}
