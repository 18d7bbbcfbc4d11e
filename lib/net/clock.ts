/**
 * Time, behind an interface, so limiter spacing, retry backoff and cache
 * expiry are tested with a fake clock instead of sleeps.
 *
 * @module
 */

/** A source of time and delays. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`; rejects with the signal's reason if aborted first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real clock. */
export const realClock: Clock = {
  now: () => Date.now(),
  sleep(ms, signal) {
    if (ms <= 0) return signal?.aborted ? Promise.reject(signal.reason) : Promise.resolve();
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal!.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  },
};

/**
 * A clock whose waits pass `factor` times faster (its time jumps ahead by
 * the part of each wait it skips), so the limiter's spacing and retry
 * backoff keep their order and arithmetic while costing little real time.
 * Used only when exchanges are replayed (tests): recorded answers need no
 * politeness towards the real service.
 */
export function fastClock(factor: number): Clock {
  let skipped = 0;
  return {
    now: () => Date.now() + skipped,
    sleep(ms, signal) {
      if (ms > 0) skipped += ms * (1 - factor);
      return realClock.sleep(ms * factor, signal);
    },
  };
}
