/**
 * Counting the terms of one text at a time, by term number, for the index
 * builders (`search.ts`, `query_extract.ts`): one reused array of counts and
 * the list of terms the current text touched, so a text costs no map and a
 * term no allocation.
 *
 * @module
 */
import { grown } from "../../runtime/memory.ts";

/** Term frequencies of the text being counted. */
export class TermCounts {
  #counts = new Uint32Array(1024);
  #touched: number[] = [];
  /** Terms counted since the last {@link drain}. */
  length = 0;

  /** Counts one occurrence of term `id` (term numbers are dense, from 0). */
  add(id: number): void {
    if (id >= this.#counts.length) {
      this.#counts = grown(this.#counts, Math.max(this.#counts.length * 2, id + 1));
    }
    if (this.#counts[id]++ === 0) this.#touched.push(id);
    this.length++;
  }

  /**
   * Calls `each` with every term the text had and its frequency, in the order
   * first seen, then starts over for the next text.
   */
  drain(each: (id: number, tf: number) => void): void {
    const counts = this.#counts;
    for (const id of this.#touched) {
      const tf = counts[id];
      counts[id] = 0;
      each(id, tf);
    }
    this.#touched.length = 0;
    this.length = 0;
  }
}
