/**
 * What structures cost on V8's heap, for the page cache's byte bound: a
 * model of the 64-bit heap Deno runs on (no pointer compression: a pointer
 * or a small integer is 8 bytes), checked against measured retained heap by
 * `bench/document_memory.ts`. Counting from the structures themselves keeps
 * the bound true for small pages, where fixed costs per term and per array
 * dominate, as well as for large ones.
 *
 * @module
 */

/** A pointer or small integer in an object, array or map slot. */
export const WORD = 8;
/** A plain object's header (map, properties, elements). */
export const OBJECT = 3 * WORD;
/** A JS array's header plus its backing store's header. */
export const ARRAY = OBJECT + WORD + 2 * WORD;
/** A typed array with its buffer (the view, the ArrayBuffer and its bookkeeping). */
export const TYPED_ARRAY = 160;
/** One entry of a Map or Set, with the hash table's spare room. */
export const MAP_ENTRY = 3 * WORD * 1.5 + WORD;
/** A Map or Set's fixed part. */
export const MAP = 120;

/**
 * Bytes of a string of `length` characters; `wide` when it holds characters
 * past U+00FF (V8 then stores two bytes per character).
 */
export function stringBytes(length: number, wide = false): number {
  return 2 * WORD + Math.ceil((length * (wide ? 2 : 1)) / WORD) * WORD;
}

/** Whether `text` needs two bytes per character on the heap. */
export function isWide(text: string): boolean {
  return /[\u0100-\uffff]/.test(text);
}

/**
 * The capacity V8 gives an array grown by `push` to `length` elements
 * (each growth makes room for half as many again plus 16).
 */
export function pushedCapacity(length: number): number {
  let capacity = 0;
  while (capacity < length) capacity = capacity + (capacity >> 1) + 16;
  return capacity;
}

/** Bytes of an array grown by `push` to `length` elements of small values. */
export function pushedArrayBytes(length: number): number {
  return ARRAY + pushedCapacity(length) * WORD;
}

/** Bytes of an array made at its final size (a literal, `map`, `slice`). */
export function arrayBytes(length: number): number {
  return ARRAY + length * WORD;
}

/** Bytes of a typed array of `bytes` bytes of data. */
export function typedArrayBytes(bytes: number): number {
  return TYPED_ARRAY + bytes;
}
