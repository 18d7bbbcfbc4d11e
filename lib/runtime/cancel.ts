/**
 * Cooperative cancellation of a conversion running in a worker. Deno 2.9.6's
 * `Worker.terminate()` does not interrupt a worker that is running
 * JavaScript, so the pool also raises a flag in memory it shares with the
 * worker, and the HTML walker looks at it every few thousand elements: a
 * cancelled conversion stops within milliseconds instead of running to its
 * end. On the main thread no flag is set and the check costs one
 * comparison, or, inside {@link withinDeadline}, a look at the clock.
 *
 * @module
 */

let flag: Int32Array | undefined;
let deadline = Infinity;

/** Thrown inside a conversion whose caller cancelled it. */
export class ConversionCancelled extends Error {
  /** Creates the error. */
  constructor() {
    super("the conversion was cancelled");
    this.name = "ConversionCancelled";
  }
}

/** Watches `shared` (a worker's job flag) until {@link unwatchCancel}. */
export function watchCancel(shared: SharedArrayBuffer | undefined): void {
  flag = shared ? new Int32Array(shared) : undefined;
}

/** Stops watching. */
export function unwatchCancel(): void {
  flag = undefined;
}

/** Raises the flag of a job (the pool's side). */
export function raiseCancel(shared: SharedArrayBuffer): void {
  Atomics.store(new Int32Array(shared), 0, 1);
}

/** Thrown inside a conversion that ran past its {@link withinDeadline}. */
export class ConversionDeadline extends Error {
  /** Creates the error. */
  constructor() {
    super("the conversion ran past its deadline");
    this.name = "ConversionDeadline";
  }
}

/**
 * Runs `work` (a conversion on this thread) so that the checks inside it
 * throw {@link ConversionDeadline} once `ms` milliseconds have passed.
 */
export function withinDeadline<T>(ms: number, work: () => T): T {
  const outer = deadline;
  deadline = Math.min(outer, performance.now() + ms);
  try {
    return work();
  } finally {
    deadline = outer;
  }
}

/**
 * Throws {@link ConversionCancelled} when the watched job was cancelled, or
 * {@link ConversionDeadline} past the deadline of {@link withinDeadline}.
 */
export function checkCancelled(): void {
  if (flag !== undefined && Atomics.load(flag, 0) !== 0) throw new ConversionCancelled();
  if (deadline !== Infinity && performance.now() > deadline) throw new ConversionDeadline();
}
