/**
 * Query-scoped extraction: the parts of a Document that answer a question,
 * within a token budget.
 *
 * The page is read as **units**: paragraphs, code blocks, tables, lists and
 * quotes, each kept whole. (A list or table larger than
 * {@link SPLIT_TOKENS}, a third of the default budget, is divided at its
 * top-level items or rows, so an algorithm's step or an index table's row
 * is a unit of its own; a row is always shown under its table's header. A
 * paragraph longer than {@link TEXT_SPLIT_TOKENS} is divided into runs of
 * whole sentences.) Each unit belongs to the section whose own text holds it.
 *
 * A question is reduced to content-word stems (see `terms.ts`). Sections
 * are ranked by Okapi BM25 over their own text, plus the weight of the
 * question's terms found in their heading (strongly) and their ancestors'
 * headings (weakly), scaled by how many of the question's terms the section
 * and its heading path cover.
 *
 * Then two stages fill the budget. The best section comes first: whole when
 * it fits (with its subsections when its heading has almost no text of its
 * own), else its best units by unit BM25 (a code block at half its score
 * unless the question asks for code: an example repeats the words of the
 * rule it illustrates), within half the budget when the runner-up section
 * scores close to it. The rest goes to **passages**: every unit of the
 * {@link PASSAGE_SECTIONS} best sections is a candidate, scored by its own
 * BM25 weighted by the share of the question's terms it holds, plus a prior
 * from its section's score, and halved for every unit already taken from
 * that section; the best are taken in turn, each pulling in its
 * neighbours with decaying priority so an answer keeps its lead-in and
 * follow-up. So the sentence that answers, in the second or fifth section,
 * is not crowded out by more of the first. In both stages a unit that gives
 * the kind of answer the question asks for (a default when it asks what
 * happens if something is left out, a number for "how many", a thrown
 * error, a reason for "why": see `intent.ts`) weighs up to half as much
 * again, less when many candidates give it. A "how long / wide / many"
 * question also ranks with the noun it measures by (length, width, number),
 * as an expansion term at {@link DIMENSION_WEIGHT}. The result is in document order,
 * with each region's heading ancestry and an elision marker over every gap.
 *
 * The contract around it follows PullMD's where that is right: a page
 * estimated at no more than `max(800, 1.25 × budget)` tokens comes back
 * whole (confidence null); a question that matches nothing returns the
 * whole page with confidence `low`; confidence is `high` when the first
 * selected section covers at least half of the question's terms, else
 * `medium`; a page with fewer than two headings is ranked by units.
 *
 * The index (postings of unit terms) is built once per Document, on the
 * first question, so later questions cost only the postings of their terms.
 *
 * An extraction may be given **expansion terms** beside the question's own
 * (see {@link ExtractOptions}): each counts at its weight, below 1,
 * wherever a question term counts (unit and section BM25, headings), but
 * never in coverage, the share of the question's terms a section or unit
 * holds. Without them the ranking is the one described above.
 *
 * @module
 */
import { RESPONSE_TOKEN_CAP } from "../../config.ts";
import { checkCancelled } from "../../runtime/cancel.ts";
import { matchesOf } from "../../runtime/matches.ts";
import { TermCounts } from "../search/term_counts.ts";
import { type Document, indexBuilds } from "../document/document.ts";
import { asksForCode, isStopWord, joinedTerms, questionTerms, scanTerms, stem } from "./terms.ts";
import { answerShapes, dimensionWords, SHAPE_COUNT, shapeMatches } from "./intent.ts";
import { grams, scanRanges } from "../search/words.ts";
import { blocks } from "../document/slices.ts";
import { TermTable, type TermTableParts } from "../search/bm25.ts";
import { TermPairs } from "../search/pairs.ts";
import { estimateTokens, tokenWeight, weighsOver } from "../tokens/count.ts";
import { typedArrayBytes } from "../../runtime/heap.ts";
import { BACKGROUND_STEP_MS } from "../document/views.ts";

/** Default budget when a question is given. */
export const QUERY_DEFAULT_TOKENS = 600;
/** Smallest budget accepted with a question. */
export const QUERY_MIN_TOKENS = 50;
/** Largest budget accepted with a question: the response cap. */
export const QUERY_MAX_TOKENS: number = RESPONSE_TOKEN_CAP;
/** Lists and tables larger than this are divided into items or rows. */
export const SPLIT_TOKENS = 200;
/** Paragraphs larger than this are divided into runs of sentences. */
export const TEXT_SPLIT_TOKENS = 160;
/** Size a run of sentences grows to before a cut. */
const PIECE_TOKENS = 90;
const SENTENCE_END = /([.!?。！？]["'”’)\]]*)(\s+)(?=["'“‘(\[`*_]?[\p{Lu}\p{N}])/gu;

/**
 * Units by priority, the highest on top and the lower unit first on ties:
 * the order in which the pickers below take units, found in a logarithmic
 * step instead of a look at every candidate (a paragraph of 200,000 links
 * is 50,000 candidates, looked at once for each one taken or passed over).
 * Entries are never updated: a raised priority is pushed again and the
 * stale entry skipped when it comes up.
 */
class UnitHeap {
  #p: number[] = [];
  #u: number[] = [];

  get size(): number {
    return this.#p.length;
  }

  #above(i: number, j: number): boolean {
    const pi = this.#p[i];
    const pj = this.#p[j];
    return pi > pj || (pi === pj && this.#u[i] < this.#u[j]);
  }

  #swap(i: number, j: number): void {
    const p = this.#p[i];
    this.#p[i] = this.#p[j];
    this.#p[j] = p;
    const u = this.#u[i];
    this.#u[i] = this.#u[j];
    this.#u[j] = u;
  }

  push(p: number, u: number): void {
    this.#p.push(p);
    this.#u.push(u);
    for (let i = this.#p.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (!this.#above(i, parent)) break;
      this.#swap(i, parent);
      i = parent;
    }
  }

  /** The top entry's priority (the heap must not be empty). */
  topPriority(): number {
    return this.#p[0];
  }

  /** The top entry's unit (the heap must not be empty). */
  topUnit(): number {
    return this.#u[0];
  }

  pop(): [number, number] {
    const top: [number, number] = [this.#p[0], this.#u[0]];
    const p = this.#p.pop()!;
    const u = this.#u.pop()!;
    if (this.#p.length > 0) {
      this.#p[0] = p;
      this.#u[0] = u;
      for (let i = 0;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < this.#p.length && this.#above(l, m)) m = l;
        if (r < this.#p.length && this.#above(r, m)) m = r;
        if (m === i) break;
        this.#swap(i, m);
        i = m;
      }
    }
    return top;
  }
}

/** The marker put where text was left out. */
export const ELISION = "[…]";
/** What the elision marker and its blank line cost in the estimate. */
const MARKER_COST = Math.max(2, tokenWeight(ELISION + "\n\n"));

/** How sure the extraction is that it found the answer. */
export type ExtractConfidence = "high" | "medium" | "low";

/** The result of {@link extractForQuery}. */
export interface QueryExtraction {
  /** The Markdown to return. */
  text: string;
  /** False when the whole page is returned (small page, or no match). */
  extracted: boolean;
  /** Null when the page was small enough to return whole without ranking. */
  confidence: ExtractConfidence | null;
  /** Sections (in unit mode: regions) selected. */
  sectionsSelected: number;

  /** Estimated tokens of the whole page. */
  originalTokens: number;
  /** Estimated tokens returned. */
  returnedTokens: number;
  /** True when a single unit larger than the budget was returned whole. */
  overBudget: boolean;
}

export type UnitKind = "text" | "code" | "table" | "list" | "quote" | "item" | "row";

/** A unit of text a question's answer is made of. */
export interface Unit {
  start: number;
  end: number;
  kind: UnitKind;
  /** Section owning it (-1 before the first heading). */
  section: number;
  /** Token weight of its text. */
  cost: number;
  /** For rows: the table's header and delimiter lines. */
  head?: [number, number];
  /** True when it continues the block of the unit before it (an item, row or sentence run). */
  part?: boolean;
}

const K1 = 1.2;
const B = 0.75;
/** Weight of a question term in a section's own heading. */
const HEADING_WEIGHT = 4;
/** Weight of a question term in an ancestor's heading. */
const ANCESTOR_WEIGHT = 0.6;
/**
 * Weight of a code block when the question does not ask for code: an
 * example illustrates what the prose around it states, so it repeats the
 * question's words without saying the answer.
 */
const EXAMPLE_WEIGHT = 0.5;
/** Weight of a section's whole-text BM25 beside its best unit's score. */
const SECTION_SHARE = 0.5;
/** Weight of a term's page-wide rarity beside its rarity inside the section being cut. */
const LOCAL_GLOBAL = 0.25;
/** Opening paragraphs of a section favoured when its heading names the question's subject. */
const LEAD_UNITS = 2;
/** A runner-up scoring at least this share of the best is close. */
const CLOSE_SHARE = 0.6;
/** Share of the budget the first section may use when the runner-up is close. */
const FIRST_SHARE = 0.5;
/** Sections scoring under this share of the best are not taken. */
const MIN_SHARE = 0.2;
/**
 * What a passage giving an answer shape the question asks for (a default, a
 * quantity, an error, a reason, a version: see `intent.ts`) adds to its
 * weight, for a shape no other candidate gives; less as more candidates give
 * it, nothing when all do.
 */
const SHAPE_WEIGHT = 0.5;
/**
 * Weight of the noun a "how long / wide / many" question measures by
 * (length, width, number: `dimensionWords` in `intent.ts`), ranked beside
 * the question's own words as an expansion term.
 */
const DIMENSION_WEIGHT = 0.7;
/** Sections whose units are candidates in the passage stage. */
const PASSAGE_SECTIONS = 10;
/** What a section's score (as a share of the best section's) adds to each of its passages. */
const SECTION_PRIOR = 5;
/**
 * Weight of a passage for each passage (run of adjacent units) already
 * taken from its section (but for the neighbours of taken units): the next
 * section's best passage before more of the same section.
 */
const REPEAT_WEIGHT = 0.5;

/** A heading with less text than this (tokens) brings its subsections along. */
const THIN_SECTION = 40;
/** Separator cost between pieces (a blank line), as the estimate prices it. */
const GAP = tokenWeight("\n\n");

const LIST_ITEM = /^( {0,3})(?:[-*+]|\d{1,9}[.)])[ \t](?! *[-*_](?: *[-*_]){1,} *$)/;
const FENCE_LINE = /^\s*(?:```|~~~)/;
const TABLE_DELIMITER = /^\s*\|?\s*:?-{1,}:?\s*(?:\|\s*:?-{1,}:?\s*)*\|?\s*$/;

function kindOf(text: string): UnitKind {
  const nl = text.indexOf("\n");
  const first = nl < 0 ? text : text.slice(0, nl);
  if (/^ {0,3}(?:```|~~~)/.test(first)) return "code";
  if (isTable(text)) return "table";
  if (LIST_ITEM.test(first)) return "list";
  if (/^ {0,3}>/.test(first)) return "quote";
  return "text";
}

/** A header line with a pipe, then a delimiter row. */
function isTable(text: string): boolean {
  const nl = text.indexOf("\n");
  if (nl < 0 || !text.slice(0, nl).includes("|")) return false;
  const next = text.indexOf("\n", nl + 1);
  const second = text.slice(nl + 1, next < 0 ? text.length : next);
  return second.includes("-") && TABLE_DELIMITER.test(second);
}

/** Markdown without link and image targets: `[text](#target)` counts as `text`. */
function visibleText(markdown: string): string {
  return markdown.includes("](") ? markdown.replace(LINK_TARGET, "]") : markdown;
}

const LINK_TARGET = /\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+"[^"]*")?\)/g;

/**
 * How a whole text unit reads: its words, function words among them, and
 * whether it ends as a sentence ends. Undefined for code, tables, lists,
 * quotes and pieces of a longer paragraph.
 */
function textShape(
  md: string,
  unit: Unit,
): { words: number; stopWords: number; sentence: boolean } | undefined {
  if (unit.kind !== "text" || unit.part) return undefined;
  const text = visibleText(md.slice(unit.start, unit.end)).trim();
  const words = text.match(/[\p{L}\p{N}]+/gu) ?? [];
  return {
    words: words.length,
    stopWords: words.filter((w) => isStopWord(w.toLowerCase())).length,
    sentence: /[.!?:。]["'”’)*_]*$/.test(text),
  };
}

/**
 * Term postings in flat arrays: the postings of a term are
 * `data[start[id]]` to `data[start[id + 1] - 1]` (pairs of unit and term
 * frequency, or the sections whose heading holds it), with ids from a
 * {@link TermTable}. (A Map of arrays, one per
 * term, costs many small objects and cannot move between threads.)
 */
export class TermPostings {
  readonly #table: TermTable;
  readonly #start: Uint32Array<ArrayBuffer>;
  readonly #data: Uint32Array<ArrayBuffer>;

  constructor(table: TermTable, start: Uint32Array<ArrayBuffer>, data: Uint32Array<ArrayBuffer>) {
    this.#table = table;
    this.#start = start;
    this.#data = data;
  }

  /** The postings of `term` (flat [unit, tf, …], or sections), or undefined when it has none. */
  get(term: string): Uint32Array | undefined {
    const id = this.#table.id(term, false);
    return id < 0 ? undefined : this.#data.subarray(this.#start[id], this.#start[id + 1]);
  }

  /** Distinct terms. */
  get size(): number {
    return this.#start.length - 1;
  }

  /** The typed arrays the postings own (for `freeArrays` once they are dropped). */
  arrays(): ArrayBufferView[] {
    return [...this.#table.arrays(), this.#start, this.#data];
  }

  /** Heap bytes held. */
  approxBytes(): number {
    return this.#table.approxBytes() + typedArrayBytes(this.#start.byteLength) +
      typedArrayBytes(this.#data.byteLength);
  }

  /** Plain data and typed arrays, and the buffers to transfer with them. */
  toParts(): { parts: TermPostingsParts; transfer: ArrayBuffer[] } {
    const table = this.#table.toParts();
    const parts = { table, start: this.#start, data: this.#data };
    return {
      parts,
      transfer: [table.hashes.buffer, table.slots.buffer, parts.start.buffer, parts.data.buffer],
    };
  }

  /** Made from {@link toParts}. */
  static fromParts(parts: TermPostingsParts): TermPostings {
    return new TermPostings(TermTable.fromParts(parts.table), parts.start, parts.data);
  }
}

/** {@link TermPostings} as plain data. */
export interface TermPostingsParts {
  table: TermTableParts;
  start: Uint32Array<ArrayBuffer>;
  data: Uint32Array<ArrayBuffer>;
}

/**
 * The stems of a text's words as numbers, the same terms `scanTerms` gives:
 * each distinct ASCII word is interned once (found again by its hash and
 * characters, without slicing) with the id of its stem; other words and
 * the grams of unspaced runs are stemmed and interned as strings.
 */
class StemIds {
  /** Stem → id. */
  readonly stems = new TermTable();
  readonly #words = new TermTable();
  /** Word id → stem id. */
  #stemOf: number[] = [];

  scan(text: string, onTerm: (id: number) => void): void {
    scanRanges(
      text,
      (start, end, hash) => {
        const word = this.#words.rangeId(text, start, end, hash);
        let id = this.#stemOf[word];
        if (id === undefined) {
          id = this.#stemOf[word] = this.stems.id(stem(this.#words.term(word)), true);
        }
        onTerm(id);
      },
      (word) => onTerm(this.stems.id(stem(word), true)),
      (run) => {
        for (const g of grams(run)) onTerm(this.stems.id(g, true));
      },
    );
    joinedTerms(text, (t) => onTerm(this.stems.id(t, true)));
  }
}

/** Per-term arrays as one array and the start of each term's part. */
function flatten(lists: number[][]): [Uint32Array<ArrayBuffer>, Uint32Array<ArrayBuffer>] {
  const start = new Uint32Array(lists.length + 1);
  for (let t = 0; t < lists.length; t++) start[t + 1] = start[t] + lists[t].length;
  const data = new Uint32Array(start[lists.length]);
  for (let t = 0; t < lists.length; t++) data.set(lists[t], start[t]);
  return [start, data];
}

const KINDS: UnitKind[] = ["text", "code", "table", "list", "quote", "item", "row"];
const CODE_KIND = KINDS.indexOf("code");

/**
 * A {@link QueryIndex} as plain data and typed arrays, for another thread:
 * the units in columns, the postings frozen (see {@link QueryIndex.toParts}).
 */
export interface QueryIndexParts {
  /** Unit columns: start, end, section, head start and end (-1 without), kind, part. */
  unitInts: Int32Array<ArrayBuffer>;
  unitCosts: Float64Array<ArrayBuffer>;
  postings: TermPostingsParts;
  unitLength: Float64Array<ArrayBuffer>;
  firstUnit: Int32Array<ArrayBuffer>;
  endUnit: Int32Array<ArrayBuffer>;
  sectionLength: Float64Array<ArrayBuffer>;
  headingPostings: TermPostingsParts;
  avgUnit: number;
  avgSection: number;
}

/** Integers per unit in {@link QueryIndexParts.unitInts}. */
const UNIT_INTS = 7;

/**
 * The units of a page in columns, {@link UNIT_INTS} integers and a cost
 * each, rather than an object apiece: a cached page holds thousands of
 * units (tens of thousands on a large spec), and every full collection
 * would visit each object. {@link at} makes one unit as an object, for the
 * few a question looks at closely.
 */
export class UnitTable {
  constructor(
    /** Per unit: start, end, section, head start and end (-1 without), kind, part. */
    readonly ints: Int32Array<ArrayBuffer>,
    readonly costs: Float64Array<ArrayBuffer>,
  ) {}

  /** The table of `units`. */
  static of(units: readonly Unit[]): UnitTable {
    const n = units.length;
    const ints = new Int32Array(n * UNIT_INTS);
    const costs = new Float64Array(n);
    for (let u = 0; u < n; u++) {
      const unit = units[u];
      const at = u * UNIT_INTS;
      ints[at] = unit.start;
      ints[at + 1] = unit.end;
      ints[at + 2] = unit.section;
      ints[at + 3] = unit.head?.[0] ?? -1;
      ints[at + 4] = unit.head?.[1] ?? -1;
      ints[at + 5] = KINDS.indexOf(unit.kind);
      ints[at + 6] = unit.part ? 1 : 0;
      costs[u] = unit.cost;
    }
    return new UnitTable(ints, costs);
  }

  /** Units in the table. */
  get length(): number {
    return this.costs.length;
  }

  /** The section owning unit `u`. */
  section(u: number): number {
    return this.ints[u * UNIT_INTS + 2];
  }

  /** The kind of unit `u`. */
  kind(u: number): UnitKind {
    return KINDS[this.ints[u * UNIT_INTS + 5]];
  }

  /** Whether unit `u` is a code block (the kind's number, without the name). */
  isCode(u: number): boolean {
    return this.ints[u * UNIT_INTS + 5] === CODE_KIND;
  }

  /** The token weight of unit `u`. */
  cost(u: number): number {
    return this.costs[u];
  }

  /** Where the header unit `u` is shown under starts (a table row's), -1 without one. */
  headStart(u: number): number {
    return this.ints[u * UNIT_INTS + 3];
  }

  /** Whether unit `u` continues the block of the unit before it. */
  isPart(u: number): boolean {
    return this.ints[u * UNIT_INTS + 6] !== 0;
  }

  /** Unit `u` as an object. */
  at(u: number): Unit {
    const ints = this.ints;
    const at = u * UNIT_INTS;
    const unit: Unit = {
      start: ints[at],
      end: ints[at + 1],
      kind: KINDS[ints[at + 5]],
      section: ints[at + 2],
      cost: this.costs[u],
    };
    if (ints[at + 3] >= 0) unit.head = [ints[at + 3], ints[at + 4]];
    if (ints[at + 6]) unit.part = true;
    return unit;
  }
}

/** The per-Document index: units, their term postings and heading terms. */
export class QueryIndex {
  /** Units in document order. */
  readonly units: UnitTable;
  /** term → flat [unit, tf, unit, tf, …] in unit order. */
  readonly postings: TermPostings;
  /** Terms per unit. */
  readonly unitLength: Float64Array<ArrayBuffer>;
  /** First unit of each section's own text (and of the preamble at index `sections.length`). */
  readonly firstUnit: Int32Array<ArrayBuffer>;
  /** One past the last unit of each section's own text. */
  readonly endUnit: Int32Array<ArrayBuffer>;
  /** Terms in each section's own text. */
  readonly sectionLength: Float64Array<ArrayBuffer>;
  /** term → sections whose heading holds it. */
  readonly headingPostings: TermPostings;
  /** Average terms per unit. */
  readonly avgUnit: number;
  /** Average terms per section (own text). */
  readonly avgSection: number;

  /**
   * Builds the index of `doc`, or takes it from `parts` (made by
   * {@link toParts} on another thread).
   */
  constructor(readonly doc: Document, parts?: QueryIndexParts) {
    if (parts) {
      const p = parts;
      this.units = new UnitTable(p.unitInts, p.unitCosts);
      this.postings = TermPostings.fromParts(p.postings);
      this.unitLength = p.unitLength;
      this.firstUnit = p.firstUnit;
      this.endUnit = p.endUnit;
      this.sectionLength = p.sectionLength;
      this.headingPostings = TermPostings.fromParts(p.headingPostings);
      this.avgUnit = p.avgUnit;
      this.avgSection = p.avgSection;
      return;
    }
    indexBuilds.question++;
    const md = doc.markdown;
    const sections = doc.sections;
    const units = this.#collect(md);
    this.units = UnitTable.of(units);
    const n = units.length;
    this.unitLength = new Float64Array(n);
    // Terms are counted by number: an ASCII word is found in a table of the words seen without
    // making a string, and its stem is worked out once per distinct word (see stemIds).
    // Every unit's (term, frequency) pairs in one typed array (not an array per term in the
    // heap), laid out per term at the end.
    const terms = new StemIds();
    const postings = new TermPairs(n);
    const counts = new TermCounts();
    const count = (id: number) => {
      postings.see(id);
      counts.add(id);
    };
    let total = 0;
    for (let u = 0; u < n; u++) {
      if ((u & 255) === 0) checkCancelled();
      const unit = units[u];
      terms.scan(visibleText(md.slice(unit.start, unit.end)), count);
      this.unitLength[u] = counts.length;
      total += counts.length;
      counts.drain(postings.add);
      postings.end(u);
    }
    // Each term's postings as (unit, frequency), units in order.
    const { start, next, pairs, ends } = postings.layout(2);
    const data = new Uint32Array(start[postings.vocabulary]);
    for (let u = 0, k = 0; u < n; u++) {
      for (; k < ends[u]; k += 2) {
        const at = next[pairs[k]];
        next[pairs[k]] = at + 2;
        data[at] = u;
        data[at + 1] = pairs[k + 1];
      }
    }
    postings.free();
    this.postings = new TermPostings(terms.stems.freeze(), start, data);
    this.avgUnit = n > 0 ? Math.max(1, total / n) : 1;
    const slots = sections.length + 1;
    this.firstUnit = new Int32Array(slots).fill(-1);
    this.endUnit = new Int32Array(slots).fill(-1);
    this.sectionLength = new Float64Array(slots);
    for (let u = 0; u < n; u++) {
      const s = this.slot(units[u].section);
      if (this.firstUnit[s] < 0) this.firstUnit[s] = u;
      this.endUnit[s] = u + 1;
      this.sectionLength[s] += this.unitLength[u];
    }
    let withText = 0;
    for (let s = 0; s < slots; s++) if (this.firstUnit[s] >= 0) withText++;
    this.avgSection = withText > 0 ? Math.max(1, total / withText) : 1;
    const headings = new TermTable();
    const headed: number[][] = [];
    sections.forEach((s, i) => {
      // A page of hundreds of thousands of headings: the index's deadline holds here too.
      if ((i & 1023) === 0) checkCancelled();
      scanTerms(s.title, (t) => {
        const id = headings.id(t, true);
        if (id === headed.length) headed.push([]);
        const list = headed[id];
        if (list[list.length - 1] !== i) list.push(i);
      });
    });
    this.headingPostings = new TermPostings(headings.freeze(), ...flatten(headed));
  }

  /** The index as plain data and typed arrays, and the buffers to transfer with it. */
  toParts(): { parts: QueryIndexParts; transfer: ArrayBuffer[] } {
    const { ints: unitInts, costs: unitCosts } = this.units;
    // Transferring the postings' buffers leaves this index without them: it is the sender's
    // copy, dropped once sent.
    const postings = this.postings.toParts();
    const headings = this.headingPostings.toParts();
    const parts: QueryIndexParts = {
      unitInts,
      unitCosts,
      postings: postings.parts,
      unitLength: this.unitLength.slice(),
      firstUnit: this.firstUnit.slice(),
      endUnit: this.endUnit.slice(),
      sectionLength: this.sectionLength.slice(),
      headingPostings: headings.parts,
      avgUnit: this.avgUnit,
      avgSection: this.avgSection,
    };
    const transfer = [
      unitInts.buffer,
      unitCosts.buffer,
      parts.unitLength.buffer,
      parts.firstUnit.buffer,
      parts.endUnit.buffer,
      parts.sectionLength.buffer,
    ];
    return { parts, transfer: [...transfer, ...postings.transfer, ...headings.transfer] };
  }

  /** The array slot of a section (-1, the preamble, is the last slot). */
  slot(section: number): number {
    return section < 0 ? this.doc.sections.length : section;
  }

  #bytes?: number;

  /** The typed arrays the index owns (for `freeArrays` once it is dropped). */
  arrays(): ArrayBufferView[] {
    const own = [this.unitLength, this.firstUnit, this.endUnit, this.sectionLength];
    own.push(this.units.ints, this.units.costs);
    return [...own, ...this.postings.arrays(), ...this.headingPostings.arrays()];
  }

  /** Heap bytes held (see lib/runtime/heap.ts), counted once: the index does not change. */
  approxBytes(): number {
    return this.#bytes ??= this.#count();
  }

  #count(): number {
    let bytes = typedArrayBytes(this.units.ints.byteLength);
    bytes += typedArrayBytes(this.units.costs.byteLength);
    bytes += this.postings.approxBytes() + this.headingPostings.approxBytes();
    bytes += typedArrayBytes(this.unitLength.byteLength + this.sectionLength.byteLength);
    bytes += typedArrayBytes(this.firstUnit.byteLength) + typedArrayBytes(this.endUnit.byteLength);
    return bytes;
  }

  #collect(md: string): Unit[] {
    const units: Unit[] = [];
    const sections = this.doc.sections;
    let si = -1; // section owning the current position
    const sectionOf = (offset: number): number => {
      while (si + 1 < sections.length && sections[si + 1].start <= offset) si++;
      return si;
    };
    const raw = blocks(md).filter((b) => !b.heading);
    for (let i = 0; i < raw.length; i++) {
      if ((i & 255) === 0) checkCancelled();
      let { start, end } = raw[i];
      const text = md.slice(start, end);
      const kind = kindOf(text);
      const section = sectionOf(start);
      // A list or quote continues over blank lines: indented blocks, further items.
      if (kind === "list" || kind === "quote") {
        while (i + 1 < raw.length && sectionOf(raw[i + 1].start) === section) {
          const next = md.slice(raw[i + 1].start, raw[i + 1].end);
          const continues = kind === "list"
            ? LIST_ITEM.test(next) || /^(?: {2,}|\t)/.test(next)
            : /^ {0,3}>/.test(next);
          if (!continues) break;
          end = raw[++i].end;
        }
      }

      const cost = tokenWeight(md.slice(start, end));
      if (cost > SPLIT_TOKENS && (kind === "list" || kind === "table")) {
        this.#split(md, start, end, kind, section, units);
      } else if (cost > TEXT_SPLIT_TOKENS && kind === "text") {
        this.#sentences(md, start, end, section, units);
      } else units.push({ start, end, kind, section, cost });
    }
    return units;
  }

  /** Divides a long paragraph into runs of whole sentences. */
  #sentences(md: string, start: number, end: number, section: number, units: Unit[]): void {
    const text = md.slice(start, end);
    const pieces: [number, number][] = [];
    let from = 0;
    for (const m of matchesOf(SENTENCE_END, text)) {
      const cut = m.index! + m[1].length;
      if (tokenWeight(text.slice(from, cut)) >= PIECE_TOKENS) {
        pieces.push([from, cut]);
        from = cut + m[2].length;
      }
    }
    if (from < text.length) {
      if (pieces.length > 0 && tokenWeight(text.slice(from)) < PIECE_TOKENS / 4) {
        pieces[pieces.length - 1][1] = text.length;
      } else pieces.push([from, text.length]);
    }
    // A run with no sentence end to cut at is cut between words. Whether what is left
    // weighs enough is asked of as much of it as it takes (weighsOver), not of all of it at
    // every cut: a paragraph of 200,000 links, with no sentence end, was weighed whole
    // at each of its thousands of cuts.
    const cut: [number, number][] = [];
    for (const piece of pieces) {
      let [a, b] = piece;
      for (;;) {
        checkCancelled();
        if (!weighsOver(text, a, b, 2 * PIECE_TOKENS)) break;
        let weight = 0;
        let at = -1;
        for (let i = a; i < b; i++) {
          const c = text.charCodeAt(i);
          weight += c < 0x80 ? 0.25 : (c >= 0xdc00 && c <= 0xdfff) ? 0 : 1;
          if (
            weight >= PIECE_TOKENS && (c === 32 || c === 10) &&
            weighsOver(text, i, b, PIECE_TOKENS / 2)
          ) {
            at = i;
            break;
          }
        }
        if (at < 0) break;
        cut.push([a, at]);
        a = at + 1;
      }
      cut.push([a, b]);
    }
    cut.forEach(([a, b], k) => {
      units.push({
        start: start + a,
        end: start + b,
        kind: "text",
        section,
        cost: tokenWeight(text.slice(a, b)),
        part: k > 0,
      });
    });
  }

  /** Divides a large list at its top-level items, a large table at its rows. */
  #split(
    md: string,
    start: number,
    end: number,
    kind: UnitKind,
    section: number,
    units: Unit[],
  ): void {
    const lines: [number, number][] = [];
    for (let p = start; p < end;) {
      let nl = md.indexOf("\n", p);
      if (nl < 0 || nl > end) nl = end;
      lines.push([p, nl]);
      p = nl + 1;
    }
    if (kind === "table") {
      const head: [number, number] = [lines[0][0], lines[1][1]];
      for (const [k, [a, b]] of lines.slice(2).entries()) {
        units.push({
          start: a,
          end: b,
          kind: "row",
          section,
          cost: tokenWeight(md.slice(a, b)),
          head,
          part: k > 0,
        });
      }
      return;
    }
    const indent = /^ */.exec(md.slice(lines[0][0], lines[0][1]))![0].length;
    let itemStart = lines[0][0];
    let fence = false;
    let first = true;
    const push = (a: number, b: number) => {
      const text = md.slice(a, b).trimEnd();
      if (text.trim() !== "") {
        units.push({
          start: a,
          end: a + text.length,
          kind: "item",
          section,
          cost: tokenWeight(text),
          part: !first,
        });
        first = false;
      }
    };
    for (let k = 0; k < lines.length; k++) {
      const line = md.slice(lines[k][0], lines[k][1]);
      if (fence) {
        if (FENCE_LINE.test(line)) fence = false;
        continue;
      }
      const m = LIST_ITEM.exec(line);
      if (k > 0 && m && m[1].length === indent) {
        push(itemStart, lines[k][0]);
        itemStart = lines[k][0];
      }
      // A fence opens on its own line or on an item's ("- ```": an item whose first child is code).
      if (FENCE_LINE.test(m ? line.slice(m[0].length) : line)) fence = true;
    }
    push(itemStart, end);
  }
}

const QUERY_INDEX = Symbol("query index");

/**
 * Which answer shapes (`intent.ts`) each unit of a Document gives, worked
 * out once per unit and shape and kept with the Document: the query view
 * asks the extraction again with other budgets (up to eight times per
 * question), and questions asking for the same shape share candidates. A
 * bit per shape (by its index in the shape table, below eight) of what was
 * tested and of what was found.
 */
class UnitShapes {
  readonly #tested: Uint8Array<ArrayBuffer>;
  readonly #gives: Uint8Array<ArrayBuffer>;
  readonly #reads: Uint8Array<ArrayBuffer>;

  /** Room for `units` units, none tested. */
  constructor(units: number) {
    this.#tested = new Uint8Array(units);
    this.#gives = new Uint8Array(units);
    this.#reads = new Uint8Array(units);
  }

  /**
   * How unit `u` reads, as bits: {@link READS_PROSE}, {@link READS_BADGE}
   * (see `Picker.isProse` and `isBadge`); `judge` works them out the first
   * time. The same for every question, so kept too.
   */
  reads(u: number, judge: (u: number) => number): number {
    if (u >= this.#reads.length) return judge(u);
    let r = this.#reads[u];
    if (r === 0) this.#reads[u] = r = READS_KNOWN | judge(u);
    return r;
  }

  /**
   * The shapes of `shapes` unit `u` gives, a bit per entry of `shapes` (as
   * `shapeMatches` says them); `want` has the bit `1 << s` of each shape `s`
   * of `shapes` (all below eight), and `text` reads unit `u` when a shape is
   * new.
   */
  bits(u: number, shapes: readonly number[], want: number, text: (u: number) => string): number {
    if (u >= this.#tested.length) return shapeMatches(shapes, text(u));
    const untested = want & ~this.#tested[u];
    if (untested !== 0) {
      const ask = shapes.filter((s) => untested & (1 << s));
      const found = shapeMatches(ask, text(u));
      for (let k = 0; k < ask.length; k++) {
        if (found & (1 << k)) this.#gives[u] |= 1 << ask[k];
      }
      this.#tested[u] |= untested;
    }
    const gives = this.#gives[u];
    let out = 0;
    for (let k = 0; k < shapes.length; k++) if (gives & (1 << shapes[k])) out |= 1 << k;
    return out;
  }

  /** Bytes held. */
  approxBytes(): number {
    return typedArrayBytes(this.#tested.byteLength) + typedArrayBytes(this.#gives.byteLength) +
      typedArrayBytes(this.#reads.byteLength);
  }

  /** The arrays, given back when the Document is released. */
  arrays(): ArrayBufferView[] {
    return [this.#tested, this.#gives, this.#reads];
  }
}

/** {@link UnitShapes.reads}: worked out. */
const READS_KNOWN = 1;
/** {@link UnitShapes.reads}: a sentence or more of running text. */
const READS_PROSE = 2;
/** {@link UnitShapes.reads}: a line of text with no sentence in it. */
const READS_BADGE = 4;

const UNIT_SHAPES = Symbol("answer shapes of units");

/** The kept answer shapes of the units of `doc` (see {@link UnitShapes}). */
function unitShapes(doc: Document, units: number): UnitShapes {
  return doc.memo(UNIT_SHAPES, () => new UnitShapes(units));
}

/** Works out how unit `u` of `doc` reads (see {@link UnitShapes.reads}). */
function judgeReads(doc: Document, index: QueryIndex, u: number): number {
  const shape = textShape(doc.markdown, index.units.at(u));
  if (shape === undefined) return 0;
  let r = 0;
  if (shape.sentence && shape.words >= 10 && shape.stopWords >= 3) r |= READS_PROSE;
  if (!shape.sentence && shape.words < 10 && shape.stopWords === 0) r |= READS_BADGE;
  return r;
}

/** Unit shapes being filled in the background (each filled once). */
const shaping = new WeakSet<UnitShapes>();

/**
 * Works out how every unit of `doc` reads and which answer shapes it gives
 * (kept in its {@link UnitShapes}, as a question would), in the background:
 * in steps of `BACKGROUND_STEP_MS` between other work, while the agent
 * reads an answer. A question weighs the candidates of its best sections by
 * the shapes they give and whether they read as prose, and a unit no
 * question had looked at was tested then, pattern by pattern: on WHATWG
 * HTML, a fifth of a new question's time in the view. Called after a
 * question, so a page nobody asks about is never shaped; once per
 * Document's shapes, stopped when the Document gives back its memory.
 * Never keeps the process alive.
 */
export function shapeUnitsLater(doc: Document): void {
  if (!hasQueryIndex(doc) || !doc.hasMemo(UNIT_SHAPES)) return;
  const index = queryIndex(doc);
  const n = index.units.length;
  const shapes = unitShapes(doc, n);
  if (shaping.has(shapes)) return;
  shaping.add(shapes);
  // Every shape of the table (there are fewer than eight: a bit each).
  const all = Array.from({ length: Math.min(8, SHAPE_COUNT) }, (_, s) => s);
  const want = all.reduce((bits, s) => bits | (1 << s), 0);
  const text = (u: number) => {
    const unit = index.units.at(u);
    return doc.markdown.slice(unit.start, unit.end);
  };
  const judge = (u: number) => judgeReads(doc, index, u);
  let next = 0;
  const step = () => {
    // A released Document dropped its shapes (a later question makes and fills new ones).
    if (doc.released || !doc.hasMemo(UNIT_SHAPES) || unitShapes(doc, n) !== shapes) return;
    const deadline = performance.now() + BACKGROUND_STEP_MS;
    while (next < n && ((next & 15) !== 0 || performance.now() < deadline)) {
      shapes.bits(next, all, want, text);
      shapes.reads(next, judge);
      next++;
    }
    if (next < n) Deno.unrefTimer(setTimeout(step, 0));
  };
  Deno.unrefTimer(setTimeout(step, 0));
}

/**
 * Keeps `index` (made from parts another thread built) as the query index
 * of its Document, unless one was built meanwhile.
 */
export function adoptQueryIndex(index: QueryIndex): void {
  index.doc.memo(QUERY_INDEX, () => index);
}

/** The index of `doc` (built on first use and kept with the Document). */
export function queryIndex(doc: Document): QueryIndex {
  return doc.memo(QUERY_INDEX, () => new QueryIndex(doc));
}

/** Whether the query index of `doc` is built. */
export function hasQueryIndex(doc: Document): boolean {
  return doc.hasMemo(QUERY_INDEX);
}

/** A ranked section. */
export interface Ranked {
  /** Section (-1 for the preamble). */
  section: number;
  score: number;
  /** Share of the question's terms in its text and heading path. */
  coverage: number;
  /** Share of the question's terms in its own heading. */
  headingCoverage: number;
}

function bm25(tf: number, len: number, avg: number): number {
  return (tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * len) / avg));
}

function idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/** Whole-page answers. */
function whole(
  doc: Document,
  confidence: ExtractConfidence | null,
  tokens: number,
): QueryExtraction {
  return {
    text: doc.markdown,
    extracted: false,
    confidence,
    sectionsSelected: 0,
    originalTokens: tokens,
    returnedTokens: tokens,
    overBudget: false,
  };
}

/** Scores of a question over a Document: units, and sections by rank. */
export interface Ranking {
  /** Unit index → BM25 score (units with a question term only). */
  unitScore: UnitScores;
  /**
   * The best sections with a positive score, at most {@link PASSAGE_SECTIONS}
   * (all the picking reads), best first (empty in unit mode).
   */
  ranked: Ranked[];
  /** True when the page has fewer than two headings. */
  unitMode: boolean;
  /** Unit index → flat [term index, tf, …] of the question terms it holds. */
  unitTerms: UnitTerms;
  /** Inverse document frequency of each term over units. */
  unitIdf: number[];
  /** A unit's weight for its kind: code at {@link EXAMPLE_WEIGHT} unless the question asks for code. */
  unitWeight: (unit: number) => number;
  /** Number of question terms (the question's own; expansion terms follow them). */
  terms: number;
  /** Weight of each term: 1 for the question's own, then the expansion terms'. */
  termWeight: number[];
}

/** A term ranked beside a question's own, at a weight below theirs. */
export interface WeightedTerm {
  /** A stem, as {@link questionTerms} gives them. */
  term: string;
  /** Its weight, in (0, 1]: 0.3 counts a match at 30 % of a question term's. */
  weight: number;
}

const NONE: readonly number[] = [];

/** How many of the question's own terms a unit's `[term index, tf, …]` holds. */
function ownTerms(ut: readonly number[], own: number): number {
  let held = 0;
  for (let k = 0; k < ut.length; k += 2) if (ut[k] < own) held++;
  return held;
}

/**
 * Ranks the units and sections of `doc` for question terms (see the module
 * notes), and for `expansion` terms at their weights (terms already among
 * the question's, and weights not above 0, are left out; a weight above 1
 * counts as 1). `columns`, when given, are columns as long as the page has
 * units, the scores' all zeros, which the ranking's unit scores are summed
 * into and its units listed in (see {@link rankedFor}); by default new ones.
 */
export function rankForQuery(
  doc: Document,
  questionStems: readonly string[],
  code = false,
  expansion: readonly WeightedTerm[] = [],
  columns?: UnitColumns,
): Ranking {
  const index = queryIndex(doc);
  const units = index.units;
  const n = units.length;
  const own = questionStems.length;
  const terms = [...questionStems];
  const termWeight = terms.map(() => 1);
  for (const { term, weight } of expansion) {
    if (!(weight > 0) || terms.includes(term)) continue;
    terms.push(term);
    termWeight.push(Math.min(1, weight));
  }
  // Unit scores and per-section term frequencies, summed in arrays indexed by unit and by
  // section (a common word's postings are thousands of units: a map read and write, or a list
  // of the unit's terms, for each was most of a question's time). Which terms a unit holds is
  // looked up in the postings only for the units the picking reads (`UnitTerms`).
  const unitIdf = terms.map((t) => idf(n, (index.postings.get(t)?.length ?? 0) / 2));
  const sections = doc.sections;
  const slots = sections.length + 1;
  const T = terms.length;
  const { score, met } = columns?.score.length === n && columns.met.length === n
    ? columns
    : { score: new Float64Array(n), met: new Int32Array(n) };
  let metCount = 0;
  const sectionTf = new Float64Array(slots * T); // slot × term index → tf
  const slotsMet: number[] = [];
  const sectionDf = new Array<number>(T).fill(0);
  const postings: (Uint32Array | undefined)[] = terms.map((t) => index.postings.get(t));
  for (let q = 0; q < T; q++) {
    const p = postings[q];
    if (!p) continue;
    const w = unitIdf[q] * termWeight[q];
    let lastSlot = -1;
    for (let k = 0; k < p.length; k += 2) {
      const u = p[k];
      const tf = p[k + 1];
      const add = w * bm25(tf, index.unitLength[u], index.avgUnit);
      if (score[u] === 0) {
        score[u] = add;
        met[metCount++] = u;
      } else {
        score[u] += add;
      }
      const slot = index.slot(units.section(u));
      if (slot !== lastSlot) {
        sectionDf[q]++;
        lastSlot = slot;
      }
      const at = slot * T;
      if (sectionTf[at + q] === 0) {
        let first = true;
        for (let r = 0; r < q && first; r++) if (sectionTf[at + r] > 0) first = false;
        if (first) slotsMet.push(slot);
      }
      sectionTf[at + q] += tf;
    }
  }
  const unitWeight = (u: number): number => !code && units.isCode(u) ? EXAMPLE_WEIGHT : 1;
  // The best unit of each section (a section with one strong paragraph beats a long, diffuse
  // one), code at its weight.
  const bestUnit = new Float64Array(slots);
  for (let k = 0; k < metCount; k++) {
    const u = met[k];
    if (!code && units.isCode(u)) score[u] *= EXAMPLE_WEIGHT;
    const slot = index.slot(units.section(u));
    if (score[u] > bestUnit[slot]) bestUnit[slot] = score[u];
  }
  const unitScore = new UnitScores({ score, met }, metCount);
  const unitTerms = new UnitTerms(postings, unitScore);
  // Section → the question terms its heading holds, ascending: an array by section, not a
  // Map, as the candidates' loop reads it for every ancestor of every section a term met.
  const headed: (number[] | undefined)[] = new Array(sections.length);
  const headedSections: number[] = [];
  for (let q = 0; q < T; q++) {
    for (const s of index.headingPostings.get(terms[q]) ?? []) {
      const list = headed[s];
      if (!list) {
        headed[s] = [q];
        headedSections.push(s);
      } else if (list[list.length - 1] !== q) list.push(q);
    }
  }
  const sectionIdf = terms.map((t, q) =>
    idf(slots, Math.max(sectionDf[q], index.headingPostings.get(t)?.length ?? 0)) * termWeight[q]
  );

  const unitMode = sections.length < 2;
  const ranked: Ranked[] = [];
  if (!unitMode) {
    // The sections a term met, then those only a heading names (indexed loops: a common word
    // meets thousands, and an iterator's step allocated).
    const candidates = slotsMet;
    const listed = new Uint8Array(slots);
    for (let k = 0; k < slotsMet.length; k++) listed[slotsMet[k]] = 1;
    for (let k = 0; k < headedSections.length; k++) {
      if (!listed[headedSections[k]]) candidates.push(headedSections[k]);
    }
    const covered = new Uint8Array(T);
    for (let c = 0; c < candidates.length; c++) {
      const slot = candidates[c];
      const section = slot === sections.length ? -1 : slot;
      const at = slot * T;
      covered.fill(0);
      let score = 0;
      let any = false;
      for (let q = 0; q < T; q++) {
        const f = sectionTf[at + q];
        if (f === 0) continue;
        any = true;
        covered[q] = 1;
        score += sectionIdf[q] * bm25(f, index.sectionLength[slot], index.avgSection);
      }
      if (any) score = SECTION_SHARE * score + bestUnit[slot];
      let ownHeaded = 0;
      if (section >= 0) {
        const mine = headed[section] ?? NONE;
        for (let k = 0; k < mine.length; k++) {
          const q = mine[k];
          score += HEADING_WEIGHT * sectionIdf[q];
          covered[q] = 1;
          if (q < own) ownHeaded++;
        }
        for (let a = sections[section].parent; a >= 0; a = sections[a].parent) {
          const above = headed[a] ?? NONE;
          for (let k = 0; k < above.length; k++) {
            const q = above[k];
            if (!covered[q]) score += ANCESTOR_WEIGHT * sectionIdf[q];
            covered[q] = 1;
          }
        }
      }
      // Coverage counts the question's own terms only.
      let ownCovered = 0;
      for (let q = 0; q < own; q++) ownCovered += covered[q];
      const coverage = ownCovered / own;
      const headingCoverage = ownHeaded / own;
      score *= 0.4 + 0.6 * coverage;
      if (score > 0) keepBest(ranked, section, score, coverage, headingCoverage);
    }
  }
  return { unitScore, unitTerms, unitIdf, unitWeight, terms: own, termWeight, ranked, unitMode };
}

/** Whether section `a` with `aScore` ranks before section `b` with `bScore`. */
function ranksBefore(aScore: number, a: number, bScore: number, b: number): boolean {
  return aScore > bScore || (aScore === bScore && a < b);
}

/**
 * Adds a section to `ranked` (best first, at most {@link PASSAGE_SECTIONS})
 * when it ranks among the best: a common word puts hundreds of sections in
 * the running, and sorting them all was a fifth of a question's ranking.
 */
function keepBest(
  ranked: Ranked[],
  section: number,
  score: number,
  coverage: number,
  headingCoverage: number,
): void {
  let at = ranked.length;
  while (at > 0 && ranksBefore(score, section, ranked[at - 1].score, ranked[at - 1].section)) at--;
  if (at >= PASSAGE_SECTIONS) return;
  ranked.splice(at, 0, { section, score, coverage, headingCoverage });
  if (ranked.length > PASSAGE_SECTIONS) ranked.pop();
}

/**
 * A ranking's columns over the units of a page: each unit's score (0 for a
 * unit no term met: idf > 0), and the units met, in the order their first
 * term met them (the first entries).
 */
export interface UnitColumns {
  score: Float64Array<ArrayBuffer>;
  met: Int32Array<ArrayBuffer>;
}

/**
 * The units a question's terms met and their scores, in a column indexed by
 * unit (0 for the others) and the list of those met, in the order met.
 */
export class UnitScores {
  readonly #columns: UnitColumns;
  readonly #score: Float64Array<ArrayBuffer>;
  readonly #met: Int32Array<ArrayBuffer>;

  /** The scores of `columns`, whose first `met` units were met. */
  constructor(columns: UnitColumns, met: number) {
    this.#columns = columns;
    this.#score = columns.score;
    this.#met = columns.met.subarray(0, met);
  }

  /** How many units the terms met. */
  get size(): number {
    return this.#met.length;
  }

  /** Unit `u`'s score, undefined when no term met it. */
  get(u: number): number | undefined {
    const s = this.#score[u];
    return s > 0 ? s : undefined;
  }

  /** Whether a term met unit `u`. */
  has(u: number): boolean {
    return this.#score[u] > 0;
  }

  /** The units met, in the order met. */
  keys(): Iterable<number> {
    return this.#met;
  }

  /** `[unit, score]` of the units met, in the order met. */
  *[Symbol.iterator](): Iterator<[number, number]> {
    for (const u of this.#met) yield [u, this.#score[u]];
  }

  /**
   * The columns, the scores zeroed again where units were met, for another
   * ranking to fill; these scores are not read again.
   */
  recycle(): UnitColumns {
    for (let k = 0; k < this.#met.length; k++) this.#score[this.#met[k]] = 0;
    return this.#columns;
  }
}

/**
 * The question terms each unit holds, as flat `[term index, tf, …]` in term
 * order, looked up in the terms' postings (sorted by unit) when first asked
 * for and kept: the picking reads a few hundred units of a ranking that met
 * thousands.
 */
export class UnitTerms {
  readonly #postings: readonly (Uint32Array | undefined)[];
  readonly #scores: UnitScores;
  readonly #kept = new Map<number, number[]>();

  constructor(postings: readonly (Uint32Array | undefined)[], scores: UnitScores) {
    this.#postings = postings;
    this.#scores = scores;
  }

  /** The terms of unit `u`, undefined when it holds none. */
  get(u: number): readonly number[] | undefined {
    if (!this.#scores.has(u)) return undefined;
    let out = this.#kept.get(u);
    if (out) return out;
    out = [];
    for (let q = 0; q < this.#postings.length; q++) {
      const p = this.#postings[q];
      if (!p) continue;
      // Binary search over the pairs for unit u.
      let lo = 0;
      let hi = p.length / 2;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (p[2 * mid] < u) lo = mid + 1;
        else hi = mid;
      }
      if (lo < p.length / 2 && p[2 * lo] === u) out.push(q, p[2 * lo + 1]);
    }
    this.#kept.set(u, out);
    return out;
  }
}

/** Options of {@link extractForQuery}. */
export interface ExtractOptions {
  /**
   * Terms to rank with beside the question's stems (`terms`), each at its
   * weight (see {@link rankForQuery}): synonyms, neighbours, feedback terms.
   * Called once the page's index is built. None by default.
   */
  expand?: (terms: readonly string[], doc: Document, query: string) => readonly WeightedTerm[];
  /**
   * When true, the `expand` terms weigh in the choice of passages only: the
   * sections are ranked by the question's own words (and its measure nouns).
   */
  expandPassagesOnly?: boolean;
}

/**
 * Extracts the parts of `doc` that answer `query` within `maxTokens`
 * (clamped to {@link QUERY_MIN_TOKENS}..{@link QUERY_MAX_TOKENS}).
 */
export function extractForQuery(
  doc: Document,
  query: string,
  maxTokens: number = QUERY_DEFAULT_TOKENS,
  options: ExtractOptions = {},
): QueryExtraction {
  const budget = Math.min(QUERY_MAX_TOKENS, Math.max(QUERY_MIN_TOKENS, Math.floor(maxTokens)));
  const originalTokens = doc.tokens;
  if (originalTokens <= Math.max(800, Math.floor(1.25 * budget))) {
    return whole(doc, null, originalTokens);
  }
  const { terms } = questionTerms(query);
  if (terms.length === 0) return whole(doc, "low", originalTokens);
  retireRankings(doc);
  const index = queryIndex(doc);
  const units = index.units;
  const n = units.length;
  if (n === 0) return whole(doc, "low", originalTokens);

  const dimensions = dimensionWords(query).map((w) => ({
    term: stem(w),
    weight: DIMENSION_WEIGHT,
  }));
  const extra = options.expand?.(terms, doc, query) ?? [];
  let ranking = rankedFor(doc, query, terms, [...dimensions, ...extra]);
  if (options.expandPassagesOnly && extra.length > 0) {
    const sections = rankedFor(doc, query, terms, dimensions);
    ranking = { ...ranking, ranked: sections.ranked };
  }
  const { unitScore, ranked, unitMode } = ranking;
  if (unitMode ? unitScore.size === 0 : ranked.length === 0) {
    return whole(doc, "low", originalTokens);
  }
  // Units are priced one by one; the estimate of the joined text can differ by a few tokens
  // (it weighs the whole text's features), so picking leaves that much room.
  const slack = Math.max(2, Math.ceil(budget * 0.03));
  const picker = new Picker(doc, index, budget - slack, ranking, answerShapes(query));
  let confidence: ExtractConfidence = "medium";
  if (unitMode) {
    picker.pickWithin(0, n, true);
    let best = -1;
    let bestScore = 0;
    for (const [u, s] of unitScore) {
      if (s > bestScore || (s === bestScore && u < best)) [best, bestScore] = [u, s];
    }
    const covered = new Set<string>();
    const bestUnit = units.at(best);
    scanTerms(doc.markdown.slice(bestUnit.start, bestUnit.end), (t) => covered.add(t));
    if (terms.filter((t) => covered.has(t)).length * 2 >= terms.length) confidence = "high";
  } else {
    // The best section first: whole when it fits, else its best units, within half the budget
    // when the runner-up is close; then the best passages of the next best sections.
    const first = ranked[0];
    const close = ranked.length > 1 && ranked[1].score >= CLOSE_SHARE * first.score;
    picker.ceiling = close ? picker.used + budget * FIRST_SHARE : Infinity;
    picker.pickSection(first, true);
    picker.ceiling = Infinity;
    picker.pickPassages(ranked);
    confidence = first.coverage >= 0.5 ? "high" : "medium";
  }
  return picker.render(confidence, originalTokens, unitMode);
}

/**
 * The rankings of each Document's questions: the last one made, by
 * question (the query view asks the extraction again with a scaled budget
 * until the answer fills it, see `lib/views/view.ts`, and the ranking does
 * not depend on the budget), and those made since the current extraction
 * began.
 */
interface Rankings {
  key: string;
  ranking: Ranking;
  made: Ranking[];
  /** The columns of a ranking no longer read, scores zeroed (see {@link retireRankings}). */
  spare?: UnitColumns;
}

const rankings = new WeakMap<Document, Rankings>();

/**
 * Gives back the score columns of the rankings of `doc` that no extraction
 * reads again, as an extraction begins: a ranking is read only by the
 * extraction that asked for it, and the last one by the next when it asks
 * the same. A column is as long as the page has units (31,000 on WHATWG
 * HTML, 250 KB): a new one per question cost more than the postings' loop
 * that fills it (its memory was faulted in as the loop wrote it), and was
 * garbage a moment later.
 */
function retireRankings(doc: Document): void {
  const state = rankings.get(doc);
  if (!state) return;
  for (const r of state.made) {
    if (r !== state.ranking && !state.spare) state.spare = r.unitScore.recycle();
  }
  state.made = [state.ranking];
}

function rankedFor(
  doc: Document,
  query: string,
  terms: readonly string[],
  expansion: readonly WeightedTerm[] | undefined,
): Ranking {
  const key = JSON.stringify([query, expansion ?? []]);
  const last = rankings.get(doc);
  if (last?.key === key) return last.ranking;
  const columns = last?.spare;
  if (last) last.spare = undefined;
  const ranking = rankForQuery(doc, terms, asksForCode(query), expansion, columns);
  if (last) {
    last.key = key;
    last.ranking = ranking;
    last.made.push(ranking);
  } else rankings.set(doc, { key, ranking, made: [ranking] });
  return ranking;
}

/**
 * What the picking works out from a ranking (and the question's answer
 * shapes, which come with it: a ranking is made per question) and not from
 * the budget, kept with the ranking: the query view asks the extraction
 * again with other budgets until the answer fills one (2.7 times a question
 * on WHATWG HTML's, up to eight), and each time scored the same candidates.
 */
interface PickMemo {
  /** Section → the weight of its heading line and the gap after it. */
  headings: Map<number, number>;
  /** Start of a table's header → the weight of the header and the gap after it. */
  heads: Map<number, number>;
  /** Start of a range → its end and the local scores of its units (see `Picker.localScores`). */
  local: Map<number, { end: number; scores: Map<number, number> }>;
  /** The passage stage's candidates → their scores, and the best score, for `ranked`. */
  passages?: { ranked: readonly Ranked[]; scores: Map<number, number>; best: number };
}

const pickMemos = new WeakMap<Ranking, PickMemo>();

/** Chooses units under a budget and renders them. */
class Picker {
  readonly chosen = new Set<number>();
  readonly shownHeadings = new Set<number>();
  readonly touched = new Set<number>();
  /** Starts with the closing marker reserved. */
  used = 2.5;
  overBudget = false;

  constructor(
    readonly doc: Document,
    readonly index: QueryIndex,
    readonly budget: number,
    readonly ranking: Ranking,
    readonly shapes: readonly number[] = [],
  ) {
    let memo = pickMemos.get(ranking);
    if (!memo) {
      pickMemos.set(ranking, memo = { headings: new Map(), heads: new Map(), local: new Map() });
    }
    this.#memo = memo;
  }

  readonly #memo: PickMemo;

  #unitShapes?: UnitShapes;

  /** The bit `1 << s` of each shape `s` of the question; -1 when one is not below eight. */
  #shapeWant?: number;

  /** Reads unit `u`'s text. */
  readonly #unitText = (u: number): string => {
    const unit = this.index.units.at(u);
    return this.doc.markdown.slice(unit.start, unit.end);
  };

  /** The answer shapes unit `u` gives, a bit per shape of the question. */
  shapeBits(u: number): number {
    if (this.#shapeWant === undefined) {
      let want = 0;
      for (const s of this.shapes) want = s >= 8 || want < 0 ? -1 : want | (1 << s);
      this.#shapeWant = want;
    }
    if (this.#shapeWant < 0) return shapeMatches(this.shapes, this.#unitText(u));
    this.#unitShapes ??= unitShapes(this.doc, this.index.units.length);
    return this.#unitShapes.bits(u, this.shapes, this.#shapeWant, this.#unitText);
  }

  /** The units of the own text of `sections`. */
  unitsOf(sections: readonly Ranked[]): number[] {
    const out: number[] = [];
    for (const r of sections) {
      const slot = this.index.slot(r.section);
      const a = this.index.firstUnit[slot];
      if (a < 0) continue;
      for (let u = a; u < this.index.endUnit[slot]; u++) out.push(u);
    }
    return out;
  }

  /**
   * Weights of units for the answer shapes the question asks for, among the
   * candidate units `pool`: a shape counts by its rarity there (a thrown
   * error in an algorithm whose every step may throw tells nothing).
   */
  shapeWeights(pool: Iterable<number>): (u: number) => number {
    if (this.shapes.length === 0) return () => 1;
    const given = this.shapes.map(() => 0);
    let units = 0;
    for (const u of pool) {
      const bits = this.shapeBits(u);
      for (let k = 0; k < given.length; k++) if (bits & (1 << k)) given[k]++;
      units++;
    }
    const share = given.map((n) => units ? n / units : 0);
    return (u: number) => {
      const bits = this.shapeBits(u);
      let w = 1;
      for (let k = 0; k < share.length; k++) {
        if (bits & (1 << k)) w += SHAPE_WEIGHT * (1 - share[k]);
      }
      return w;
    };
  }

  /**
   * Scores of the units in [a, b) for choosing inside that range: a term
   * found in most of the range's units (the section's own subject) tells
   * its units apart less than one found in few, and units holding more of
   * the question's terms come first.
   */
  localScores(a: number, b: number): Map<number, number> {
    const kept = this.#memo.local.get(a);
    if (kept?.end === b) return kept.scores;
    const scores = this.#localScores(a, b);
    this.#memo.local.set(a, { end: b, scores });
    return scores;
  }

  #localScores(a: number, b: number): Map<number, number> {
    const { unitTerms, unitIdf, terms, termWeight } = this.ranking;
    const inRange: number[] = [];
    const df = new Array<number>(termWeight.length).fill(0);
    for (let u = a; u < b; u++) {
      const ut = unitTerms.get(u);
      if (!ut) continue;
      inRange.push(u);
      for (let k = 0; k < ut.length; k += 2) df[ut[k]]++;
    }
    const n = b - a;
    const weight = df.map((d, q) => (idf(n, d) + LOCAL_GLOBAL * unitIdf[q]) * termWeight[q]);
    const out = new Map<number, number>();
    const shapeWeight = this.shapeWeights(inRange);
    for (const u of inRange) {
      const ut = unitTerms.get(u)!;
      let score = 0;
      for (let k = 0; k < ut.length; k += 2) {
        score += weight[ut[k]] * bm25(ut[k + 1], this.index.unitLength[u], this.index.avgUnit);
      }
      out.set(
        u,
        score * (0.5 + ownTerms(ut, terms) / terms) * this.ranking.unitWeight(u) *
          shapeWeight(u),
      );
    }
    return out;
  }

  /** Highest `used` the current section may reach (the budget applies too). */
  ceiling = Infinity;

  limit(): number {
    return Math.min(this.budget, this.ceiling);
  }

  remaining(): number {
    return this.limit() - this.used;
  }

  /** Cost of the headings from the root to `section` not yet shown. */
  headingCost(section: number): number {
    let cost = 0;
    for (let s = section; s >= 0; s = this.doc.sections[s].parent) {
      if (!this.shownHeadings.has(s)) cost += this.#headingWeight(s);
    }
    return cost;
  }

  /** The weight of the header unit `u` is shown under and the gap after it. */
  #headWeight(u: number): number {
    const start = this.index.units.headStart(u);
    let w = this.#memo.heads.get(start);
    if (w === undefined) {
      const { head } = this.index.units.at(u);
      this.#memo.heads.set(
        start,
        w = tokenWeight(this.doc.markdown.slice(head![0], head![1])) + GAP,
      );
    }
    return w;
  }

  /** The weight of section `s`'s heading line and the gap after it. */
  #headingWeight(s: number): number {
    let w = this.#memo.headings.get(s);
    if (w === undefined) this.#memo.headings.set(s, w = tokenWeight(this.headingLine(s)) + GAP);
    return w;
  }

  headingLine(s: number): string {
    const sec = this.doc.sections[s];
    return this.doc.markdown.slice(sec.start, sec.bodyStart).trimEnd();
  }

  unitCost(u: number): number {
    // Read from the unit table (no unit object): this runs for every candidate tried.
    const units = this.index.units;
    let cost = units.cost(u) + GAP;
    if (units.headStart(u) >= 0 && !(units.isPart(u) && this.chosen.has(u - 1))) {
      cost += this.#headWeight(u);
    }
    // A gap before it costs a marker.
    if (!this.chosen.has(u - 1)) cost += MARKER_COST;
    return cost;
  }

  take(u: number): void {
    const section = this.index.units.section(u);
    this.used += this.unitCost(u) + this.headingCost(section);
    for (let s = section; s >= 0; s = this.doc.sections[s].parent) this.shownHeadings.add(s);
    this.chosen.add(u);
    this.touched.add(section);
  }

  fits(u: number): boolean {
    const section = this.index.units.section(u);
    return this.used + this.unitCost(u) + this.headingCost(section) <= this.limit();
  }

  /** Takes a section whole, or its best units when it does not fit. */
  pickSection(ranked: Ranked, first: boolean): boolean {
    const section = ranked.section;
    const slot = this.index.slot(section);
    const a = this.index.firstUnit[slot];
    const b = this.index.endUnit[slot];
    const before = this.chosen.size;
    if (a >= 0) {
      let cost = this.headingCost(section);
      for (let u = a; u < b; u++) if (!this.chosen.has(u)) cost += this.index.units.cost(u) + GAP;
      if (this.used + cost + 2 <= this.limit()) {
        for (let u = a; u < b; u++) if (!this.chosen.has(u)) this.take(u);
      } else if (first || this.remaining() >= 150) {
        this.pickWithin(a, b, first, ranked.headingCoverage >= 0.5);
      }
    }
    // A heading with little text of its own: bring its subsections while they fit.
    if (section >= 0) {
      const sec = this.doc.sections[section];
      const own = a >= 0 ? this.sumCost(a, b) : 0;
      if (
        ranked.headingCoverage > 0 && own < THIN_SECTION && sec.children.length > 0 &&
        (a < 0 || this.chosen.has(a))
      ) {
        for (let s = section + 1; s < this.doc.sections.length; s++) {
          if (this.doc.sections[s].start >= sec.subtreeEnd) break;
          const ss = this.index.slot(s);
          const fa = this.index.firstUnit[ss];
          if (fa < 0) continue;
          let stop = false;
          for (let u = fa; u < this.index.endUnit[ss]; u++) {
            if (this.chosen.has(u)) continue;
            if (!this.fits(u)) {
              stop = true;
              break;
            }
            this.take(u);
          }
          if (stop) break;
        }
      }
    }
    return this.chosen.size > before;
  }

  /**
   * The best passages of the best sections: every unit of the
   * {@link PASSAGE_SECTIONS} best sections is a candidate, scored by its own
   * BM25 (weighted by how many of the question's terms it holds) plus a
   * share of its section's score; the best are taken in turn, each raising
   * its neighbours' priority so an answer keeps its lead-in.
   */
  pickPassages(ranked: readonly Ranked[]): void {
    let kept = this.#memo.passages;
    if (kept?.ranked !== ranked) this.#memo.passages = kept = this.#passages(ranked);
    const { scores, best } = kept;
    // Copied by forEach: `new Map(scores)` made an [entry] array per candidate.
    const priority = new Map<number, number>();
    scores.forEach((s, u) => priority.set(u, s));
    // Passages already taken per section (runs of adjacent units): a section's further passages
    // count less than another's first (its neighbours of taken units excepted: they are context,
    // not repetition). Runs, not units: a passage of eight steps is one passage, and a second
    // one in the same section pays as a second, not as a ninth.
    const taken = new Map<number, number>();
    const joins = (u: number, v: number) =>
      this.chosen.has(v) && this.index.units.section(v) === this.index.units.section(u);
    for (const u of this.chosen) {
      if (joins(u, u - 1)) continue;
      const s = this.index.units.section(u);
      taken.set(s, (taken.get(s) ?? 0) + 1);
    }
    const nextToChosen = (v: number): boolean => this.chosen.has(v - 1) || this.chosen.has(v + 1);
    // The best candidate is the best of: the neighbours of taken units (at their own
    // priority; a few), and each section's best other unit (its priority halved for each
    // passage taken there, which keeps the section's order: one heap per section, ten at most).
    const heaps = new Map<number, UnitHeap>();
    const offer = (v: number, raw: number) => {
      const section = this.index.units.section(v);
      let heap = heaps.get(section);
      if (!heap) heaps.set(section, heap = new UnitHeap());
      heap.push(raw, v);
    };
    const neighbours = new Set<number>();
    priority.forEach((raw, v) => {
      offer(v, raw);
      if (nextToChosen(v)) neighbours.add(v);
    });
    const taking = (u: number) => {
      this.take(u);
      for (const v of [u - 1, u + 1]) if (priority.has(v)) neighbours.add(v);
    };
    while (priority.size > 0 && this.remaining() > 12) {
      let u = -1;
      let p = -1;
      // forEach, not for-of: this runs for every unit taken, and an iterator's step allocated.
      neighbours.forEach((v) => {
        const q = priority.get(v);
        if (q === undefined) neighbours.delete(v);
        else if (q > p || (q === p && v < u)) {
          u = v;
          p = q;
        }
      });
      heaps.forEach((heap, section) => {
        let aside: [number, number][] | undefined;
        while (heap.size > 0) {
          const raw = heap.topPriority();
          const v = heap.topUnit();
          if (priority.get(v) !== raw) heap.pop(); // taken, passed over or raised since
          else if (neighbours.has(v)) (aside ??= []).push(heap.pop());
          else {
            const q = raw * REPEAT_WEIGHT ** (taken.get(section) ?? 0);
            if (q > p || (q === p && v < u)) {
              u = v;
              p = q;
            }
            break;
          }
        }
        if (aside) { for (const [raw, v] of aside) heap.push(raw, v); }
      });
      priority.delete(u);
      if (p < 0.05 * best) break;
      if (!this.fits(u)) {
        if (this.chosen.size === 0) {
          taking(u);
          this.overBudget = this.used > this.budget;
          if (this.overBudget) break;
        }
        continue;
      }
      // A new run, one run longer, or two runs joined into one.
      const runs = 1 - (joins(u, u - 1) ? 1 : 0) - (joins(u, u + 1) ? 1 : 0);
      taking(u);
      const section = this.index.units.section(u);
      taken.set(section, (taken.get(section) ?? 0) + runs);
      for (const [v, decay] of [[u + 1, 0.55], [u - 1, 0.4]] as const) {
        if (v < 0 || v >= this.index.units.length || this.chosen.has(v) || this.isBadge(v)) {
          continue;
        }
        if (this.index.units.section(v) !== section) continue;
        const raised = Math.max(priority.get(v) ?? 0, scores.get(v) ?? 0, p * decay);
        priority.set(v, raised);
        offer(v, raised);
        neighbours.add(v);
      }
    }
  }

  /** The passage stage's candidates and their scores, and the best score (see {@link pickPassages}). */
  #passages(ranked: readonly Ranked[]): NonNullable<PickMemo["passages"]> {
    const { unitScore, unitTerms, terms } = this.ranking;
    const top = ranked[0].score;
    const scores = new Map<number, number>();
    let best = 0;
    const sections: Ranked[] = [];
    for (const r of ranked.slice(0, PASSAGE_SECTIONS)) {
      if (r.score < MIN_SHARE * top) break;
      sections.push(r);
    }
    const shapeWeight = this.shapeWeights(this.unitsOf(sections));
    for (const r of sections) {
      const slot = this.index.slot(r.section);
      const a = this.index.firstUnit[slot];
      const b = this.index.endUnit[slot];
      if (a < 0) continue;
      const prior = SECTION_PRIOR * r.score / top;
      let lead = 0;
      for (let u = a; u < b; u++) {
        const ut = unitTerms.get(u);
        let s = 0;
        if (ut) {
          s = (unitScore.get(u) ?? 0) * (0.5 + ownTerms(ut, terms) / terms) * shapeWeight(u) +
            prior;
        } else if (r.headingCoverage >= 0.5 && lead < LEAD_UNITS && this.isProse(u)) {
          // A section its heading names: its opening says what it is about.
          s = prior * (1 - 0.1 * lead++);
        }
        if (s > 0) {
          scores.set(u, s);
          best = Math.max(best, s);
        }
      }
    }
    return { ranked, scores, best };
  }

  /**
   * A sentence or more of running text: ten words or more, some of them
   * function words, ending as sentences end (not a link list, badge,
   * label or caption).
   */
  isProse(u: number): boolean {
    return (this.#reads(u) & READS_PROSE) !== 0;
  }

  /** A line of text with no sentence in it: a badge, a link, a version table cell. */
  isBadge(u: number): boolean {
    return (this.#reads(u) & READS_BADGE) !== 0;
  }

  /** How unit `u` reads (prose, badge), kept with the Document. */
  #reads(u: number): number {
    this.#unitShapes ??= unitShapes(this.doc, this.index.units.length);
    return this.#unitShapes.reads(u, this.#judgeReads);
  }

  readonly #judgeReads = (u: number): number => judgeReads(this.doc, this.index, u);

  sumCost(a: number, b: number): number {
    let c = 0;
    for (let u = a; u < b; u++) c += this.index.units.cost(u);
    return c;
  }

  /**
   * The best units of the range [a, b): by score, each chosen unit raising
   * its neighbours' priority so answers keep their context.
   */
  pickWithin(a: number, b: number, forceFirst: boolean, lead = false): void {
    const scores = this.localScores(a, b);
    const priority = new Map<number, number>();
    scores.forEach((s, u) => {
      if (!this.chosen.has(u)) priority.set(u, s);
    });
    let top = 0;
    for (const s of priority.values()) top = Math.max(top, s);
    if (priority.size === 0 || lead) {
      // A section named by the question: its opening says what it is about.
      top ||= 1;
      let found = 0;
      for (let u = a; u < b && found < LEAD_UNITS; u++) {
        if (!this.isProse(u)) continue;
        priority.set(u, Math.max(priority.get(u) ?? 0, top * (1.2 - 0.1 * found)));
        found++;
      }
    }
    let taken = 0;
    const heap = new UnitHeap();
    priority.forEach((p, u) => heap.push(p, u));
    while (priority.size > 0 && this.remaining() > 12) {
      let best = -1;
      let bestP = -1;
      while (heap.size > 0) {
        const [p, u] = heap.pop();
        // An entry taken, passed over or raised since is stale.
        if (priority.get(u) === p) {
          [best, bestP] = [u, p];
          break;
        }
      }
      priority.delete(best);
      if (bestP < 0.05 * top) break;
      if (!this.fits(best)) {
        if (taken === 0 && forceFirst && this.ceiling !== Infinity) {
          const ceiling = this.ceiling;
          this.ceiling = Infinity;
          const fitsBudget = this.fits(best);
          this.ceiling = ceiling;
          if (fitsBudget) {
            this.take(best);
            taken++;
            continue;
          }
        }
        if (taken === 0 && forceFirst) {
          this.take(best);
          this.overBudget = this.used > this.budget;
          taken++;
          if (this.overBudget) break;
        }
        continue;
      }
      this.take(best);
      taken++;
      for (const [v, decay] of [[best + 1, 0.55], [best - 1, 0.4]] as const) {
        if (v < a || v >= b || this.chosen.has(v) || this.isBadge(v)) continue;
        const p = Math.max(priority.get(v) ?? 0, scores.get(v) ?? 0, bestP * decay);
        priority.set(v, p);
        heap.push(p, v);
      }
    }
  }

  render(
    confidence: ExtractConfidence,
    originalTokens: number,
    unitMode: boolean,
  ): QueryExtraction {
    const md = this.doc.markdown;
    const units = this.index.units;
    const order = [...this.chosen].sort((x, y) => x - y);
    const parts: string[] = [];
    const printed = new Set<number>();
    let prev = -2;
    let regions = 0;
    for (const u of order) {
      const unit = units.at(u);
      const contiguous = u === prev + 1;
      if (!contiguous) {
        if (prev !== -2 || u > 0) parts.push(ELISION);
        regions++;
      }
      // Headings from the root down, those not printed yet.
      const path: number[] = [];
      for (let s = unit.section; s >= 0 && !printed.has(s); s = this.doc.sections[s].parent) {
        path.unshift(s);
      }
      for (const s of path) {
        parts.push(this.headingLine(s));
        printed.add(s);
      }
      if (contiguous && path.length === 0 && unit.part) {
        // The next piece of the same block: joined as the page joins it.
        parts[parts.length - 1] += md.slice(units.at(prev).end, unit.end);
      } else if (unit.head) {
        parts.push(md.slice(unit.head[0], unit.head[1]) + "\n" + md.slice(unit.start, unit.end));
      } else parts.push(md.slice(unit.start, unit.end));
      prev = u;
    }
    if (order.length > 0 && order[order.length - 1] < units.length - 1) parts.push(ELISION);
    const text = parts.join("\n\n");

    return {
      text,
      extracted: true,
      confidence,
      sectionsSelected: unitMode ? regions : this.touched.size,
      originalTokens,
      returnedTokens: estimateTokens(text),
      overBudget: this.overBudget,
    };
  }
}
