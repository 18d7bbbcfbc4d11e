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
 * happens and V8's own schedule applies. (That collector is Deno's: a
 * low-memory notification, two or more full collections that give the
 * freed pages back; V8's own `gc()`, reachable only with the flag given at
 * start-up, collects once but keeps the freed pages, so RSS stays up.)
 *
 * A collection asked for while a call is being answered ({@link answerFirst})
 * waits until that call has answered: its pause (a few hundred ms on a full
 * cache while a worker takes the other core) then holds up no answer that
 * was ready.
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** Heap above what the cache holds that is left to V8's own schedule. */
export const RECLAIM_SLACK_BYTES = 96 * 1024 * 1024;
/**
 * The same while a conversion worker holds a page: the worker's own heap
 * (up to a hundred MB while it builds a large page's indexes) then comes on
 * top of this thread's, so less of this thread's garbage is left waiting.
 */
export const RECLAIM_BUSY_SLACK_BYTES = 48 * 1024 * 1024;
/** Least time between two collections. */
export const RECLAIM_INTERVAL_MS = 1000;
/**
 * How long after a call has answered the collection it asked for starts:
 * long enough for the answer's bytes to be written (they go out through
 * several turns of the event loop), short enough that the garbage is not
 * kept for long.
 */
export const RECLAIM_AFTER_ANSWER_MS = 50;

/** A call being answered, and the collection it asked for, if any. */
interface Answering {
  done: boolean;
  asked?: { retained: () => number; busy: () => boolean; settle: ((ran: boolean) => void)[] };
}
const answering = new AsyncLocalStorage<Answering>();

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
 * Loads the collector ahead of need, so that {@link collectBetweenStages}
 * can run it in the middle of synchronous work; resolves to whether it can
 * run here.
 */
export async function prepareCollector(): Promise<boolean> {
  collector ??= await loadCollector();
  return collector !== null;
}

/**
 * Runs a full collection between two stages of a large piece of synchronous
 * work (a conversion, after its walk over a large page), where
 * {@link prepareCollector} has loaded the collector; resolves nothing and
 * returns whether one ran. The stage before leaves its garbage in the
 * space the next one would grow into: on WHATWG HTML (15.6 MB) the walk's
 * garbage, left to V8's own schedule, lifted the peak of the one-shot
 * command by 42 MiB (with the young generation of the launch lines) to 60
 * MiB (V8's default), for a collection of 60 to 100 ms.
 */
export function collectBetweenStages(): boolean {
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
 * Runs `work` (one call: its load, its view and its answer) so that a
 * collection asked for during it ({@link reclaimMemory}) waits until the
 * work is done and its answer written ({@link RECLAIM_AFTER_ANSWER_MS}).
 * Calls may nest; each defers its own.
 */
export async function answerFirst<T>(work: () => Promise<T>): Promise<T> {
  const scope: Answering = { done: false };
  try {
    return await answering.run(scope, work);
  } finally {
    scope.done = true;
    const asked = scope.asked;
    scope.asked = undefined;
    if (asked) {
      const timer = setTimeout(() => {
        reclaimMemory(asked.retained, asked.busy).then((ran) =>
          asked.settle.forEach((f) => f(ran))
        );
      }, RECLAIM_AFTER_ANSWER_MS);
      Deno.unrefTimer(timer);
    }
  }
}

/**
 * Asks for a full collection when the heap (typed arrays included) exceeds
 * what should be live ({@link expectedLive}: what the last collection left,
 * plus what the caches, holding `retained()` now, gained since) by more
 * than {@link RECLAIM_SLACK_BYTES} ({@link RECLAIM_BUSY_SLACK_BYTES} while
 * `busy()`); resolves to whether one ran. Runs after the current task (a
 * timer), and inside {@link answerFirst} once the call has answered.
 */
export function reclaimMemory(
  retained: number | (() => number),
  busy: boolean | (() => boolean) = false,
): Promise<boolean> {
  const retainedNow = typeof retained === "number" ? () => retained : retained;
  const busyNow = typeof busy === "boolean" ? () => busy : busy;
  const scope = answering.getStore();
  if (scope && !scope.done) {
    // One collection per call at most, judged by the figures when the call has answered.
    return new Promise((resolve) => {
      const settle = scope.asked?.settle ?? [];
      settle.push(resolve);
      scope.asked = { retained: retainedNow, busy: busyNow, settle };
    });
  }
  if (scheduled || collector === null) return Promise.resolve(false);
  const slack = busyNow() ? RECLAIM_BUSY_SLACK_BYTES : RECLAIM_SLACK_BYTES;
  const retainedBytes = retainedNow();
  if (held() <= expectedLive(retainedBytes, floor, floorRetained) + slack) {
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
        floorRetained = retainedNow();
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
 * A copy of `array`, `length` long: its values first, zeros after. What a
 * table kept in typed arrays does when it fills (the old array is left to
 * the collector, or to {@link freeArrays}).
 */
export function grown<T extends Int32Array | Uint32Array | Uint8Array>(
  array: T,
  length: number,
): T {
  const copy = new (array.constructor as new (length: number) => T)(length);
  copy.set(array);
  return copy;
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
    const buffer = view && wholeBuffer(view);
    if (!buffer || typeof buffer.transfer !== "function") continue;
    freed += buffer.byteLength;
    buffer.transfer(0);
  }
  return freed;
}

/**
 * The buffer `view` fills alone (a plain, live ArrayBuffer it views from
 * start to end), which may be freed or moved to another thread as a whole;
 * undefined when the view shares its buffer or the buffer is shared.
 */
export function wholeBuffer(view: ArrayBufferView): ArrayBuffer | undefined {
  const buffer = view.buffer;
  if (!(buffer instanceof ArrayBuffer) || buffer.detached) return undefined;
  return view.byteOffset === 0 && view.byteLength === buffer.byteLength ? buffer : undefined;
}
