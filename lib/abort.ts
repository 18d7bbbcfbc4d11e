/**
 * Waiting for work that one caller may stop waiting for: the work goes on
 * (others may share it), only this wait ends when the caller's signal
 * aborts.
 *
 * @module
 */

/** `work`, or its caller's abort (rejecting with the signal's reason), whichever comes first. */
export function abortable<T>(work: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
