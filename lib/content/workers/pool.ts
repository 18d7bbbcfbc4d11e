/**
 * Large HTML pages are converted off the main thread, so the protocol
 * (`ping`, other calls, small pages) stays responsive while a 15 MB
 * specification converts, and a cancelled or timed-out call lets go of its
 * page at once: the call answers as cancelled, the page's worker is
 * terminated (and replaced on demand), and its result is never used or
 * cached.
 *
 * - **Pool**: one worker per core beyond the main thread's (at least one),
 *   started on the first large page; a worker idle for {@link IDLE_MS} is
 *   ended, so an idle server holds no worker. A Deno worker keeps its
 *   process alive and cannot be unref'd, so outside a server (the library,
 *   the CLI) an idle worker ends after {@link BRIEF_IDLE_MS}: a script that
 *   read a large page exits then, not half a minute later. A server asks for
 *   the longer wait with {@link keepWorkersWarm}.
 * - **Queue and memory bound**: at most one page per worker converts at a
 *   time (a page's DOM costs several times its HTML, so this bounds the
 *   conversion memory to the pool size times the largest page); further
 *   pages wait in order, at most {@link MAX_QUEUED} of them, and a page
 *   beyond that is refused with an error that says to retry.
 * - **Deadline**: a page that has been in its worker for
 *   {@link convertDeadlineMs} (`PARKOUR_CONVERT_DEADLINE_MS`, 20 s by
 *   default) without converting is given up: its caller gets a {@link ContentError} of kind
 *   `too_slow` that says so and what to try, the job's flag is raised (the
 *   conversion throws within a few milliseconds, which frees the core) and
 *   its worker is ended. Nothing of it is cached.
 * - **Indexes in the background**: a worker that has answered its page
 *   and only builds the page's indexes (for a later search or question, at
 *   most {@link INDEX_DEADLINE_MS}) does not hold the next page: a page
 *   that waits then gets a worker of its own, up to {@link poolSize} more
 *   (the one that finishes its indexes first is ended when none waits), so
 *   a page is not held behind another page's indexes (measured: a 16 MB
 *   page waited 7.8 s behind the indexes of 463,000 tiny sections). The
 *   memory it adds is what a page's indexes hold while they build, beside
 *   the next page's conversion.
 * - **Second lane**: when every worker has held its page for
 *   {@link LANE_AFTER_MS} and a page of at most {@link LANE_MAX_BYTES}
 *   waits, one more worker starts for it (and for the small pages after
 *   it; it ends when none waits), so a slow page holds the small pages
 *   behind it for half a second, not for its deadline. The memory it adds
 *   is one such page's conversion (about 100 MiB for 4 MB: docs/deploy.md).
 * - **Cancel**: in Deno 2.9.6 `Worker.terminate()` does not interrupt a
 *   worker that is running JavaScript (measured: a worker in a busy loop
 *   kept its core seconds after the call). So each job carries a flag in
 *   memory shared with its worker (`cancel.ts`): on cancel the pool raises
 *   it, the HTML walker sees it within 2,048 elements and the conversion
 *   throws, which frees the core; the worker is terminated too, and a new
 *   page gets a fresh one.
 * - **Where workers run**: a Deno worker loads its modules with the
 *   process's permissions, so from a checkout workers are used only when
 *   the program's own folder is readable (`--allow-read=<checkout>`); a
 *   copy loaded from a registry (`jsr:`, whose host Deno lets a process
 *   import from) loads the worker from there too. Otherwise (the shipped
 *   launch lines, which read only the config folder; the one-file bundle,
 *   which has no worker module beside it) pages convert on the main thread
 *   as before, and the first large page logs once, at debug level, why. A
 *   worker that fails to load also leaves pages on the main thread.
 *
 * @module
 */
import { raiseCancel } from "../../runtime/cancel.ts";
import { CONVERT_DEADLINE_VARIABLE, convertDeadlineMs, env } from "../../config.ts";
import { log } from "../../log.ts";
import { ContentError, type ContentErrorKind } from "../../errors.ts";
import { wholeBuffer } from "../../runtime/memory.ts";
import type {
  Converted,
  ConvertJob,
  ConvertPart,
  ConvertReply,
  IndexParts,
  WorkerHeap,
} from "./messages.ts";
import type { HtmlOptions } from "../convert/html.ts";

/** Pages at least this many characters long convert in a worker. */
export const WORKER_MIN_CHARS = 512 * 1024;

/** A server's worker idle this long is ended. */
export const IDLE_MS = 30_000;
/** An idle worker whose heap still holds more than this after its collection is ended. */
export const RETIRE_BYTES = 64 * 1024 * 1024;
/** Outside a server, a worker idle this long is ended (so the process can exit). */
export const BRIEF_IDLE_MS = 500;

let idleMs = BRIEF_IDLE_MS;

/** Keeps idle workers for {@link IDLE_MS}: called by a server, which stays up anyway. */
export function keepWorkersWarm(): void {
  idleMs = IDLE_MS;
}

/**
 * Longest a worker builds a page's indexes after its answer: past it, the
 * build is called off (the page's Document builds them itself on first
 * use), so that a pathological page neither holds its worker from the
 * pages queued behind it nor keeps requests waiting for its indexes.
 */
export const INDEX_DEADLINE_MS = 5_000;

/** Pages waiting beyond the running ones before new ones are refused. */
export const MAX_QUEUED = 32;

/**
 * The error of a page given up at the deadline: what happened and what to
 * try; `what` names what the page is made of (HTML, or text for a page of
 * plain text, Markdown, JSON or XML).
 */
export function tooSlow(url: string, bytes: number, ms: number, what = "HTML"): ContentError {
  const size = bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${Math.ceil(bytes / 1e3)} kB`;
  const seconds = Number((ms / 1000).toFixed(1));
  return new ContentError(
    `the page at ${url} (${size} of ${what}) did not convert within ${seconds} s, so its conversion was stopped and nothing of it was kept; pages this slow are very large or built to be slow to read (markup nested or broken on purpose). Try a smaller page of the site (a chapter's or a section's own URL), its API, or a text, print or PDF version; where the server or the command runs, ${CONVERT_DEADLINE_VARIABLE} allows more time (now ${ms} ms)`,
    { kind: "too_slow" },
  );
}

/** A page waits this long behind busy workers before a second lane starts for it. */
export const LANE_AFTER_MS = 500;
/** Largest page the second lane takes (a small page is not held behind a large one). */
export const LANE_MAX_BYTES = 4 * 1024 * 1024;
/** Workers the second lane may add beyond {@link poolSize}. */
export const EXTRA_LANES = 1;

const WORKER_URL = new URL("./convert_worker.ts", import.meta.url);
/** The folder that holds lib/ (and node_modules/ in a checkout). */
const PROGRAM_DIR = new URL("../../../", import.meta.url);

/** Thrown when the queue is full. */
export class PoolBusyError extends Error {
  /** Creates the error. */
  constructor(message: string) {
    super(message);
    this.name = "PoolBusyError";
  }
}

interface Slot {
  worker: Worker;
  /** A second-lane worker: it takes only pages of at most {@link LANE_MAX_BYTES}, and never idles. */
  lane?: boolean;
  ready: Promise<boolean>;
  job?: Running;
  idle?: ReturnType<typeof setTimeout>;
}

interface Running {
  id: number;
  /** When it started converting (performance.now()). */
  started: number;
  /** Fires at the conversion deadline. */
  timer?: ReturnType<typeof setTimeout>;
  /** The job's cancel flag (shared with its worker). */
  cancel?: SharedArrayBuffer;
  /** Set once the page is answered: the worker is building its indexes. */
  indexed?: (indexes: IndexParts | undefined) => void;
  /** The parts of the reply received so far. */
  markdown?: string;
  slices?: IndexParts["slices"];
  deadline?: ReturnType<typeof setTimeout>;
  search?: IndexParts["search"];
  resolve(init: ConvertedFields): void;
  reject(error: unknown): void;
}

interface Waiting {
  /** The page's size, in bytes or characters. */
  size: number;
  start(slot: Slot): void;
  cancel(reason: unknown): void;
}

/**
 * A page to convert: its text, or its bytes and their charset. With `give`,
 * the caller gives its bytes up: when they fill their buffer, the buffer is
 * moved to the worker as it is (the caller's array is left empty) instead of
 * being copied first, which spares the main thread a copy of the whole page.
 */
export type ConvertInput = { html: string } | {
  bytes: Uint8Array;
  encoding: string;
  give?: boolean;
};

/**
 * What a worker returns: the page's Document in parts (see
 * convert_worker.ts), and its indexes to come (undefined when the worker
 * could not build them: the Document then builds them itself on first use).
 */
export type ConvertedFields = Converted & { indexes: Promise<IndexParts | undefined> };

let usable: boolean | undefined;
const slots: Slot[] = [];
const queue: Waiting[] = [];
let nextId = 1;

/** How many workers the pool runs at most. */
export function poolSize(): number {
  const cores = navigator.hardwareConcurrency || 1;
  return Math.max(1, cores - 1);
}

/** Set to `0`, large pages convert on the main thread (for comparisons, or a one-core host). */
export const WORKERS_VARIABLE = "PARKOUR_CONVERT_WORKERS";

function why(): string | undefined {
  if (env(WORKERS_VARIABLE) === "0") return `${WORKERS_VARIABLE}=0`;
  // A registry copy (jsr:): the worker module comes from where this one came from.
  if (WORKER_URL.protocol === "https:" || WORKER_URL.protocol === "http:") return undefined;
  if (WORKER_URL.protocol !== "file:") return `the program is loaded from ${WORKER_URL.origin}`;
  // Asked before anything is read, so no permission prompt can appear.
  const dir = decodeURIComponent(PROGRAM_DIR.pathname);
  if (Deno.permissions.querySync({ name: "read", path: dir }).state !== "granted") {
    return `the program folder is not readable (--allow-read=${dir} enables workers)`;
  }
  try {
    Deno.statSync(WORKER_URL);
  } catch {
    return "the worker module is not beside this one (a bundle)";
  }
  return undefined;
}

/** Whether large pages convert in workers in this process. */
export function workersUsable(): boolean {
  if (usable === undefined) {
    let reason: string | undefined;
    try {
      reason = why();
    } catch (error) {
      reason = (error as Error).message;
    }
    usable = reason === undefined;
    if (reason) log("debug", `large pages convert on the main thread: ${reason}`);
  }
  return usable;
}

function spawn(lane = false): Slot {
  const worker = new Worker(WORKER_URL, { type: "module", name: "parkour-convert" });
  const slot: Slot = { worker, lane, ready: Promise.resolve(false) };
  slot.ready = new Promise<boolean>((resolve) => {
    worker.onmessage = (event: MessageEvent) => {
      const data = event.data as ConvertReply | ConvertPart | WorkerHeap | { ready: true };
      if ("ready" in data) {
        log("debug", `conversion worker started (${WORKER_URL.protocol.slice(0, -1)})`);
        resolve(true);
        return;
      }
      // V8 keeps much of the heap a large page grew even after collecting it: an idle worker
      // that still holds more than RETIRE_BYTES is ended (the next large page starts another).
      if ("heldBytes" in data) {
        if (!slot.job && data.heldBytes > RETIRE_BYTES) drop(slot);
        return;
      }
      const job = slot.job;
      if (!job || job.id !== data.id) return;
      if ("part" in data) {
        if (data.part === "markdown") job.markdown = data.markdown;
        else if (data.part === "slices") job.slices = data.slices;
        else if (data.part === "search") job.search = data.search;
        else {
          slot.job = undefined;
          clearTimeout(job.deadline);
          const { slices, search } = job;
          const { query } = data;
          job.indexed?.(slices && search && query ? { slices, search, query } : undefined);
          release(slot);
        }
        return;
      }
      if (data.ok) {
        clearTimeout(job.timer);
        // The slot stays taken while the worker builds the page's indexes.
        const { init, ...rest } = data.converted;
        const indexes = new Promise<IndexParts | undefined>((resolve) => job.indexed = resolve);
        const markdown = job.markdown ?? "";
        job.markdown = undefined;
        job.reject = () => {
          clearTimeout(job.deadline);
          job.indexed?.(undefined);
        };
        const cancel = job.cancel;
        if (cancel) {
          job.deadline = setTimeout(() => raiseCancel(cancel), INDEX_DEADLINE_MS);
          Deno.unrefTimer(job.deadline);
        }
        job.resolve({ ...rest, init: { ...init, markdown }, indexes });
        // A page that waited for this worker may have a worker of its own now.
        pump();
        return;
      }
      slot.job = undefined;
      clearTimeout(job.timer);
      job.reject(rebuildError(data.name, data.message, data.kind));
      release(slot);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      log("debug", "conversion worker failed", event.message);
      resolve(false);
      const job = slot.job;
      slot.job = undefined;
      clearTimeout(job?.timer);
      drop(slot);
      job?.reject(new Error(`the conversion worker failed (${event.message})`));
      pump();
    };
  });
  slots.push(slot);
  return slot;
}

/** The worker's error, from what crossed the thread: its name, message and kind. */
function rebuildError(name: string, message: string, kind?: ContentErrorKind): Error {
  // A ContentError keeps its class and kind across the thread boundary, where only data crosses.
  if (name === "ContentError") return new ContentError(message, { kind });
  const error = new Error(message);
  error.name = name;
  return error;
}

function drop(slot: Slot): void {
  if (slot.idle !== undefined) clearTimeout(slot.idle);
  slot.worker.terminate();
  const i = slots.indexOf(slot);
  if (i >= 0) slots.splice(i, 1);
}

/** Whether `slot` may take the page `waiting` (a second lane takes only small pages). */
function fits(slot: Slot, waiting: Waiting): boolean {
  return !slot.lane || waiting.size <= LANE_MAX_BYTES;
}

/** The first waiting page `slot` may take, out of the queue; undefined when none. */
function nextFor(slot: Slot): Waiting | undefined {
  const i = queue.findIndex((w) => fits(slot, w));
  return i < 0 ? undefined : queue.splice(i, 1)[0];
}

/** Whether `slot` holds a page it has answered: it is building the page's indexes. */
function indexing(slot: Slot): boolean {
  return slot.job?.indexed !== undefined;
}

function release(slot: Slot): void {
  const next = nextFor(slot);
  if (next) {
    next.start(slot);
    return;
  }
  // A second lane, or a worker beyond the pool's size (started while another built its
  // indexes), ends as soon as no page waits for it: its memory goes back at once.
  if (slot.lane || slots.filter((s) => !s.lane).length > poolSize()) {
    drop(slot);
    return;
  }
  const idle = setTimeout(() => drop(slot), idleMs);
  Deno.unrefTimer(idle);
  slot.idle = idle;
}

let laneCheck: ReturnType<typeof setTimeout> | undefined;

/**
 * Starts queued jobs while slots can be had: a free worker, a new one while
 * fewer than the pool's size convert (a worker building the indexes of a
 * page it answered does not count, up to twice the pool's size in all), then
 * the second lane: one more worker for a page of at
 * most {@link LANE_MAX_BYTES}, once every worker of the pool has held its
 * page for {@link LANE_AFTER_MS} (until then a timer looks again).
 */
function pump(): void {
  while (queue.length > 0) {
    const free = slots.find((s) => !s.job && queue.some((w) => fits(s, w)));
    if (free) {
      nextFor(free)!.start(free);
      continue;
    }
    const pool = slots.filter((s) => !s.lane);
    const converting = pool.filter((s) => !indexing(s)).length;
    if (converting < poolSize() && pool.length < 2 * poolSize()) {
      queue.shift()!.start(spawn());
      continue;
    }
    if (slots.length - pool.length >= EXTRA_LANES) return;
    const small = queue.findIndex((w) => w.size <= LANE_MAX_BYTES);
    if (small < 0) return;
    const now = performance.now();
    const held = Math.min(...pool.map((s) => now - (s.job?.started ?? now)));
    if (held < LANE_AFTER_MS) {
      if (laneCheck === undefined) {
        laneCheck = setTimeout(() => {
          laneCheck = undefined;
          pump();
        }, LANE_AFTER_MS - held + 5);
        Deno.unrefTimer(laneCheck);
      }
      return;
    }
    queue.splice(small, 1)[0].start(spawn(true));
  }
}

/** What the pool holds now: its workers, and the pages they convert or index and that wait. */
export interface PoolState {
  /** Workers running (second lane included). */
  workers: number;
  /** Workers converting a page. */
  converting: number;
  /** Workers building the indexes of a page they answered. */
  indexing: number;
  /** Pages waiting for a worker. */
  waiting: number;
}

/** What the pool holds now (for tests and diagnostics). */
export function poolState(): PoolState {
  const indexing_ = slots.filter(indexing).length;
  return {
    workers: slots.length,
    converting: slots.filter((s) => s.job !== undefined).length - indexing_,
    indexing: indexing_,
    waiting: queue.length,
  };
}

/** Whether a worker holds a page now (converting it, or building its indexes). */
export function workersBusy(): boolean {
  return slots.some((s) => s.job !== undefined);
}

/**
 * Converts a page in a worker: the Document's fields, or undefined when
 * workers cannot run here (the caller then converts on its own thread).
 * Aborting `signal` removes a waiting page from the queue, or terminates
 * the worker converting it; the promise rejects with the signal's reason.
 */
export function convertInWorker(
  input: ConvertInput,
  url: string,
  options: HtmlOptions,
  signal?: AbortSignal,
): Promise<ConvertedFields | undefined> {
  if (!workersUsable()) return Promise.resolve(undefined);
  signal?.throwIfAborted();
  if (queue.length >= MAX_QUEUED) {
    return Promise.reject(
      new PoolBusyError(
        `${queue.length} large pages are already waiting to be converted; retry in a minute`,
      ),
    );
  }
  return new Promise<ConvertedFields | undefined>((resolve, reject) => {
    let slot: Slot | undefined;
    const id = nextId++;
    // Shared with the worker: raised on cancel, so the conversion stops itself (cancel.ts).
    const cancel = typeof SharedArrayBuffer === "function" ? new SharedArrayBuffer(4) : undefined;
    /** Lets go of the page: out of the queue, or its conversion stopped and its worker ended. */
    const giveUp = (reason: unknown) => {
      const i = queue.indexOf(waiting);
      if (i >= 0) queue.splice(i, 1);
      if (cancel) raiseCancel(cancel);
      if (slot && slot.job?.id === id) {
        // The CPU work stops now: the worker goes, a fresh one comes when needed.
        clearTimeout(slot.job.timer);
        slot.job = undefined;
        drop(slot);
        pump();
      }
      done();
      reject(reason);
    };
    const onAbort = () => giveUp(signal!.reason);
    const done = () => signal?.removeEventListener("abort", onAbort);
    const size = "html" in input ? input.html.length : input.bytes.length;
    const waiting: Waiting = {
      size,
      start: (s) => {
        slot = s;
        if (s.idle !== undefined) clearTimeout(s.idle);
        s.idle = undefined;
        const deadline = convertDeadlineMs();
        const timer = setTimeout(() => giveUp(tooSlow(url, size, deadline)), deadline);
        Deno.unrefTimer(timer);
        s.job = {
          id,
          started: performance.now(),
          timer,
          cancel,
          resolve: (init) => {
            done();
            resolve(init);
          },
          reject: (error) => {
            done();
            reject(error);
          },
        };
        s.ready.then((ok) => {
          if (s.job?.id !== id) return;
          if (!ok) {
            // The worker could not load: this process converts in-thread from now on.
            usable = false;
            clearTimeout(s.job.timer);
            s.job = undefined;
            done();
            resolve(undefined);
            return;
          }
          if ("html" in input) {
            const job: ConvertJob = { id, html: input.html, url, options, cancel };
            s.worker.postMessage(job);
          } else {
            // Moved, not cloned: a copy unless the caller gave its bytes up and they fill their buffer.
            const bytes = input.give && wholeBuffer(input.bytes)
              ? input.bytes
              : input.bytes.slice();
            const job: ConvertJob = { id, bytes, encoding: input.encoding, url, options, cancel };
            s.worker.postMessage(job, [bytes.buffer as ArrayBuffer]);
          }
        });
      },
      cancel: (reason) => {
        done();
        reject(reason);
      },
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    queue.push(waiting);
    pump();
  });
}

/** Ends every worker and refuses the waiting pages (shutdown, tests). */
export function closeWorkers(): void {
  for (const w of queue.splice(0)) w.cancel(new Error("the server is shutting down"));
  for (const slot of [...slots]) {
    slot.job?.reject(new Error("the server is shutting down"));
    drop(slot);
  }
}
