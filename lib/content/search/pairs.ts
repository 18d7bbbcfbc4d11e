/**
 * Numbers in pairs in one growing typed array, for the postings of an
 * index while it is built (the search index's slices, the question index's
 * units).
 *
 * @module
 */
import { freeArrays } from "../../runtime/memory.ts";

/**
 * Numbers in pairs in one typed array grown by half as it fills: the
 * (term, frequency) pairs of a whole page, 8 bytes each outside the heap,
 * given back at once. Two arrays per term in the heap (documents and
 * frequencies) held them at 16 bytes and more, outlived the young
 * generation and grew the old one: on a made-up 16 MB page (1.7 million
 * postings) the index's build lifted the peak by 87 to 117 MiB with 8 MB
 * semi-spaces, by 49 MiB with this array.
 */
export class Pairs {
  array = new Uint32Array(4096);
  length = 0;

  /** Appends `a` and `b`. */
  push(a: number, b: number): void {
    if (this.length + 2 > this.array.length) {
      const grown = new Uint32Array(Math.ceil(this.array.length * 1.5) + 2);
      grown.set(this.array);
      freeArrays([this.array]);
      this.array = grown;
    }
    this.array[this.length++] = a;
    this.array[this.length++] = b;
  }

  /** The number at `i`. */
  at(i: number): number {
    return this.array[i];
  }

  /** Gives the array's memory back at once. */
  free(): void {
    freeArrays([this.array]);
    this.length = 0;
  }
}
