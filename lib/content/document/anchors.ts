/**
 * A page's anchors (element id to Markdown offset) as a few flat parts
 * rather than a Map: the ids joined into one string in page order, where
 * each starts, their offsets, and their order by id for lookups. A large
 * specification has 70,000 ids; as a Map that is 70,000 strings and a hash
 * table that every full collection of a cached page visits, and that a
 * worker's reply costs the main thread tens of milliseconds to rebuild. As
 * parts it is one string and three typed arrays, which move between threads
 * without copying and cost a collection next to nothing.
 *
 * It reads like a `ReadonlyMap`: `get`, `has`, `size`, and iteration in page
 * order (the first id at an offset names its section, see sections.ts).
 * The order by id, which only lookups read, is sorted at the first lookup
 * (or when the table is sent to another thread): an outline or a page cut
 * to its budget never looks an id up, and a one-shot command that answers
 * with one of them does not pay for the sort (28 ms on WHATWG HTML).
 *
 * @module
 */
import { isWide, stringBytes, typedArrayBytes } from "../../runtime/heap.ts";
import { AnchorList } from "../html/anchor_list.ts";

/** An {@link AnchorTable} as plain data and typed arrays, for another thread. */
export interface AnchorParts {
  /** The ids, joined without separators, in page order. */
  ids: string;
  /** Where id `k` starts in `ids` (one entry more, for the end). */
  starts: Int32Array<ArrayBuffer>;
  /** The Markdown offset of id `k`. */
  offsets: Int32Array<ArrayBuffer>;
  /** The ids' numbers sorted by id (code unit order). */
  order: Int32Array<ArrayBuffer>;
}

/** What a table can be made from: a Map, or another table. */
export type AnchorSource = ReadonlyMap<string, number> | AnchorTable;

/** Anchors as flat parts; see the module notes. */
export class AnchorTable implements Iterable<[string, number]> {
  readonly #ids: string;
  readonly #starts: Int32Array<ArrayBuffer>;
  readonly #offsets: Int32Array<ArrayBuffer>;
  /** The order by id, sorted at the first lookup when the table was made from a Map. */
  #sorted?: Int32Array<ArrayBuffer>;
  readonly #wide: boolean;
  /** The table of a page without ids (shared: it holds nothing). */
  static readonly #empty: AnchorTable = new AnchorTable({
    ids: "",
    starts: new Int32Array(1),
    offsets: new Int32Array(0),
    order: new Int32Array(0),
  });

  private constructor(parts: Omit<AnchorParts, "order"> & { order?: Int32Array<ArrayBuffer> }) {
    this.#ids = parts.ids;
    this.#starts = parts.starts;
    this.#offsets = parts.offsets;
    this.#sorted = parts.order;
    this.#wide = isWide(parts.ids);
  }

  /** The table of `anchors` (a Map's ids are distinct; the table keeps them in its order). */
  static from(anchors?: AnchorSource): AnchorTable {
    if (anchors instanceof AnchorTable) return anchors;
    if (!anchors || anchors.size === 0) return AnchorTable.#empty;
    // The converter's list: its two lists as they are.
    if (anchors instanceof AnchorList) {
      return AnchorTable.fromList(anchors.idList(), anchors.offsetList());
    }
    const ids: string[] = [];
    const offsets = new Int32Array(anchors.size);
    let k = 0;
    for (const [id, offset] of anchors) {
      ids.push(id);
      offsets[k++] = offset;
    }
    return AnchorTable.fromList(ids, offsets);
  }

  /**
   * The table of distinct `ids` in page order and their offsets (`offsets`
   * as long as `ids`, and kept by the table), as the converter finds them.
   */
  static fromList(ids: readonly string[], offsets: Int32Array<ArrayBuffer>): AnchorTable {
    if (ids.length === 0) return AnchorTable.#empty;
    const starts = new Int32Array(ids.length + 1);
    for (let k = 0; k < ids.length; k++) starts[k + 1] = starts[k] + ids[k].length;
    // One new string: it shares nothing with the page the ids were cut from.
    return new AnchorTable({ ids: ids.join(""), starts, offsets });
  }

  /** The ids' numbers sorted by id, sorted now if they were not yet. */
  get #order(): Int32Array<ArrayBuffer> {
    if (this.#sorted) return this.#sorted;
    const n = this.size;
    const ids: string[] = new Array(n);
    for (let k = 0; k < n; k++) ids[k] = this.#id(k);
    // Sorted as an array, then typed: an array's sort calls a comparator sooner than a typed
    // array's (WHATWG HTML's 70,697 ids: 28 ms against 39 ms).
    const byId = Array.from(ids.keys());
    byId.sort((a, b) => (ids[a] < ids[b] ? -1 : ids[a] > ids[b] ? 1 : 0));
    return this.#sorted = Int32Array.from(byId);
  }

  /** Whether the order by id is sorted yet (it is at the first lookup), for tests. */
  get sorted(): boolean {
    return this.#sorted !== undefined;
  }

  /** A table made from {@link toParts} (another thread's): nothing is rebuilt. */
  static fromParts(parts: AnchorParts): AnchorTable {
    const n = parts.offsets.length;
    if (
      parts.starts.length !== n + 1 || parts.order.length !== n ||
      parts.starts[n] !== parts.ids.length
    ) {
      throw new Error("anchor parts that do not fit together");
    }
    return n === 0 ? AnchorTable.#empty : new AnchorTable(parts);
  }

  /** The table as plain data (see {@link AnchorTable.buffersOf} to move it). */
  toParts(): AnchorParts {
    return { ids: this.#ids, starts: this.#starts, offsets: this.#offsets, order: this.#order };
  }

  /**
   * The buffers to transfer with `parts` (once they are, the sending thread's
   * table is empty: for a table made to be sent). None for a page without
   * ids: the empty table is shared, and moving its arrays would empty it.
   */
  static buffersOf(parts: AnchorParts): ArrayBuffer[] {
    return parts.offsets.length === 0
      ? []
      : [parts.starts.buffer, parts.offsets.buffer, parts.order.buffer];
  }

  /** Distinct ids. */
  get size(): number {
    return this.#offsets.length;
  }

  /** The id numbered `k` (page order). */
  #id(k: number): string {
    return this.#ids.slice(this.#starts[k], this.#starts[k + 1]);
  }

  /** `id` against id number `k`, in code unit order, without making a string. */
  #compare(id: string, k: number): number {
    const from = this.#starts[k];
    const length = this.#starts[k + 1] - from;
    const n = Math.min(length, id.length);
    for (let i = 0; i < n; i++) {
      const d = id.charCodeAt(i) - this.#ids.charCodeAt(from + i);
      if (d !== 0) return d;
    }
    return id.length - length;
  }

  /** The offset of `id`, if the page had it. */
  get(id: string): number | undefined {
    const order = this.#order;
    let lo = 0;
    let hi = order.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const k = order[mid];
      const d = this.#compare(id, k);
      if (d === 0) return this.#offsets[k];
      if (d < 0) hi = mid - 1;
      else lo = mid + 1;
    }
    return undefined;
  }

  /** Whether the page had `id`. */
  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  /** The ids in page order. */
  *keys(): IterableIterator<string> {
    for (let k = 0; k < this.size; k++) yield this.#id(k);
  }

  /** Id and offset pairs in page order. */
  *entries(): IterableIterator<[string, number]> {
    for (let k = 0; k < this.size; k++) yield [this.#id(k), this.#offsets[k]];
  }

  [Symbol.iterator](): IterableIterator<[string, number]> {
    return this.entries();
  }

  /**
   * Heap bytes held: the joined ids and the three arrays (the order by id
   * counted before it is sorted: it is as long as the offsets, and the page
   * cache's count of a page must not change with a lookup).
   */
  approxBytes(): number {
    if (this === AnchorTable.#empty) return 0;
    return stringBytes(this.#ids.length, this.#wide) + typedArrayBytes(this.#starts.byteLength) +
      2 * typedArrayBytes(this.#offsets.byteLength);
  }
}
