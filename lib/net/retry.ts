/**
 * Retrying 429 and 503 answers: honour `Retry-After` (seconds or an HTTP
 * date) when the server gives one, back off exponentially when it does not,
 * and give up after a few attempts or when the wait would be unreasonable.
 *
 * @module
 */

/** How retries behave. */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  retries: number;
  /** First backoff delay without Retry-After, doubled each time. */
  baseDelayMs: number;
  /** Longest wait accepted; a longer Retry-After ends the retries. */
  maxDelayMs: number;
}

/** Default: up to 3 retries, 1 s, 2 s, 4 s, waiting at most 30 s for Retry-After. */
export const DEFAULT_RETRY: RetryPolicy = { retries: 3, baseDelayMs: 1000, maxDelayMs: 30_000 };

/** Statuses worth retrying. */
export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/** A Retry-After header value in ms from `now`, or undefined if absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const date = Date.parse(v);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/**
 * The delay before retry number `attempt` (0-based), or undefined when no
 * retry should happen.
 */
export function retryDelay(
  attempt: number,
  retryAfterMs: number | undefined,
  policy: RetryPolicy = DEFAULT_RETRY,
): number | undefined {
  if (attempt >= policy.retries) return undefined;
  if (retryAfterMs !== undefined) {
    return retryAfterMs <= policy.maxDelayMs ? retryAfterMs : undefined;
  }
  return Math.min(policy.baseDelayMs * 2 ** attempt, policy.maxDelayMs);
}
