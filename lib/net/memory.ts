/**
 * Giving memory back after large work. V8 grows its heap to fit a large
 * conversion (the DOM and the intermediate strings of a 15 MB page take
 * hundreds of MB) and keeps it long after the garbage is dead: a server that
 * converted a few big pages stays at their high-water mark, whatever the
 * page cache's bound. After a load leaves the heap well above what the cache
 * holds, a full collection is run once the current work yields (at most one
 * per second), and the freed pages go back to the system.
 *
 * The collector is reached through `node:v8` (`--expose-gc` set at run time)
 * and `node:vm`, loaded on first need; where that is unavailable nothing
 * happens and V8's own schedule applies.
 *
 * @module
 */

/** Heap above what the cache holds that is left to V8's own schedule. */
export const RECLAIM_SLACK_BYTES = 96 * 1024 * 1024;
/** Least time between two collections. */
export const RECLAIM_INTERVAL_MS = 1000;

let collector: (() => void) | null | undefined;
let scheduled = false;
let last = -Infinity;
/** The heap just after the last collection: what it could not free is not garbage. */
let floor = 0;
/** What the caches held at the last collection (part of {@link floor}). */
let floorRetained = 0;

/**
 * What the heap holds: V8's heap, and the typed arrays' backing stores
 * outside it (a Document's postings, a worker's transferred indexes), which
 * a page cache counts as well.
 */
function held(used = false): number {
  const usage = Deno.memoryUsage();
  return (used ? usage.heapUsed : usage.heapTotal) + usage.external;
}

async function loadCollector(): Promise<(() => void) | null> {
  try {
    const v8 = await import("node:v8");
    const vm = await import("node:vm");
    v8.setFlagsFromString("--expose-gc");
    const gc = vm.runInNewContext("gc");
    return typeof gc === "function" ? gc : null;
  } catch {
    return null;
  }
}

/**
 * Runs a full collection now, where the collector can be reached; resolves
 * to whether one ran. For a thread whose garbage is all its own (a
 * conversion worker after its page: it keeps nothing), where the pause
 * holds up no one else.
 */
export async function collectNow(): Promise<boolean> {
  collector ??= await loadCollector();
  if (!collector) return false;
  collector();
  return true;
}

/**
 * What should be live now: what the last collection left, moved by what the
 * caches gained or lost since (a page stored since then is not garbage, a
 * page evicted is), and never less than what the caches hold.
 */
export function expectedLive(
  retainedBytes: number,
  afterLast: number,
  retainedThen: number,
): number {
  return Math.max(retainedBytes, afterLast + retainedBytes - retainedThen);
}

/**
 * Asks for a full collection when the heap (typed arrays included) exceeds
 * what should be live ({@link expectedLive}: what the last collection left,
 * plus what the caches, holding `retainedBytes` now, gained since) by more
 * than {@link RECLAIM_SLACK_BYTES}; resolves to whether one ran. Runs after
 * the current task (a timer), so an answer in flight is sent first.
 */
export function reclaimMemory(retainedBytes: number): Promise<boolean> {
  if (scheduled || collector === null) return Promise.resolve(false);
  if (held() <= expectedLive(retainedBytes, floor, floorRetained) + RECLAIM_SLACK_BYTES) {
    return Promise.resolve(false);
  }
  const wait = Math.max(0, last + RECLAIM_INTERVAL_MS - performance.now());
  scheduled = true;
  return new Promise((resolve) => {
    const timer = setTimeout(async () => {
      try {
        if (!await collectNow()) return resolve(false);
        last = performance.now();
        floor = held(true);
        floorRetained = retainedBytes;
        resolve(true);
      } finally {
        scheduled = false;
      }
    }, wait);
    // A pending collection never keeps the process alive.
    Deno.unrefTimer(timer);
  });
}

/**
 * Gives back at once the memory of typed arrays nothing will read again:
 * each buffer is detached (`ArrayBuffer.prototype.transfer(0)`), which frees
 * its backing store now instead of at the next full collection, when V8 has
 * marked it dead. Only arrays that view their whole, unshared buffer are
 * freed (a view into a larger buffer may have neighbours still in use);
 * returns the bytes freed. Reading a freed array afterwards finds it
 * empty, so callers free only what they own and have dropped.
 */
export function freeArrays(arrays: Iterable<ArrayBufferView | undefined>): number {
  let freed = 0;
  for (const view of arrays) {
    if (!view) continue;
    const buffer = view.buffer;
    if (
      !(buffer instanceof ArrayBuffer) || buffer.detached || typeof buffer.transfer !== "function"
    ) {
      continue;
    }
    if (view.byteOffset !== 0 || view.byteLength !== buffer.byteLength) continue;
    freed += buffer.byteLength;
    buffer.transfer(0);
  }
  return freed;
}
