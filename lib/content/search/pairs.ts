/**
 * Numbers in pairs in one growing typed array, for the postings of an
 * index while it is built (the search index's slices, the question index's
 * units).
 *
 * @module
 */
import { freeArrays, grown } from "../../runtime/memory.ts";

/**
 * Numbers in pairs in one typed array grown by half as it fills: the
 * (term, frequency) pairs of a whole page, 8 bytes each outside the heap,
 * given back at once. Two arrays per term in the heap (documents and
 * frequencies) held them at 16 bytes and more, outlived the young
 * generation and grew the old one: on a made-up 16 MB page (1.7 million
 * postings) the index's build lifted the peak by 87 to 117 MiB with 8 MB
 * semi-spaces, by 49 MiB with this array.
 */
class Pairs {
  array = new Uint32Array(4096);
  length = 0;

  /** Appends `a` and `b`. */
  push(a: number, b: number): void {
    if (this.length + 2 > this.array.length) {
      const old = this.array;
      this.array = grown(old, Math.ceil(old.length * 1.5) + 2);
      freeArrays([old]);
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

/** Where {@link TermPairs.layout} puts each term's postings. */
export interface PairsLayout {
  /** Where each term's postings start (`width` numbers a posting); `start[vocabulary]` the end. */
  start: Uint32Array<ArrayBuffer>;
  /** Per term, the next free place (from `start`): a caller placing a posting moves it on. */
  next: Uint32Array;
  /** The (term, frequency) pairs, text after text. */
  pairs: Uint32Array;
  /** Where each text's pairs end in `pairs`. */
  ends: Uint32Array;
}

/**
 * The postings of an index while it is built (the search index's slices,
 * the question index's units): each text's (term, frequency) pairs, text
 * after text, in one {@link Pairs} array, how many texts hold each term, and
 * where each text's pairs end; laid out per term once every text is read.
 */
export class TermPairs {
  readonly #pairs = new Pairs();
  readonly #ends: Uint32Array;
  #held = new Uint32Array(1024);
  /** Terms seen: ids run from 0, a new term taking the next. */
  vocabulary = 0;

  constructor(texts: number) {
    this.#ends = new Uint32Array(texts);
  }

  /** Notes term `id`: one seen before, or the next new id. */
  see(id: number): void {
    if (id === this.vocabulary && ++this.vocabulary > this.#held.length) {
      this.#held = grown(this.#held, this.#held.length * 2);
    }
  }

  /** Adds term `id` at frequency `tf` to the text being read. */
  readonly add = (id: number, tf: number): void => {
    this.#held[id]++;
    this.#pairs.push(id, tf);
  };

  /** Pairs added so far (twice the postings). */
  get length(): number {
    return this.#pairs.length;
  }

  /** The number at `k` of the pairs added. */
  at(k: number): number {
    return this.#pairs.at(k);
  }

  /** Ends text `text`: the pairs added since the last end are its own. */
  end(text: number): void {
    this.#ends[text] = this.#pairs.length;
  }

  /** Where each term's postings go, `width` numbers each, texts in the order they came. */
  layout(width: number): PairsLayout {
    const terms = this.vocabulary;
    const start = new Uint32Array(terms + 1);
    for (let t = 0; t < terms; t++) start[t + 1] = start[t] + width * this.#held[t];
    const next = this.#held.subarray(0, terms);
    next.set(start.subarray(0, terms));
    return { start, next, pairs: this.#pairs.array, ends: this.#ends };
  }

  /** Gives the pairs' memory back at once (after the layout has been filled). */
  free(): void {
    this.#pairs.free();
  }
}
