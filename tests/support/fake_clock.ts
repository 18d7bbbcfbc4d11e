/**
 * A clock whose time moves only when a test says so. Sleepers wake in time
 * order as the clock is advanced.
 */
import type { Clock } from "../../lib/net/clock.ts";

interface Sleeper {
  at: number;
  resolve: () => void;
}

export class FakeClock implements Clock {
  #now: number;
  #sleepers: Sleeper[] = [];
  #waiters: (() => void)[] = [];

  constructor(start = Date.UTC(2026, 10, 30, 12, 0, 0)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const sleeper = { at: this.#now + Math.max(0, ms), resolve };
      this.#sleepers.push(sleeper);
      signal?.addEventListener("abort", () => {
        this.#sleepers = this.#sleepers.filter((s) => s !== sleeper);
        reject(signal.reason);
      }, { once: true });
      this.#waiters.splice(0).forEach((w) => w());
    });
  }

  /** Wake times (relative to now) of pending sleeps, soonest first. */
  get pending(): number[] {
    return this.#sleepers.map((s) => s.at - this.#now).sort((a, b) => a - b);
  }

  /** Resolves once at least `n` sleeps are pending. */
  async sleepers(n = 1): Promise<void> {
    while (this.#sleepers.length < n) {
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  /** Moves time forward, waking every sleeper that is due, in order. */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    while (true) {
      this.#sleepers.sort((a, b) => a.at - b.at);
      const next = this.#sleepers[0];
      if (!next || next.at > target) break;
      this.#sleepers.shift();
      this.#now = next.at;
      next.resolve();
      // Let the woken code run before the next one wakes.
      for (let i = 0; i < 10; i++) await Promise.resolve();
    }
    this.#now = target;
  }
}
