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
