/**
 * A page's anchors as the converter finds them: each element id once (the
 * first one wins), in page order, with its Markdown offset.
 *
 * Not a Map, which hashes every id in full: WHATWG HTML has 70,000 ids of
 * 40 characters on average, which V8 reads at a few nanoseconds a
 * character, and hashing them took tens of milliseconds of its conversion.
 * Here an id is hashed by its length and twelve of its characters, and
 * compared whole only with an id that agrees on those. When the lookups
 * take too many steps (a page built so that its ids collide), a Map tells
 * them apart from then on, so no page makes it quadratic.
 *
 * It reads like a `ReadonlyMap`; the Document turns it into its
 * `AnchorTable` from the two lists, without a pass over pairs.
 *
 * @module
 */
import { grown } from "../../runtime/memory.ts";

/**
 * Slots visited per id, over the page, before a Map takes over (with the
 * table at most half full, a lookup visits two or three).
 */
const PROBES_PER_ID = 16;

/**
 * A hash of `id` from its length, eight characters spread over it and its
 * last four (all of a short one): on WHATWG HTML's ids, 4,400 pairs agree
 * on those where eight characters spread over the whole left 14,600.
 */
function sampleHash(id: string): number {
  const n = id.length;
  let h = Math.imul(n, 0x9e3779b1);
  if (n <= 12) {
    for (let i = 0; i < n; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  } else {
    for (let i = 0; i < 8; i++) h = Math.imul(h ^ id.charCodeAt((i * (n - 5)) >> 3), 0x01000193);
    for (let i = n - 4; i < n; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  }
  return h ^ (h >>> 15);
}

/** Ids and their offsets in page order; see the module notes. */
export class AnchorList implements ReadonlyMap<string, number> {
  #ids: string[] = [];
  #offsets = new Int32Array(256);
  #hashes = new Int32Array(256);
  /** Open addressing: 1 + the number of the id in each slot, or 0 (undefined: to rebuild). */
  #slots: Int32Array | undefined = new Int32Array(512);
  /** Set once ids collided too often; it then holds every id. */
  #map: Map<string, number> | undefined;
  #probes = 0;

  /** Records `id` at `offset`, unless it was recorded before. */
  add(id: string, offset: number): void {
    const h = sampleHash(id);
    if (this.#find(id, h) >= 0) return;
    const k = this.#ids.length;
    if (k === this.#offsets.length) {
      this.#offsets = grown(this.#offsets, k * 2);
      this.#hashes = grown(this.#hashes, k * 2);
    }
    this.#ids.push(id);
    this.#offsets[k] = offset;
    if (this.#map !== undefined) {
      this.#map.set(id, k);
      return;
    }
    this.#hashes[k] = h;
    if (2 * (k + 1) > this.#slots!.length) this.#rebuild(this.#slots!.length * 2);
    else this.#place(k, h);
  }

  /** The number of `id`, or -1. */
  #find(id: string, h: number): number {
    if (this.#map !== undefined) return this.#map.get(id) ?? -1;
    if (this.#slots === undefined) this.#rebuild(this.#tableSize());
    const slots = this.#slots!;
    const mask = slots.length - 1;
    for (let at = h & mask; slots[at] !== 0; at = (at + 1) & mask) {
      if (++this.#probes > PROBES_PER_ID * (this.#ids.length + 64)) {
        this.#map = new Map(this.#ids.map((s, j) => [s, j]));
        this.#slots = undefined;
        return this.#map.get(id) ?? -1;
      }
      const k = slots[at] - 1;
      if (this.#hashes[k] === h && this.#ids[k] === id) return k;
    }
    return -1;
  }

  #place(k: number, h: number): void {
    const slots = this.#slots!;
    const mask = slots.length - 1;
    let at = h & mask;
    while (slots[at] !== 0) at = (at + 1) & mask;
    slots[at] = k + 1;
  }

  /** A power of two at least twice the ids. */
  #tableSize(): number {
    let size = 512;
    while (size < 2 * this.#ids.length) size *= 2;
    return size;
  }

  #rebuild(size: number): void {
    this.#slots = new Int32Array(size);
    for (let k = 0; k < this.#ids.length; k++) this.#place(k, this.#hashes[k]);
  }

  /**
   * Keeps the ids whose new offset (`moved[k]` for id `k`) is not negative,
   * at that offset, in the same order.
   */
  retain(moved: Int32Array): void {
    let kept = 0;
    for (let k = 0; k < this.#ids.length; k++) {
      if (moved[k] < 0) continue;
      this.#ids[kept] = this.#ids[k];
      this.#offsets[kept] = moved[k];
      this.#hashes[kept] = this.#hashes[k];
      kept++;
    }
    this.#ids.length = kept;
    if (this.#map !== undefined) this.#map = new Map(this.#ids.map((s, j) => [s, j]));
    else this.#slots = undefined;
  }

  /** The ids in page order. */
  idList(): readonly string[] {
    return this.#ids;
  }

  /** Their offsets, one for each id (a new array). */
  offsetList(): Int32Array<ArrayBuffer> {
    return this.#offsets.slice(0, this.#ids.length);
  }

  get size(): number {
    return this.#ids.length;
  }

  get(id: string): number | undefined {
    const k = this.#find(id, sampleHash(id));
    return k < 0 ? undefined : this.#offsets[k];
  }

  has(id: string): boolean {
    return this.#find(id, sampleHash(id)) >= 0;
  }

  *keys(): MapIterator<string> {
    for (let k = 0; k < this.#ids.length; k++) yield this.#ids[k];
  }

  *values(): MapIterator<number> {
    for (let k = 0; k < this.#ids.length; k++) yield this.#offsets[k];
  }

  *entries(): MapIterator<[string, number]> {
    for (let k = 0; k < this.#ids.length; k++) yield [this.#ids[k], this.#offsets[k]];
  }

  [Symbol.iterator](): MapIterator<[string, number]> {
    return this.entries();
  }

  forEach(each: (value: number, key: string, map: ReadonlyMap<string, number>) => void): void {
    for (let k = 0; k < this.#ids.length; k++) each(this.#offsets[k], this.#ids[k], this);
  }
}
