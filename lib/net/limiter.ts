/**
 * Per-host request spacing. Callers queue for their slot rather than fail:
 * each host has a minimum interval between request starts, and concurrent
 * callers take successive slots in arrival order.
 *
 * Intervals (by host suffix) follow each service's published guidance:
 * arXiv 3 s, Reddit 2 s, Semantic Scholar, GitHub, Hugging Face, IETF
 * Datatracker, deps.dev and Wikimedia 1 s, CrossRef and doi.org 0.2 s,
 * DataCite 0.1 s. Sources for hosts that are not known by name (any
 * MediaWiki or Discourse site) pass their interval with the request.
 *
 * @module
 */
import type { Clock } from "./clock.ts";
import { log } from "../log.ts";

/** Slots kept outside this process (the shared store), so replicas space requests together. */
export interface SharedSlots {
  /** Reserves the next slot; resolves to the wait in ms. */
  reserveSlot(key: string, intervalMs: number): Promise<number>;
  /** Moves the next slot at least `waitMs` from now. */
  pushBack(key: string, waitMs: number): Promise<void>;
}

/** Interval in ms by host suffix; the longest matching suffix wins. */
export const HOST_INTERVALS: Record<string, number> = {
  "arxiv.org": 3000,
  "reddit.com": 2000,
  "redd.it": 2000,
  "api.semanticscholar.org": 1000,
  "api.github.com": 1000,
  "raw.githubusercontent.com": 1000,
  "huggingface.co": 1000,
  "datatracker.ietf.org": 1000,
  "api.deps.dev": 1000,
  "wikipedia.org": 1000,
  "wikimedia.org": 1000,
  "wiktionary.org": 1000,
  "wikidata.org": 1000,
  "wikivoyage.org": 1000,
  "wikibooks.org": 1000,
  "wikiquote.org": 1000,
  "wikisource.org": 1000,
  "wikinews.org": 1000,
  "wikiversity.org": 1000,
  "wikifunctions.org": 1000,
  "mediawiki.org": 1000,
  "api.crossref.org": 200,
  "doi.org": 200,
  "api.datacite.org": 100,
};

/** A limiter key and interval. */
export interface Limit {
  /** Hosts sharing a key share one sequence of slots (all of reddit.com, say). */
  key: string;
  /** Minimum spacing between request starts, in ms. */
  intervalMs: number;
}

/** Intervals a deployment set (`PARKOUR_HOST_INTERVALS`), over the table's. */
const overrides = new Map<string, number>();

/** Sets the deployment's intervals by host suffix (replacing earlier ones). */
export function setHostIntervals(table: Record<string, number>): void {
  overrides.clear();
  for (const [host, ms] of Object.entries(table)) {
    overrides.set(host.toLowerCase().replace(/\.$/, ""), ms);
  }
}

/**
 * Reads `host=ms,host=ms` (`PARKOUR_HOST_INTERVALS`); throws with the entry
 * and the expected form when one does not parse.
 */
export function parseHostIntervals(value: string): Record<string, number> {
  const table: Record<string, number> = {};
  for (const entry of value.split(",").map((e) => e.trim()).filter(Boolean)) {
    const m = /^([a-z0-9.:\-\[\]]+)=(\d{1,7})$/i.exec(entry);
    if (!m) {
      throw new Error(
        `PARKOUR_HOST_INTERVALS entry '${entry}' is not host=milliseconds (for example arxiv.org=3000,example.org=500)`,
      );
    }
    table[m[1]] = Number(m[2]);
  }
  return table;
}

/** The limit for `host` from the table (interval 0 when none applies). */
export function limitFor(host: string): Limit {
  const h = host.toLowerCase().replace(/\.$/, "");
  let best = "";
  let interval = 0;
  for (const [suffix, ms] of [...Object.entries(HOST_INTERVALS), ...overrides]) {
    const matches = h === suffix || h.endsWith("." + suffix);
    if (matches && (suffix.length > best.length || (suffix === best && overrides.has(suffix)))) {
      best = suffix;
      interval = ms;
    }
  }
  return best ? { key: best, intervalMs: interval } : { key: h, intervalMs: 0 };
}

/**
 * Spaces request starts per key (a host, or a group of hosts). With shared
 * slots, the spacing holds across every process sharing them; when the
 * store fails, this process keeps its own spacing.
 */
export class HostLimiter {
  readonly #next = new Map<string, number>();
  readonly #clock: Clock;
  readonly #shared?: () => SharedSlots | undefined;

  /** Creates a limiter on `clock`, with the shared slots `shared` returns (if any). */
  constructor(clock: Clock, shared?: () => SharedSlots | undefined) {
    this.#clock = clock;
    this.#shared = shared;
  }

  /**
   * After a 429 or 503 with a wait, no request of `key` starts before it is
   * over (in every process sharing the slots).
   */
  async backOff(key: string, waitMs: number): Promise<void> {
    if (waitMs <= 0) return;
    const until = this.#clock.now() + waitMs;
    if ((this.#next.get(key) ?? 0) < until) this.#next.set(key, until);
    const shared = this.#shared?.();
    if (shared) {
      await shared.pushBack(key, waitMs).catch((error) =>
        log("debug", "shared back-off failed", error)
      );
    }
  }

  /**
   * Waits for the next slot of `key` spaced `intervalMs` from the previous
   * one. The slot is reserved at call time, so callers are served in order.
   */
  async acquire(key: string, intervalMs: number, signal?: AbortSignal): Promise<void> {
    if (intervalMs <= 0) return;
    const shared = this.#shared?.();
    if (shared) {
      try {
        const wait = await shared.reserveSlot(key, intervalMs);
        // A local back-off (a 429 seen here) still applies.
        const local = Math.max(0, (this.#next.get(key) ?? 0) - this.#clock.now());
        const total = Math.max(wait, local);
        if (total > 0) await this.#clock.sleep(total, signal);
        return;
      } catch (error) {
        log("debug", "shared request slot failed; spacing in this process", error);
      }
    }
    const now = this.#clock.now();
    const slot = Math.max(now, this.#next.get(key) ?? 0);
    this.#next.set(key, slot + intervalMs);
    if (slot > now) await this.#clock.sleep(slot - now, signal);
  }
}
