/**
 * Progress of one call, reported from wherever the work happens (the body
 * reader counting bytes, the converter, the renderer, a source making
 * several requests) without threading a callback through every layer: the
 * face that serves the call runs it inside {@link withProgress}, and the
 * layers ask {@link currentProgress} for the reporter of the call they run
 * in (undefined when nobody listens).
 *
 * The stages count in their own units (bytes downloaded, steps of a render,
 * queries of a search), and a call runs several of them, one after the
 * other, without knowing in advance which will follow. One reporter turns
 * them into one series a client can show as a bar: every notification
 * carries the same `total` ({@link PROGRESS_TOTAL}, a percentage), `progress`
 * only rises and never reaches it (the answer itself says the call is done).
 * Each stage takes a share of the room left ({@link STAGE_SHARE}): within
 * it, a count of a known total moves in proportion, a count without one
 * approaches the stage's end without reaching it. A stage that starts
 * counting again (a second download in the same call) takes a new share.
 * A tool that reports its own steps (stage `tool`: a render's actions, a
 * search's queries) is the outer series: the stages that run during a step
 * (its downloads) share the room up to the next step, so the steps keep
 * their places. The stage's own units are in the message ("downloaded
 * 1.2 MB of 3 MB").
 * Notifications are rate-limited to one per {@link MIN_INTERVAL_MS} (the
 * first report of a stage, each new step of a tool, and a stage's end,
 * always go out).
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** Least time between two notifications of one call, in ms. */
export const MIN_INTERVAL_MS = 200;

/** The `total` of every notification: progress is a percentage of the call. */
export const PROGRESS_TOTAL = 100;

/**
 * The share of the room left that a stage takes, by stage; others take
 * {@link DEFAULT_SHARE}. A download is most of a page read; conversion
 * follows it.
 */
export const STAGE_SHARE: Readonly<Record<string, number>> = {
  download: 0.7,
  convert: 0.7,
  render: 0.7,
  tool: 0.8,
};

/** The share of the room left of a stage {@link STAGE_SHARE} does not name. */
export const DEFAULT_SHARE = 0.5;

/**
 * For a count without a total: the count at which a stage is half done
 * (bytes for a download, steps otherwise).
 */
const HALF_AT: Readonly<Record<string, number>> = { download: 1024 * 1024 };

/**
 * Sends one notification: the protocol's `progress`, `total` and `message`;
 * may return the promise of its sending (see {@link ProgressReporter.sent}).
 */
export type ProgressSink = (
  progress: number,
  total?: number,
  message?: string,
) => void | Promise<unknown>;

/** Progress values are sent to a hundredth of a per cent. */
const round = (n: number) => Math.floor(n * 100) / 100;

/** The stage a tool reports itself: the others run inside its steps. */
const OUTER = "tool";

/** One stage's run: where it starts, its room, its count so far. */
interface Segment {
  stage: string;
  from: number;
  room: number;
  total: number | undefined;
  done: number;
  /** For an inner stage: the outer step it runs in. */
  step: number;
}

/** How far `done` is through a stage of `total` (if known), from 0 to 1. */
function fraction(stage: string, done: number, total: number | undefined): number {
  return total !== undefined ? Math.min(1, done / total) : done / (done + (HALF_AT[stage] ?? 1));
}

/** The progress of one call. */
export class ProgressReporter {
  readonly #sink: ProgressSink;
  readonly #now: () => number;
  /** The tool's own steps, when it reports them. */
  #outer: Segment | undefined;
  /** The stage running now inside them (or alone). */
  #inner: Segment | undefined;
  /** The last value sent (-1: none yet). */
  #last = -1;
  #lastAt = -Infinity;
  /** Settles when every notification so far has been handed to the transport. */
  #sending: Promise<unknown> = Promise.resolve();

  /** Creates a reporter sending through `sink`. */
  constructor(sink: ProgressSink, now: () => number = () => performance.now()) {
    this.#sink = sink;
    this.#now = now;
  }

  /**
   * Reports `done` of `total` (if known) in `stage` (`download`, `convert`,
   * `render`, or `tool`, a tool's own steps, inside which the others run),
   * with a message for people.
   */
  report(stage: string, done: number, total?: number, message?: string): void {
    const count = Math.max(0, Number.isFinite(done) ? done : 0);
    const known = total !== undefined && Number.isFinite(total) && total > 0 ? total : undefined;
    const last = Math.max(this.#last, 0);
    const outer = this.#outer;
    let segment: Segment;
    let first: boolean;
    // A tool's next step (a render's next action) goes out like a stage's first report: steps
    // are few, and each says what is being done now.
    let step = false;
    if (stage === OUTER) {
      first = !outer || count < outer.done || known !== outer.total;
      step = !first && count !== outer!.done;
      segment = first ? this.#segment(stage, known, PROGRESS_TOTAL, 0) : outer!;
      this.#outer = segment;
      if (segment.done !== count) this.#inner = undefined;
    } else {
      // Inside the tool's current step, or the whole call when the tool reports none.
      const step = outer ? outer.done : 0;
      const ceiling = outer && !(outer.total !== undefined && outer.done >= outer.total)
        ? outer.from + outer.room * fraction(OUTER, outer.done + 1, outer.total)
        : PROGRESS_TOTAL;
      const inner = this.#inner;
      first = !inner || inner.stage !== stage || count < inner.done || known !== inner.total ||
        inner.step !== step;
      segment = first ? this.#segment(stage, known, Math.max(ceiling, last), step) : inner!;
      this.#inner = segment;
    }
    segment.done = count;
    let value = round(segment.from + segment.room * fraction(stage, count, known));
    // A stage's first report goes out (its message says what is being done now).
    if (first && value <= this.#last) value = round(this.#last + 0.01);
    if (value <= this.#last || value >= PROGRESS_TOTAL) return;
    const end = known !== undefined && count >= known;
    const at = this.#now();
    if (!first && !step && !end && at - this.#lastAt < MIN_INTERVAL_MS) return;
    this.#last = value;
    this.#lastAt = at;
    const sending = this.#sink(value, PROGRESS_TOTAL, message);
    if (sending) this.#sending = Promise.all([this.#sending, sending.catch(() => {})]);
  }

  /**
   * Settles when the notifications sent so far are on their way: a tool that
   * awaits its own report, and the answer of the call, come after them.
   */
  sent(): Promise<void> {
    return this.#sending.then(() => {});
  }

  /** A new run of `stage`: its share of the room between the last value and `ceiling`. */
  #segment(stage: string, total: number | undefined, ceiling: number, step: number): Segment {
    const from = Math.max(this.#last, 0);
    const room = Math.max(0, ceiling - from) * (STAGE_SHARE[stage] ?? DEFAULT_SHARE);
    return { stage, from, room, total, done: 0, step };
  }
}

const storage = new AsyncLocalStorage<ProgressReporter>();

/** Runs `fn` with `reporter` as the current call's progress. */
export function withProgress<T>(reporter: ProgressReporter | undefined, fn: () => T): T {
  return reporter ? storage.run(reporter, fn) : fn();
}

/** The progress of the call running now, if its client asked for progress. */
export function currentProgress(): ProgressReporter | undefined {
  return storage.getStore();
}
