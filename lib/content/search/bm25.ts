/**
 * BM25 search over a document's slices.
 *
 * Two fields: the slice text, and its heading ancestry weighted twice as
 * much (a slice under "Tree construction" matches `tree construction` more
 * strongly than one that mentions it in passing). Phrases, slop and
 * unspaced-script terms are checked against the slice text itself, so the
 * index only keeps term frequencies. Results are the top 50 by score.
 *
 * @module
 */
import { checkCancelled } from "../../runtime/cancel.ts";
import { TermPairs } from "./pairs.ts";
import { TermCounts } from "./term_counts.ts";
import { parseQuery, type QueryNode } from "./query.ts";
import { grams, hashTerm, scanRanges, words } from "./words.ts";
import { pushedArrayBytes, stringBytes, typedArrayBytes, WORD } from "../../runtime/heap.ts";

const K1 = 1.2;
const B = 0.75;
/** Weight of the heading field against the body. */
export const HEADING_BOOST = 2;
/** Most hits returned. */
export const MAX_HITS = 50;

/**
 * One field. The postings of term `t` are `docs[start[t]]` to
 * `docs[start[t + 1] - 1]`, with their term frequencies in `tfs`: flat typed
 * arrays, so an index holds a few large arrays rather than two per term,
 * and can move between threads without copying.
 */
interface Field {
  table: TermTable;
  start: Uint32Array<ArrayBuffer>;
  docs: Uint32Array<ArrayBuffer>;
  tfs: Uint32Array<ArrayBuffer>;
  lengths: Uint32Array<ArrayBuffer>;
  average: number;
  boost: number;
}

/** A {@link TermTable} as plain data: its terms joined by line breaks (no term holds one). */
export interface TermTableParts {
  terms: string;
  hashes: Int32Array<ArrayBuffer>;
  slots: Int32Array<ArrayBuffer>;
}

/** A {@link SearchIndex} as plain data and typed arrays (see {@link SearchIndex.toParts}). */
export interface SearchIndexParts {
  count: number;
  fields: (Omit<Field, "table"> & { table: TermTableParts })[];
}

/**
 * Term dictionary: open addressing over hashes, so a term already seen is
 * found by comparing characters in place, without making a string. A table
 * made from parts ({@link TermTable.fromParts}, another thread's table)
 * keeps its terms as the one string they came in and where each starts,
 * not as a string apiece: a cached page's tables hold tens of thousands of
 * terms, and every full collection would visit each of them.
 */
export class TermTable {
  /** The terms by id, while the table takes new ones. */
  #terms: string[] = [];
  /** A table made from parts: its terms joined by line breaks, */
  #joined = "";
  /** and where term `id` starts in it (one entry more than terms, for the end). */
  #starts: Int32Array<ArrayBuffer> | undefined;
  #hashes: number[] | Int32Array = [];
  #slots = new Int32Array(1 << 12).fill(-1);
  #mask = (1 << 12) - 1;

  /** The table as plain data, for {@link TermTable.fromParts} on another thread. */
  toParts(): TermTableParts {
    return {
      terms: this.#starts ? this.#joined : this.#terms.join("\n"),
      hashes: Int32Array.from(this.#hashes),
      slots: this.#slots.slice(),
    };
  }

  /** A table made from {@link toParts}: it finds terms, and takes no new ones. */
  static fromParts(parts: TermTableParts): TermTable {
    const table = new TermTable();
    table.#slots = parts.slots;
    table.#mask = parts.slots.length - 1;
    table.#keepJoined(parts.terms, parts.hashes);
    return table;
  }

  /**
   * Takes no new terms from now on, and keeps them as one string (as a
   * table made from parts does): for a table that is built and then kept.
   */
  freeze(): this {
    if (!this.#starts) this.#keepJoined(this.#terms.join("\n"), Int32Array.from(this.#hashes));
    return this;
  }

  #keepJoined(joined: string, hashes: Int32Array): void {
    const count = joined === "" ? 0 : hashes.length;
    const starts = new Int32Array(count + 1);
    for (let id = 1, at = 0; id <= count; id++) {
      const nl = joined.indexOf("\n", at);
      at = nl < 0 ? joined.length + 1 : nl + 1;
      starts[id] = at;
    }
    this.#joined = joined;
    this.#starts = starts;
    this.#hashes = hashes;
    this.#terms = [];
  }

  /** Distinct terms. */
  get size(): number {
    return this.#starts ? this.#starts.length - 1 : this.#terms.length;
  }

  /** The term of `id`. */
  term(id: number): string {
    const starts = this.#starts;
    return starts ? this.#joined.slice(starts[id], starts[id + 1] - 1) : this.#terms[id];
  }

  /** Every term, in id order (a fresh array for a table made from parts). */
  all(): readonly string[] {
    if (!this.#starts) return this.#terms;
    return this.#joined === "" ? [] : this.#joined.split("\n");
  }

  /** The typed arrays the table owns (for `freeArrays` once it is dropped). */
  arrays(): ArrayBufferView[] {
    const own: ArrayBufferView[] = [this.#slots];
    if (!Array.isArray(this.#hashes)) own.push(this.#hashes);
    if (this.#starts) own.push(this.#starts);
    return own;
  }

  /** Heap bytes held: the slot table, the terms and their hashes. */
  approxBytes(): number {
    let bytes = typedArrayBytes(this.#slots.length * 4);
    if (this.#starts) {
      bytes += stringBytes(this.#joined.length) + typedArrayBytes(this.#starts.byteLength);
      return bytes + typedArrayBytes(this.#hashes.length * 4);
    }
    bytes += 2 * pushedArrayBytes(this.#terms.length);
    // A hash past the small-integer range is a boxed number.
    bytes += this.#terms.length * 2 * WORD;
    for (const t of this.#terms) bytes += stringBytes(t.length);
    return bytes;
  }

  #grow(): void {
    const size = this.#slots.length * 2;
    this.#slots = new Int32Array(size).fill(-1);
    this.#mask = size - 1;
    for (let id = 0; id < this.#terms.length; id++) {
      let slot = this.#hashes[id] & this.#mask;
      while (this.#slots[slot] !== -1) slot = (slot + 1) & this.#mask;
      this.#slots[slot] = id;
    }
  }

  #insert(term: string, hash: number, slot: number): number {
    if (this.#starts || !Array.isArray(this.#hashes)) {
      throw new Error("a table made from parts takes no terms");
    }
    const id = this.#terms.length;
    this.#terms.push(term);
    this.#hashes.push(hash);
    this.#slots[slot] = id;
    if (this.#terms.length * 2 > this.#slots.length) this.#grow();
    return id;
  }

  /** Id of the lowercased ASCII word text[start:end] with `hash`, added if new. */
  rangeId(text: string, start: number, end: number, hash: number): number {
    const len = end - start;
    let slot = hash & this.#mask;
    while (true) {
      const id = this.#slots[slot];
      if (id === -1) return this.#insert(text.slice(start, end).toLowerCase(), hash, slot);
      if (this.#hashes[id] === hash) {
        // The term's characters: its own string, or its place in the joined one.
        const starts = this.#starts;
        const source = starts ? this.#joined : this.#terms[id];
        const from = starts ? starts[id] : 0;
        const length = starts ? starts[id + 1] - 1 - from : source.length;
        if (length === len) {
          let k = 0;
          for (; k < len; k++) {
            let c = text.charCodeAt(start + k);
            if (c >= 65 && c <= 90) c += 32;
            if (c !== source.charCodeAt(from + k)) break;
          }
          if (k === len) return id;
        }
      }
      slot = (slot + 1) & this.#mask;
    }
  }

  /** Whether term `id` is `term`. */
  #is(id: number, term: string): boolean {
    const starts = this.#starts;
    if (!starts) return this.#terms[id] === term;
    const from = starts[id];
    return starts[id + 1] - 1 - from === term.length && this.#joined.startsWith(term, from);
  }

  /** Id of `term`, added if `add` and new; -1 when absent. */
  id(term: string, add: boolean): number {
    const hash = hashTerm(term);
    let slot = hash & this.#mask;
    while (true) {
      const id = this.#slots[slot];
      if (id === -1) return add ? this.#insert(term, hash, slot) : -1;
      if (this.#hashes[id] === hash && this.#is(id, term)) return id;
      slot = (slot + 1) & this.#mask;
    }
  }
}

/** Texts shorter than this are counted once however often they come (see {@link buildField}). */
const SHARED_TEXT = 400;

/**
 * Builds one field. Terms are interned to numbers and counted in a reused
 * array, so indexing costs one table probe per token and no per-slice maps.
 */
function buildField(texts: readonly string[], boost: number): Field {
  const table = new TermTable();
  const terms = new TermCounts();
  const lengths = new Uint32Array(texts.length);
  let total = 0;
  // Every text's (term, frequency) pairs in one growing array, laid out per term at the end.
  const postings = new TermPairs(texts.length);
  // Identical texts (a shared heading path) are counted once: where their pairs are.
  const cache = new Map<string, { from: number; to: number; length: number }>();
  const count = (id: number) => {
    postings.see(id);
    terms.add(id);
  };
  for (let doc = 0; doc < texts.length; doc++) {
    if ((doc & 255) === 0) checkCancelled();
    const text = texts[doc];
    // (Only short texts are kept: a long one is not hashed to look for itself.)
    const cached = text.length < SHARED_TEXT ? cache.get(text) : undefined;
    if (cached) {
      for (let k = cached.from; k < cached.to; k += 2) {
        postings.add(postings.at(k), postings.at(k + 1));
      }
      postings.end(doc);
      lengths[doc] = cached.length;
      total += cached.length;
      continue;
    }
    scanRanges(
      text,
      (start, end, hash) => count(table.rangeId(text, start, end, hash)),
      (word) => count(table.id(word, true)),
      (run) => {
        for (const g of grams(run)) count(table.id(g, true));
      },
    );
    const length = terms.length;
    const from = postings.length;
    terms.drain(postings.add);
    postings.end(doc);
    if (text.length < SHARED_TEXT) cache.set(text, { from, to: postings.length, length });
    lengths[doc] = length;
    total += length;
  }
  // Each term's postings in text order, as the texts came.
  const { start, next, pairs, ends } = postings.layout(1);
  const docs = new Uint32Array(start[postings.vocabulary]);
  const tfs = new Uint32Array(docs.length);
  for (let doc = 0, k = 0; doc < texts.length; doc++) {
    for (; k < ends[doc]; k += 2) {
      const at = next[pairs[k]]++;
      docs[at] = doc;
      tfs[at] = pairs[k + 1];
    }
  }
  postings.free();
  const average = texts.length ? total / texts.length : 0;
  return { table: table.freeze(), start, docs, tfs, lengths, average, boost };
}

/** One hit. */
export interface Hit {
  /** Slice index. */
  index: number;
  /** BM25 score. */
  score: number;
}

/** A search outcome. */
export interface SearchOutcome {
  /** Hits, best first. */
  hits: Hit[];
  /** Parts of the query that were dropped, and why. */
  warnings: string[];
  /** True when the query had nothing left to search for. */
  empty: boolean;
}

/** Edit distance of a and b, or Infinity when it exceeds `max`. */
export function boundedDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return Infinity;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const v = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      cur.push(v);
      if (v < best) best = v;
    }
    if (best > max) return Infinity;
    prev = cur;
  }
  return prev[b.length] <= max ? prev[b.length] : Infinity;
}

type Scores = Map<number, number>;

/** A searchable index of slices. */
export class SearchIndex {
  #fields: Field[];
  #count: number;
  readonly #text: (index: number) => string;

  /**
   * Indexes `bodies` (slice texts) and `headings` (their ancestry).
   * `text` returns a slice's text for phrase checks.
   */
  constructor(
    bodies: readonly string[],
    headings: readonly string[],
    text?: (index: number) => string,
  ) {
    this.#count = bodies.length;
    this.#fields = [buildField(bodies, 1), buildField(headings, HEADING_BOOST)];
    this.#text = text ?? ((i) => bodies[i]);
  }

  /**
   * The index as plain data and typed arrays, and the buffers to transfer
   * with it: what a worker posts for {@link SearchIndex.fromParts}
   * (transferring them leaves this index without its postings).
   */
  toParts(): { parts: SearchIndexParts; transfer: ArrayBuffer[] } {
    const fields = this.#fields.map((f) => ({ ...f, table: f.table.toParts() }));
    const transfer = fields.flatMap((f) => [
      f.start.buffer,
      f.docs.buffer,
      f.tfs.buffer,
      f.lengths.buffer,
      f.table.hashes.buffer,
      f.table.slots.buffer,
    ]);
    return { parts: { count: this.#count, fields }, transfer };
  }

  /** The index made from {@link toParts}; `text` returns a slice's text for phrase checks. */
  static fromParts(parts: SearchIndexParts, text: (index: number) => string): SearchIndex {
    const index = new SearchIndex([], [], text);
    index.#count = parts.count;
    index.#fields = parts.fields.map((f) => ({ ...f, table: TermTable.fromParts(f.table) }));
    return index;
  }

  /** The typed arrays the index owns (for `freeArrays` once it is dropped). */
  arrays(): ArrayBufferView[] {
    return this.#fields.flatMap((f) => [...f.table.arrays(), f.start, f.docs, f.tfs, f.lengths]);
  }

  /** Heap bytes held: term tables, postings and lengths. */
  approxBytes(): number {
    let bytes = 0;
    for (const f of this.#fields) {
      bytes += f.table.approxBytes();
      for (const a of [f.start, f.docs, f.tfs, f.lengths]) bytes += typedArrayBytes(a.byteLength);
    }
    return bytes;
  }

  /** Number of slices indexed. */
  get size(): number {
    return this.#count;
  }

  /** Distinct terms of the body field. */
  get vocabulary(): number {
    return this.#fields[0].start.length - 1;
  }

  #termScores(term: string, scores: Scores = new Map()): Scores {
    for (const field of this.#fields) {
      const id = field.table.id(term, false);
      if (id < 0) continue;
      const from = field.start[id];
      const df = field.start[id + 1] - from;
      const idf = Math.log(1 + (this.#count - df + 0.5) / (df + 0.5));
      for (let k = from; k < from + df; k++) {
        const doc = field.docs[k];
        const tf = field.tfs[k];
        const norm = field.average > 0 ? field.lengths[doc] / field.average : 1;
        const s = field.boost * idf * (tf * (K1 + 1)) / (tf + K1 * (1 - B + B * norm));
        scores.set(doc, (scores.get(doc) ?? 0) + s);
      }
    }
    return scores;
  }

  #fuzzyScores(term: string, distance: number): Scores {
    const out: Scores = new Map();
    const seen = new Set<string>();
    for (const field of this.#fields) {
      for (const candidate of field.table.all()) {
        if (seen.has(candidate) || seen.size >= 64) continue;
        if (boundedDistance(term, candidate, distance) <= distance) seen.add(candidate);
      }
    }
    for (const candidate of seen) {
      for (const [doc, s] of this.#termScores(candidate)) {
        out.set(doc, Math.max(out.get(doc) ?? 0, s));
      }
    }
    return out;
  }

  #phraseScores(terms: string[], slop: number): Scores {
    const perTerm = terms.map((t) => this.#termScores(t));
    let candidates = [...perTerm[0].keys()];
    for (const s of perTerm.slice(1)) candidates = candidates.filter((d) => s.has(d));
    const out: Scores = new Map();
    for (const doc of candidates) {
      if (!containsPhrase(words(this.#text(doc)), terms, slop)) continue;
      out.set(doc, perTerm.reduce((sum, s) => sum + (s.get(doc) ?? 0), 0));
    }
    return out;
  }

  #substringScores(text: string, grams: string[]): Scores {
    const perGram = grams.map((g) => this.#termScores(g));
    let candidates = [...perGram[0].keys()];
    for (const s of perGram.slice(1)) candidates = candidates.filter((d) => s.has(d));
    const out: Scores = new Map();
    for (const doc of candidates) {
      if (!this.#text(doc).toLowerCase().includes(text)) continue;
      out.set(doc, perGram.reduce((sum, s) => sum + (s.get(doc) ?? 0), 0));
    }
    return out;
  }

  #evaluate(node: QueryNode): Scores {
    switch (node.type) {
      case "term":
        return node.fuzzy > 0
          ? this.#fuzzyScores(node.term, node.fuzzy)
          : this.#termScores(node.term);
      case "phrase":
        return this.#phraseScores(node.terms, node.slop);
      case "substring":
        return this.#substringScores(node.text, node.grams);
      case "bool": {
        let result: Scores;
        if (node.must.length > 0) {
          const musts = node.must.map((m) => this.#evaluate(m));
          result = new Map();
          for (const [doc, s] of musts[0]) {
            let total = s;
            let ok = true;
            for (let k = 1; k < musts.length && ok; k++) {
              const v = musts[k].get(doc);
              if (v === undefined) ok = false;
              else total += v;
            }
            if (ok) result.set(doc, total);
          }
          for (const should of node.should) {
            for (const [doc, s] of this.#evaluate(should)) {
              const cur = result.get(doc);
              if (cur !== undefined) result.set(doc, cur + s);
            }
          }
        } else {
          result = new Map();
          for (const should of node.should) {
            for (const [doc, s] of this.#evaluate(should)) {
              result.set(doc, (result.get(doc) ?? 0) + s);
            }
          }
        }
        for (const not of node.not) {
          for (const doc of this.#evaluate(not).keys()) result.delete(doc);
        }
        return result;
      }
    }
  }

  /** Runs a query in the search language. */
  search(query: string, limit: number = MAX_HITS): SearchOutcome {
    const parsed = parseQuery(query);
    const root = parsed.root;
    const empty = root.must.length === 0 && root.should.length === 0;
    const scores = empty ? new Map() : this.#evaluate(root);
    return { hits: bestHits(scores, limit), warnings: parsed.warnings, empty };
  }
}

/** Most hits {@link bestHits} keeps in order as it reads them, rather than sorting them all. */
const KEPT_HITS = 64;

/**
 * The `limit` best of `scores`, best first (a higher score, then a lower
 * index). A common word scores thousands of slices and a search shows
 * {@link MAX_HITS}: the best are kept in order as the scores are read, which
 * was a tenth of a search's time as a sort of every slice scored.
 */
function bestHits(scores: Scores, limit: number): Hit[] {
  if (!(limit >= 1 && limit <= KEPT_HITS)) {
    return [...scores].map(([index, score]) => ({ index, score }))
      .sort((a, b) => b.score - a.score || a.index - b.index)
      .slice(0, limit);
  }
  const hits: Hit[] = [];
  scores.forEach((score, index) => {
    let at = hits.length;
    while (
      at > 0 &&
      (score > hits[at - 1].score || (score === hits[at - 1].score && index < hits[at - 1].index))
    ) at--;
    if (at >= limit) return;
    hits.splice(at, 0, { index, score });
    if (hits.length > limit) hits.pop();
  });
  return hits;
}

/** Whether `terms` occur in `text` in order with at most `slop` words between neighbours. */
export function containsPhrase(text: string[], terms: string[], slop: number): boolean {
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== terms[0]) continue;
    let pos = i;
    let ok = true;
    for (let k = 1; k < terms.length && ok; k++) {
      let found = -1;
      for (let j = pos + 1; j <= pos + 1 + slop && j < text.length; j++) {
        if (text[j] === terms[k]) {
          found = j;
          break;
        }
      }
      if (found < 0) ok = false;
      else pos = found;
    }
    if (ok) return true;
  }
  return false;
}
