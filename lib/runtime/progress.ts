/**
 * Progress of one call, reported from wherever the work happens (the body
 * reader counting bytes, the converter, the renderer, a source making
 * several requests) without threading a callback through every layer: the
 * face that serves the call runs it inside {@link withProgress}, and the
 * layers ask {@link currentProgress} for the reporter of the call they run
 * in (undefined when nobody listens).
 *
 * One reporter turns the stages' own counts into one series a client can
 * show: `progress` only grows (each stage continues from where the last one
 * ended, as the protocol requires), `total` is given when the stage knows
 * it, and notifications are rate-limited to one per {@link MIN_INTERVAL_MS}
 * (the first report of a stage, and a stage's end, always go out).
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** Least time between two notifications of one call, in ms. */
export const MIN_INTERVAL_MS = 200;

/** Sends one notification: the protocol's `progress`, `total` and `message`. */
export type ProgressSink = (progress: number, total?: number, message?: string) => void;

/** The progress of one call. */
export class ProgressReporter {
  readonly #sink: ProgressSink;
  readonly #now: () => number;
  #stage = "";
  #base = 0;
  #last = -1;
  #lastAt = -Infinity;

  /** Creates a reporter sending through `sink`. */
  constructor(sink: ProgressSink, now: () => number = () => performance.now()) {
    this.#sink = sink;
    this.#now = now;
  }

  /**
   * Reports `done` of `total` (if known) in `stage` (`download`, `convert`,
   * `render`, or a tool's own), with a message for people.
   */
  report(stage: string, done: number, total?: number, message?: string): void {
    const first = stage !== this.#stage;
    if (first) {
      this.#base = Math.max(this.#last, 0) + (this.#last >= 0 ? 1 : 0);
      this.#stage = stage;
    }
    const value = this.#base + Math.max(0, done);
    if (value <= this.#last) return;
    const end = total !== undefined && done >= total;
    const at = this.#now();
    if (!first && !end && at - this.#lastAt < MIN_INTERVAL_MS) return;
    this.#last = value;
    this.#lastAt = at;
    this.#sink(value, total === undefined ? undefined : this.#base + total, message);
  }
}

const storage = new AsyncLocalStorage<ProgressReporter>();

/** Runs `fn` with `reporter` as the current call's progress. */
export function withProgress<T>(reporter: ProgressReporter | undefined, fn: () => T): T {
  return reporter ? storage.run(reporter, fn) : fn();
}

/** The progress reporter of the call running now, if its client asked for progress. */
export function currentProgress(): ProgressReporter | undefined {
  return storage.getStore();
}
