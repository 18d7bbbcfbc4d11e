/**
 * o200k_base, the byte-pair encoding behind the exact token counts, in
 * tables of a few megabytes.
 *
 * The ranks are gpt-tokenizer's own file of them (`data/o200k_base.tiktoken`:
 * each token's bytes in base64 and its rank, a line each), imported as bytes
 * and read into one pool of token bytes, their offsets and an open-addressed
 * hash table of typed arrays: about 6 MB, built in some tens of
 * milliseconds. gpt-tokenizer's encoding module instead compiles a 2.4 MB
 * module of 200,000 string literals and keeps a Map of them: about 60 MB
 * more at its peak and 0.2-0.3 s to load, in every process that counts a
 * token (the one-shot command, each server). The encoding itself is the
 * standard one: the text is cut into pre-tokens by o200k's pattern (the one
 * gpt-tokenizer runs), and the bytes of each are merged pair by pair, the
 * pair of lowest rank first (the leftmost of equals), until no adjacent pair
 * is a token; a pre-token whose bytes are a token is that token. Special
 * tokens (`<|endoftext|>`) are read as text, as the counts ask.
 *
 * It gives gpt-tokenizer's tokens (checked on every token of the vocabulary,
 * on random text in many scripts and on the captured pages) but where a
 * pre-token holds U+FEFF, the byte order mark: gpt-tokenizer looks byte
 * pairs up by decoding them to a string, its decoder drops a leading byte
 * order mark, and the pairs that start with one are never merged or are
 * taken for other tokens ("\uFEFFusing": three tokens there, one here and in
 * OpenAI's tiktoken). Its `decode` keeps the bytes of a character cut in two
 * for its next call; this one decodes each call on its own.
 *
 * Where bytes cannot be imported (a process without
 * `--unstable-raw-imports` that may not read Deno's npm cache), the same
 * tables are built from gpt-tokenizer's module of ranks instead, at that
 * module's cost.
 *
 * @module
 */
import { npmBytes } from "../../runtime/npm_bytes.ts";

/** The rank file, as a module specifier (keep in step with deno.json's gpt-tokenizer). */
export const O200K_RANKS_FILE = "npm:gpt-tokenizer@4.0.0/data/o200k_base.tiktoken";

/**
 * o200k's pre-tokenizer, the pattern the encoding defines (with flags `gu`):
 * byte pairs merge only inside each piece it matches, so the count of a
 * text is the sum of the counts of its pre-tokens.
 */
export const PRE_TOKEN =
  /[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+/gu;

// The pattern as encode() runs it: an object of its own, so that a caller's loop over
// PRE_TOKEN is not disturbed.
const SPLIT = new RegExp(PRE_TOKEN);

/** What the counts use of an encoding. */
export interface O200k {
  /** The tokens of `text`. */
  encode(text: string): number[];
  /** The tokens of one pre-token (a match of {@link PRE_TOKEN}; not to be changed). */
  encodePiece(piece: string): readonly number[];
  /** The text of `tokens` (a character cut in two decodes to U+FFFD). */
  decode(tokens: readonly number[]): string;
  /** Tokens in the vocabulary. */
  readonly size: number;
}

const BASE64 = (() => {
  const table = new Int8Array(128).fill(-1);
  const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (let i = 0; i < letters.length; i++) table[letters.charCodeAt(i)] = i;
  return table;
})();

// A byte order mark is text like any other here (a decoder drops a leading one by default).
const UTF8 = new TextDecoder("utf-8", { ignoreBOM: true });

/** Tokens of pre-tokens remembered by {@link O200kTables.encodePiece} (then forgotten, all at once). */
const PIECE_CACHE = 4096;

/** FNV-1a of `bytes[from, to)`. */
function hashBytes(bytes: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  return h;
}

/** The vocabulary in typed arrays, and the encoder over them. */
class O200kTables implements O200k {
  /** Every token's bytes, one after another. */
  readonly #pool: Uint8Array;
  /** Where token k's bytes start in the pool (k = rank); `#starts[k + 1]` is where they end. */
  readonly #starts: Uint32Array;
  /** Open-addressed table of rank + 1 by hash of the bytes (0: empty). */
  readonly #slots: Int32Array;
  readonly #mask: number;
  /** Single bytes' ranks. */
  readonly #byteRank = new Int32Array(256).fill(-1);
  #scratch = new Uint8Array(256);
  #cache = new Map<string, readonly number[]>();
  /** The token of each ASCII character, as an encoding of it. */
  readonly #ascii: readonly (readonly number[])[];
  readonly size: number;

  constructor(pool: Uint8Array, starts: Uint32Array, size: number) {
    this.#pool = pool;
    this.#starts = starts;
    this.size = size;
    let slots = 1;
    while (slots < size * 2) slots <<= 1;
    this.#slots = new Int32Array(slots);
    this.#mask = slots - 1;
    for (let rank = 0; rank < size; rank++) {
      const from = starts[rank];
      const to = starts[rank + 1];
      if (to === from) continue; // a rank the vocabulary skips
      if (to - from === 1) this.#byteRank[pool[from]] = rank;
      let slot = hashBytes(pool, from, to) & this.#mask;
      while (this.#slots[slot] !== 0) slot = (slot + 1) & this.#mask;
      this.#slots[slot] = rank + 1;
    }
    for (let b = 0; b < 256; b++) {
      if (this.#byteRank[b] < 0) throw new Error(`o200k ranks: byte ${b} has no token`);
    }
    this.#ascii = Array.from({ length: 128 }, (_, c) => Object.freeze([this.#byteRank[c]]));
  }

  /** Rank of `bytes[from, to)`, or -1 when those bytes are not a token. */
  #rank(bytes: Uint8Array, from: number, to: number): number {
    const length = to - from;
    if (length === 1) return this.#byteRank[bytes[from]];
    const pool = this.#pool;
    const starts = this.#starts;
    let slot = hashBytes(bytes, from, to) & this.#mask;
    while (true) {
      const entry = this.#slots[slot];
      if (entry === 0) return -1;
      const at = starts[entry - 1];
      if (starts[entry] - at === length) {
        let k = 0;
        while (k < length && pool[at + k] === bytes[from + k]) k++;
        if (k === length) return entry - 1;
      }
      slot = (slot + 1) & this.#mask;
    }
  }

  /** `piece` in UTF-8 in the scratch buffer (a lone surrogate as U+FFFD); its length. */
  #utf8(piece: string): number {
    if (this.#scratch.length < piece.length * 3) {
      this.#scratch = new Uint8Array(piece.length * 3 + 16);
    }
    const out = this.#scratch;
    let n = 0;
    for (let i = 0; i < piece.length; i++) {
      let c = piece.charCodeAt(i);
      if (c < 0x80) {
        out[n++] = c;
        continue;
      }
      if (c < 0x800) {
        out[n++] = 0xc0 | (c >> 6);
        out[n++] = 0x80 | (c & 63);
        continue;
      }
      if (c >= 0xd800 && c <= 0xdfff) {
        const d = piece.charCodeAt(i + 1);
        if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
          c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          i++;
          out[n++] = 0xf0 | (c >> 18);
          out[n++] = 0x80 | ((c >> 12) & 63);
          out[n++] = 0x80 | ((c >> 6) & 63);
          out[n++] = 0x80 | (c & 63);
          continue;
        }
        c = 0xfffd;
      }
      out[n++] = 0xe0 | (c >> 12);
      out[n++] = 0x80 | ((c >> 6) & 63);
      out[n++] = 0x80 | (c & 63);
    }
    return n;
  }

  /** The tokens of `bytes[0, n)`, merged pair by pair. */
  #merge(bytes: Uint8Array, n: number): number[] {
    // Parts as a list of their starts (`next` links them); `rank[i]`: the rank of part i joined
    // with the part after it, -1 when that is not a token.
    const next = new Int32Array(n + 1);
    const rank = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      next[i] = i + 1;
      rank[i] = i + 2 <= n ? this.#rank(bytes, i, i + 2) : -1;
    }
    next[n] = n;
    while (true) {
      let best = -1;
      let bestRank = 0x7fffffff;
      for (let i = 0; i < n; i = next[i]) {
        const r = rank[i];
        if (r >= 0 && r < bestRank) {
          bestRank = r;
          best = i;
        }
      }
      if (best < 0) break;
      // Part `best` takes in the part after it; its pair and its left neighbour's change.
      const end = next[next[best]];
      next[best] = end;
      rank[best] = end < n ? this.#rank(bytes, best, next[end]) : -1;
      if (best > 0) {
        let prev = 0;
        while (next[prev] !== best) prev = next[prev];
        rank[prev] = this.#rank(bytes, prev, end);
      }
    }
    const tokens: number[] = [];
    for (let i = 0; i < n; i = next[i]) tokens.push(this.#rank(bytes, i, next[i]));
    return tokens;
  }

  encodePiece(piece: string): readonly number[] {
    if (piece.length === 1) {
      const c = piece.charCodeAt(0);
      if (c < 0x80) return this.#ascii[c];
    }
    const known = this.#cache.get(piece);
    if (known !== undefined) return known;
    const n = this.#utf8(piece);
    const bytes = this.#scratch;
    // A pre-token whose bytes are a token is that token: what merging ends with for every token
    // of the vocabulary (tests/content/tokens/o200k_test.ts), found in one lookup.
    const whole = this.#rank(bytes, 0, n);
    const tokens = whole >= 0 ? [whole] : this.#merge(bytes, n);
    if (piece.length <= 64) {
      if (this.#cache.size >= PIECE_CACHE) this.#cache.clear();
      // A copy of its own: a match of 13 characters or more may be a view of the whole text.
      this.#cache.set(piece.length > 12 ? `\n${piece}`.slice(1) : piece, tokens);
    }
    return tokens;
  }

  encode(text: string): number[] {
    const tokens: number[] = [];
    const pattern = SPLIT;
    pattern.lastIndex = 0;
    for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
      for (const t of this.encodePiece(m[0])) tokens.push(t);
    }
    return tokens;
  }

  decode(tokens: readonly number[]): string {
    let length = 0;
    for (const t of tokens) length += this.#bytesOf(t);
    const out = new Uint8Array(length);
    let at = 0;
    for (const t of tokens) {
      const from = this.#starts[t];
      const to = this.#starts[t + 1];
      out.set(this.#pool.subarray(from, to), at);
      at += to - from;
    }
    return UTF8.decode(out);
  }

  #bytesOf(token: number): number {
    if (!(token >= 0 && token < this.size) || !Number.isInteger(token)) {
      throw new RangeError(`${token} is not an o200k token`);
    }
    return this.#starts[token + 1] - this.#starts[token];
  }
}

/** Tables from the rank file's bytes (`<base64 of the token> <rank>` a line). */
export function tablesFromRankFile(file: Uint8Array): O200k {
  // First pass: the largest rank and the pool's size.
  let size = 0;
  let poolBytes = 0;
  for (let i = 0; i < file.length;) {
    let j = i;
    while (j < file.length && file[j] !== 32 && file[j] !== 10) j++;
    let digits = 0;
    let k = j + 1;
    let rank = 0;
    while (k < file.length && file[k] >= 48 && file[k] <= 57) {
      rank = rank * 10 + file[k] - 48;
      k++;
      digits++;
    }
    if (file[j] !== 32 || digits === 0) throw new Error("o200k ranks: a line is not `token rank`");
    let chars = j - i;
    while (chars > 0 && file[i + chars - 1] === 61) chars--; // "=" padding
    poolBytes += (chars * 3) >> 2;
    if (rank + 1 > size) size = rank + 1;
    while (k < file.length && (file[k] === 10 || file[k] === 13)) k++;
    i = k;
  }
  const lengths = new Uint32Array(size);
  const seen = new Uint8Array(size);
  const pool = new Uint8Array(poolBytes);
  // Second pass: each token's bytes, in file order, and its rank.
  let at = 0;
  let line = 0;
  const where = new Uint32Array(size);
  for (let i = 0; i < file.length; line++) {
    let j = i;
    let bits = 0;
    let buffer = 0;
    const from = at;
    for (; file[j] !== 32; j++) {
      const c = file[j];
      if (c === 61) continue;
      const v = c < 128 ? BASE64[c] : -1;
      if (v < 0) throw new Error(`o200k ranks: line ${line + 1} is not base64`);
      buffer = (buffer << 6) | v;
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        pool[at++] = (buffer >> bits) & 255;
      }
    }
    let k = j + 1;
    let rank = 0;
    while (file[k] >= 48 && file[k] <= 57) rank = rank * 10 + file[k++] - 48;
    if (seen[rank]) throw new Error(`o200k ranks: rank ${rank} is given twice`);
    seen[rank] = 1;
    where[rank] = from;
    lengths[rank] = at - from;
    while (k < file.length && (file[k] === 10 || file[k] === 13)) k++;
    i = k;
  }
  // The pool in rank order, so that token k's bytes are starts[k]..starts[k + 1].
  const ordered = new Uint8Array(at);
  const starts = new Uint32Array(size + 1);
  let to = 0;
  for (let rank = 0; rank < size; rank++) {
    starts[rank] = to;
    ordered.set(pool.subarray(where[rank], where[rank] + lengths[rank]), to);
    to += lengths[rank];
  }
  starts[size] = to;
  return new O200kTables(ordered, starts, size);
}

/** Tables from gpt-tokenizer's module of ranks (each a string, or an array of bytes). */
export function tablesFromRanks(ranks: readonly (string | readonly number[] | undefined)[]): O200k {
  const encoder = new TextEncoder();
  const parts: Uint8Array[] = [];
  let total = 0;
  for (const value of ranks) {
    const bytes = value === undefined
      ? new Uint8Array(0)
      : typeof value === "string"
      ? encoder.encode(value)
      : Uint8Array.from(value);
    parts.push(bytes);
    total += bytes.length;
  }
  const pool = new Uint8Array(total);
  const starts = new Uint32Array(parts.length + 1);
  let at = 0;
  parts.forEach((bytes, rank) => {
    starts[rank] = at;
    pool.set(bytes, at);
    at += bytes.length;
  });
  starts[parts.length] = at;
  return new O200kTables(pool, starts, parts.length);
}

/**
 * Loads the encoding: from the rank file's bytes, or, where bytes cannot be
 * imported, from gpt-tokenizer's module of ranks.
 */
export async function loadO200k(): Promise<O200k> {
  let file: Uint8Array;
  try {
    file = await npmBytes(O200K_RANKS_FILE);
  } catch {
    const ranks = await import("gpt-tokenizer/bpeRanks/o200k_base");
    return tablesFromRanks(ranks.default as (string | number[])[]);
  }
  return tablesFromRankFile(file);
}
