/**
 * Views: pure functions of a Document and a request. Each tool (and the
 * CLI) turns their results into an envelope; nothing here fetches or
 * formats frontmatter.
 *
 * @module
 */
import type { Document } from "./document.ts";
import { slugify, stripNumber } from "./sections.ts";
import { blocks, sliceLabel } from "./slices.ts";
import { windowAround } from "./window.ts";
import { queryMatches } from "../search/matches.ts";
import { countPiecesSync, countWithBreak } from "../tokens/pieces.ts";
import { typedArrayBytes } from "../../runtime/heap.ts";
import {
  countTokensSync,
  estimateTokens,
  prefixWithinSync,
  tokenizerLoaded,
  tokenWeight,
  truncateToTokens,
  weighsOver,
} from "../tokens/count.ts";

/** Sections per outline window. */
export const OUTLINE_WINDOW = 100;

/** One window of the outline. */
export interface OutlineView {
  /** Sections in the document. */
  total: number;
  /** The window shown (0-based). */
  window: number;
  /** Number of windows. */
  windows: number;
  /** The window asked for, when it had to be clamped. */
  clampedFrom?: number;
  /** Index of the first section shown. */
  first: number;
  /** Outline lines (page-derived: they go in the fence). */
  lines: string[];
}

/** The label of a section in outlines: its title and address. */
export function sectionLine(doc: Document, index: number, minLevel: number): string {
  const s = doc.sections[index];
  const address = s.id ?? s.slug;
  return `${"  ".repeat(Math.max(0, s.level - minLevel))}- ${s.title} (#${address})${
    s.headerOnly ? " [header only]" : ""
  }`;
}

/**
 * A window of the outline. Negative windows count from the end (-1 is the
 * last); out-of-range windows are clamped and reported.
 */
export function outlineView(doc: Document, requested = 0, size = OUTLINE_WINDOW): OutlineView {
  const total = doc.sections.length;
  const windows = Math.max(1, Math.ceil(total / size));
  let window = requested < 0 ? windows + requested : requested;
  let clampedFrom: number | undefined;
  if (window < 0 || window >= windows) {
    clampedFrom = requested;
    window = window < 0 ? 0 : windows - 1;
  }
  const first = window * size;
  const shown = doc.sections.slice(first, first + size);
  const minLevel = doc.sections.reduce((m, s) => Math.min(m, s.level), 6);
  const lines = shown.map((s) => sectionLine(doc, s.index, minLevel));
  if (first > 0) lines.unshift(`(… ${first} earlier sections)`);
  const after = total - (first + shown.length);
  if (after > 0) lines.push(`(… ${after} more sections)`);
  return { total, window, windows, clampedFrom, first, lines };
}

/** How a requested section was found. */
export type MatchKind =
  | "name"
  | "number-stripped name"
  | "heading path"
  | "slug"
  | "anchor"
  | "fuzzy";

/** The outcome of looking up one requested section. */
export interface SectionLookup {
  /** What was asked for. */
  request: string;
  /** The section found. */
  index?: number;
  /** How. */
  via?: MatchKind;
  /** Closest sections when none matched. */
  suggestions: number[];
  /** Set when the name was not compared with the headings (past the request's share of that work). */
  unsearched?: true;
  /**
   * Every section the name could be, in document order, when it names
   * several (duplicate headings): `index` is the first of them.
   */
  ambiguous?: number[];
}

/** Separators of a heading path: `FAQ > Options`, `FAQ / Options`, `FAQ › Options`. */
const PATH_SEPARATOR = /\s+[>›/]\s+/;
/** A name qualified by its parent heading, as outlines of duplicates write it: `Options (FAQ)`. */
const QUALIFIED = /^(.+?)\s*\(([^()]+)\)$/;

/**
 * The sections among `candidates` whose ancestors hold `parents` in order
 * (each a heading title, compared case-insensitively and without section
 * numbers); the nearest ancestors are matched first.
 */
function underParents(doc: Document, candidates: number[], parents: string[]): number[] {
  const form = (t: string) => stripNumber(t).toLowerCase();
  const wanted = parents.map(form);
  return candidates.filter((i) => {
    let k = wanted.length - 1;
    for (let p = doc.sections[i].parent; p >= 0 && k >= 0; p = doc.sections[p].parent) {
      if (form(doc.sections[p].title) === wanted[k]) k--;
    }
    return k < 0;
  });
}

const WS = /[\s\u00a0\u2000-\u200b\u202f\u205f\u3000\ufeff]+/g;
const normalise = (s: string) => s.replace(WS, " ").trim();

/** Most names of one request that get closest-heading suggestions. */
export const MAX_SUGGESTED_NAMES = 10;

/**
 * Most headings one request compares for suggestions, over all its names:
 * the pass runs on the thread that serves every other call, so 50 names on
 * a page of 50,000 headings held the server for seconds. Ten names get
 * suggestions on a page of 10,000 headings, two on 50,000, none over 100,000.
 */
export const SUGGEST_WORK = 100_000;

/** Longest part of a requested name compared for suggestions (no heading is longer). */
const SUGGEST_CHARS = 200;

function counts(items: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of items) out.set(t, (out.get(t) ?? 0) + 1);
  return out;
}

/** A multiset as its distinct items and their counts, and its size. */
interface Bag {
  items: string[];
  counts: number[];
  size: number;
}

function bagOf(list: readonly string[]): Bag {
  const map = counts(list);
  return { items: [...map.keys()], counts: [...map.values()], size: list.length };
}

/**
 * Dice overlap of a multiset counted once (the request) and a short one (a
 * heading, counted once per Document): each item of the heading is looked
 * up once, nothing is made per heading.
 */
function dice(x: Map<string, number>, xLength: number, y: Bag): number {
  if (xLength === 0 || y.size === 0) return 0;
  let common = 0;
  for (let i = 0; i < y.items.length; i++) {
    const n = x.get(y.items[i]);
    if (n !== undefined) common += Math.min(n, y.counts[i]);
  }
  return (2 * common) / (xLength + y.size);
}

function bigrams(s: string): string[] {
  const chars = Array.from(s.replace(/-/g, " "));
  const out: string[] = [];
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1]);
  return out;
}

/** A slug with its words and bigrams, split and counted once. */
interface SlugParts {
  slug: string;
  words: Bag;
  bigrams: Bag;
}

function slugParts(slug: string): SlugParts {
  return { slug, words: bagOf(slug.split("-").filter(Boolean)), bigrams: bagOf(bigrams(slug)) };
}

/**
 * How close headings' slugs are to a requested slug: word overlap with a
 * prefix bonus, or character bigram overlap. The request's words and bigrams
 * are counted once, so scoring every heading costs the heading's length,
 * whatever the length of the request.
 */
class Closeness {
  readonly #a: string;
  readonly #words: Map<string, number>;
  readonly #wordCount: number;
  readonly #bigrams: Map<string, number>;
  readonly #bigramCount: number;

  constructor(slug: string) {
    this.#a = slug.slice(0, SUGGEST_CHARS);
    const words = this.#a.split("-").filter(Boolean);
    const grams = bigrams(this.#a);
    this.#words = counts(words);
    this.#wordCount = words.length;
    this.#bigrams = counts(grams);
    this.#bigramCount = grams.length;
  }

  /** Similarity to a heading's slug, from 0 (nothing shared) up. */
  to(b: SlugParts): number {
    const a = this.#a;
    let words = dice(this.#words, this.#wordCount, b.words);
    if (b.slug.startsWith(a) || a.startsWith(b.slug)) words += 0.3;
    else if (b.slug.includes(a)) words += 0.15;
    return Math.max(words, dice(this.#bigrams, this.#bigramCount, b.bigrams));
  }
}

/**
 * Finds requested sections by, in order: exact heading text, text without
 * its section number, slug or heading id, the id of any element inside a
 * section (URL fragments), and a fuzzy slug match.
 */
/** The forms of each heading a lookup compares, computed once per Document. */
interface HeadingKeys {
  lower: string;
  stripped: string;
  strippedSlug: string;
  bare: string;
}

/**
 * Where each form of the headings occurs, so that looking a name up costs a
 * few map reads, not passes over every heading (for each name of a request).
 */
interface HeadingIndex {
  keys: HeadingKeys[];
  /** Title as written → first section. */
  title: Map<string, number>;
  /** Lowercased title → sections, in order. */
  lower: Map<string, number[]>;
  /** Number-stripped lowercased title → sections, in order. */
  stripped: Map<string, number[]>;
  /** Slug, and number-stripped slug → first section. */
  slug: Map<string, number>;
  strippedSlug: Map<string, number>;
  /** Bare title (no signature) → first section. */
  bare: Map<string, number>;
  /** Sections by number-stripped title, sorted (for prefixes). */
  sorted: number[];
  /**
   * The number-stripped slug and the slug of each heading as
   * {@link Closeness} compares them (made on the first suggestion).
   */
  parts?: { title: SlugParts; slug: SlugParts }[];
}

const headingKeys = new WeakMap<Document, HeadingIndex>();

/** Adds `i` under `key` (a list, in order). */
function addTo(map: Map<string, number[]>, key: string, i: number): void {
  const list = map.get(key);
  if (list) list.push(i);
  else map.set(key, [i]);
}

// A title with a signature or note after it: "Array.prototype.flat ( [ depth ] )".
const bareTitle = (t: string) => stripNumber(t).replace(/\s*[([].*$/, "").trim().toLowerCase();

function indexOf(doc: Document): HeadingIndex {
  let index = headingKeys.get(doc);
  if (!index) {
    const keys = doc.sections.map((s) => {
      const stripped = stripNumber(s.title);
      const strippedSlug = slugify(stripped);
      return {
        lower: s.title.toLowerCase(),
        stripped: stripped.toLowerCase(),
        strippedSlug,
        bare: bareTitle(s.title),
      };
    });
    index = {
      keys,
      title: new Map(),
      lower: new Map(),
      stripped: new Map(),
      slug: new Map(),
      strippedSlug: new Map(),
      bare: new Map(),
      sorted: keys.map((_, i) => i).sort((a, b) =>
        keys[a].stripped < keys[b].stripped ? -1 : keys[a].stripped > keys[b].stripped ? 1 : a - b
      ),
    };
    const firstOf = (map: Map<string, number>, key: string, i: number) => {
      if (!map.has(key)) map.set(key, i);
    };
    for (const [i, k] of keys.entries()) {
      firstOf(index.title, doc.sections[i].title, i);
      addTo(index.lower, k.lower, i);
      addTo(index.stripped, k.stripped, i);
      firstOf(index.slug, doc.sections[i].slug, i);
      firstOf(index.strippedSlug, k.strippedSlug, i);
      firstOf(index.bare, k.bare, i);
    }
    headingKeys.set(doc, index);
  }
  return index;
}

/** The sections whose number-stripped title starts with `prefix`, in document order. */
function withPrefix(index: HeadingIndex, prefix: string): number[] {
  const { keys, sorted } = index;
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (keys[sorted[mid]].stripped < prefix) lo = mid + 1;
    else hi = mid;
  }
  const out: number[] = [];
  for (let j = lo; j < sorted.length && keys[sorted[j]].stripped.startsWith(prefix); j++) {
    out.push(sorted[j]);
  }
  return out.sort((a, b) => a - b);
}

export function findSections(doc: Document, requests: readonly string[]): SectionLookup[] {
  const index = indexOf(doc);
  const { keys } = index;
  let suggested = 0;
  let work = 0;
  return requests.map((raw) => {
    const request = normalise(raw.replace(/^#/, ""));
    const result: SectionLookup = { request: raw, suggestions: [] };
    if (request === "") return result;
    const lower = request.toLowerCase();
    const named = (index: number, via: MatchKind, among: number[]): SectionLookup =>
      among.length > 1 ? { ...result, index, via, ambiguous: among } : { ...result, index, via };
    const sameLower = index.lower.get(lower) ?? [];
    const byName = index.title.get(request) ?? sameLower[0];
    if (byName !== undefined) {
      // The exact spelling wins over other cases; an equal title elsewhere makes it ambiguous.
      return named(byName, "name", sameLower);
    }
    const stripped = stripNumber(request).toLowerCase();
    const byNumber = index.stripped.get(stripped) ?? [];
    if (byNumber.length > 0) return named(byNumber[0], "number-stripped name", byNumber);
    // A heading path (FAQ > Options) or a parent-qualified name (Options (FAQ)).
    const path = request.split(PATH_SEPARATOR);
    const qualified = path.length === 1 ? QUALIFIED.exec(request) : null;
    const [leaf, parents] = path.length > 1
      ? [path[path.length - 1], path.slice(0, -1)]
      : qualified
      ? [qualified[1], [qualified[2]]]
      : [undefined, []];
    if (leaf !== undefined) {
      const leafForm = stripNumber(leaf).toLowerCase();
      const under = underParents(doc, index.stripped.get(leafForm) ?? [], parents);
      if (under.length > 0) return named(under[0], "heading path", under);
    }
    let decoded = request;
    try {
      decoded = decodeURIComponent(request);
    } catch { /* keep as is */ }
    const bySlug = doc.sectionBySlug(decoded) ?? doc.sectionBySlug(decoded.toLowerCase());
    if (bySlug !== undefined) return { ...result, index: bySlug, via: "slug" };
    const byAnchor = doc.sectionOfAnchor(decoded);
    if (byAnchor !== undefined) return { ...result, index: byAnchor, via: "anchor" };
    const wanted = slugify(decoded);
    const wantedStripped = slugify(stripNumber(decoded));
    if (wanted) {
      const bySlug = index.slug.get(wanted) ?? Infinity;
      const byStripped = index.strippedSlug.get(wantedStripped) ?? Infinity;
      const fuzzy = Math.min(bySlug, byStripped);
      if (fuzzy !== Infinity) return { ...result, index: fuzzy, via: "fuzzy" };
    }
    const wantedBare = bareTitle(decoded);
    if (wantedBare) {
      const signature = index.bare.get(wantedBare);
      if (signature !== undefined) return { ...result, index: signature, via: "fuzzy" };
      const prefix = withPrefix(index, wantedBare).filter((i) =>
        /^[\s(:,.-]/.test(keys[i].stripped.slice(wantedBare.length))
      );
      if (prefix.length === 1) return { ...result, index: prefix[0], via: "fuzzy" };
    }
    // No match: the closest headings, for recovery (for the first few names only, within
    // SUGGEST_WORK comparisons: each costs a pass over every heading).
    if (suggested++ >= MAX_SUGGESTED_NAMES || work + keys.length > SUGGEST_WORK) {
      return { ...result, unsearched: true };
    }
    work += keys.length;
    const byTitle = new Closeness(wantedStripped || wanted);
    const toSlug = new Closeness(wanted);
    const parts = index.parts ??= keys.map((k, i) => ({
      title: slugParts(k.strippedSlug),
      slug: slugParts(doc.sections[i].slug),
    }));
    const scored: { index: number; score: number }[] = [];
    for (let i = 0; i < keys.length; i++) {
      const score = Math.max(byTitle.to(parts[i].title), toSlug.to(parts[i].slug));
      if (score > 0.3) scored.push({ index: i, score });
    }
    scored.sort((a, b) => b.score - a.score || a.index - b.index);
    result.suggestions = scored.slice(0, 5).map((x) => x.index);
    return result;
  });
}

/** Text of the chosen sections, and what the tool should say about them. */
export interface SectionsView {
  /** The sections' Markdown, joined by blank lines. */
  text: string;
  /** Sections returned, in order. */
  returned: number[];
  /** Requested sections that were already inside a broader one returned. */
  absorbed: { index: number; within: number }[];
  /** Returned sections that have children not included (without auto_expand). */
  withChildren: number[];
  /** Returned sections with no text of their own. */
  dividers: number[];
}

/** Builds the text of the found sections (subtrees with `autoExpand`). */
export function sectionsView(
  doc: Document,
  indices: readonly number[],
  autoExpand: boolean,
): SectionsView {
  const unique = [...new Set(indices)].sort((a, b) => a - b);
  const view: SectionsView = {
    text: "",
    returned: [],
    absorbed: [],
    withChildren: [],
    dividers: [],
  };
  const parts: string[] = [];
  for (const i of unique) {
    const s = doc.sections[i];
    if (autoExpand) {
      const within = view.returned.find((r) =>
        s.start >= doc.sections[r].start && s.start < doc.sections[r].subtreeEnd
      );
      if (within !== undefined) {
        view.absorbed.push({ index: i, within });
        continue;
      }
    }
    view.returned.push(i);
    parts.push(doc.sectionText(i, autoExpand));
    if (!autoExpand && s.children.length > 0) view.withChildren.push(i);
    if (s.headerOnly && !(autoExpand && s.children.length > 0)) view.dividers.push(i);
  }
  view.text = parts.join("\n\n");
  return view;
}

/** A text cut to a token budget at a Markdown boundary. */
export interface Cut {
  /** The kept text. */
  text: string;
  /** Whether anything was cut. */
  truncated: boolean;
  /** Estimated tokens of the whole text. */
  totalTokens: number;
  /** Tokens kept (real when the cut was exact, else estimated). */
  keptTokens: number;
}

/** Share of the budget a cut on the estimate fills before it cuts inside a block. */
const FILL = 0.8;
/**
 * Share of the budget an exact cut fills: whole blocks while they fit, and
 * when they stop short of this, the next block cut inside, at a boundary
 * that keeps the text at this share or more.
 */
export const EXACT_FILL = 0.9;

/**
 * Keeps whole blocks (paragraphs, lists, code blocks, tables) while they fit
 * `maxTokens`; when the next block would leave too much of the budget
 * unused, it is cut inside (at a line, sentence or word boundary, a code
 * block closed again). `totalTokens` is the estimate of the whole text when
 * the caller already has it (a Document's {@link Document.tokens}), so a cut
 * of a long cached page does not count the page again.
 *
 * With `exact` (the o200k tables loaded), each block is measured in real
 * tokens as it is read, so the cut fills the budget whatever the script:
 * whole blocks down to {@link EXACT_FILL} of it, else a cut inside the next
 * block that keeps at least that share. Only what the budget reaches is
 * measured. Without, blocks are priced by the estimate and cut inside below
 * four fifths.
 */
export function cutToBudget(
  markdown: string,
  maxTokens: number,
  totalTokens: number = estimateTokens(markdown),
  exact = false,
): Cut {
  const budget = Math.max(0, Math.floor(maxTokens));
  // The estimate can be a fifth off either way: a text it puts near the budget is counted.
  if (totalTokens <= maxTokens && (!exact || totalTokens < maxTokens * 0.5)) {
    return { text: markdown, truncated: false, totalTokens, keptTokens: totalTokens };
  }
  if (exact && totalTokens <= maxTokens * 2) {
    const real = countPiecesSync(markdown);
    if (real <= budget) return { text: markdown, truncated: false, totalTokens, keptTokens: real };
  }
  // A block's real cost is counted with the end of the text before it, since o200k can join
  // the two (a table's last `|` and the blank line after it are one token).
  // A block the estimate puts at twice the room left or more does not fit, and is not counted
  // (encoding a block of megabytes would cost seconds).
  // Whether a block is over is read from as much of it as that takes (weighsOver): a page of one
  // 4 MB paragraph was weighed whole, twice, to keep its first 5,000 tokens.
  const measure = exact
    ? (from: number, to: number) => {
      if (weighsOver(markdown, from, to, 2 * (budget - used) + 64)) return Infinity;
      const piece = markdown.slice(from, to);
      const context = Math.max(markdown.lastIndexOf("\n", from - 1) + 1, from - 200, 0);
      const before = markdown.slice(context, from);
      return countPiecesSync(before + piece) - countPiecesSync(before);
    }
    : (from: number, to: number) =>
      // A block surely over what is left is not weighed to its end.
      weighsOver(markdown, from, to, maxTokens - used + 1)
        ? Infinity
        : tokenWeight(markdown.slice(from, to));
  let used = 0;
  let end = 0;
  // Blocks are split only as far as the budget reaches; `over` ends the first that does not fit.
  let over = -1;
  blocks(markdown, (b) => {
    const cost = measure(end, b.end);
    if (used + cost > (exact ? budget : maxTokens)) {
      over = b.end;
      return true;
    }
    used += cost;
    end = b.end;
    return false;
  });
  if (over < 0) {
    // Every block fits (the estimate of the whole was high).
    return { text: markdown, truncated: false, totalTokens, keptTokens: used };
  }
  let text = markdown.slice(0, end).trimEnd();
  if (!exact) {
    // A block too large for what is left is cut inside (at a line break when
    // it can be) rather than leaving most of the budget unused.
    if (used < maxTokens * FILL) {
      // The cut falls inside that block, so only it is measured (not the rest of a long page).
      text = markdown.slice(0, end) +
        truncateToTokens(markdown.slice(end, over), Math.floor(maxTokens - used));
    }
    return { text: text.trimEnd(), truncated: true, totalTokens, keptTokens: estimateTokens(text) };
  }
  // The whole blocks, counted as one text (what the joins cost is exact then).
  const whole = countPiecesSync(text);
  if (whole < budget * EXACT_FILL) {
    const inside = cutInside(
      markdown.slice(end, over),
      budget - whole,
      budget * EXACT_FILL - whole,
    );
    if (inside.text.trim() !== "") text = markdown.slice(0, end) + inside.text;
  }
  text = text.trimEnd();
  let kept = countPiecesSync(text);
  if (kept > budget) {
    text = prefixWithinSync(text, budget).text;
    kept = countPiecesSync(text);
  }
  return { text, truncated: true, totalTokens, keptTokens: kept };
}

const FENCE_OPEN = /^\n*( {0,3}(?:> ?)*)(`{3,}|~{3,})/;

/**
 * A block cut to `room` real tokens at a boundary keeping at least `keep`;
 * a fenced code block cut inside is closed again (the closing line counts
 * in the room), so what follows is not read as code; a table keeps its
 * header with at least one row, or is left out.
 */
function cutInside(block: string, room: number, keep: number): { text: string } {
  const fence = FENCE_OPEN.exec(block);
  if (!fence) {
    const text = prefixWithinSync(block, room, keep).text;
    // A table cut before its first row is left out (a header alone says nothing).
    const lines = text.trim().split("\n");
    if (lines[0]?.trimStart().startsWith("|") && lines.length < 3) return { text: "" };
    return { text };
  }
  const close = `\n${fence[1]}${fence[2]}`;
  const closeCost = countTokensSync(close);
  const f = prefixWithinSync(block, room - closeCost, keep - closeCost);
  // Nothing of the code but its opening line: leave the block out.
  if (f.text.indexOf("\n", fence[0].length) < 0) return { text: "" };
  return { text: f.text + close };
}

/** What {@link SliceCounts} keeps of a slice. */
export type SliceCountKind = "block" | "followed" | "text" | "estimate";
const KIND_SLOT: Record<SliceCountKind, number> = { block: 0, followed: 1, text: 2, estimate: 3 };
const KINDS = 4;

/** One slice in a view. */
export interface SliceEntry {
  /** Slice index. */
  index: number;
  /** Its label (page-derived). */
  label: string;
  /** Its text. */
  text: string;
}

/** Least room (tokens) for which a slice that does not fit is shown in part, after others. */
const MIN_WINDOW = 80;

/** What {@link renderSlices} shows. */
export interface RenderedSlices {
  /** The slices' blocks, joined by blank lines. */
  text: string;
  /** Slices shown, whole or in part, in order. */
  shown: number[];
  /** Slices shown in part: a window around their match, its cut edges marked. */
  windowed: number[];
  /** With `exact`: the real tokens of `text`. */
  tokens?: number;
}

/**
 * The real token counts of a Document's slices as {@link renderSlices}
 * shows them, kept with the Document (one of its memos): a slice's block
 * (`--- slice N (label) ---` and its text), the block followed by a blank
 * line, and its text alone; and the estimate of its text (what a search
 * cut in a window says the slices it showed hold whole). A slice a search
 * shows again, in this search's window or the next search's answer, is not
 * counted again, however many other pages' lines have gone through the
 * tokenizer since.
 */
export class SliceCounts {
  readonly #counts: Int32Array<ArrayBuffer>;

  /** Room for `slices` slices, none counted yet. */
  constructor(slices: number) {
    this.#counts = new Int32Array(KINDS * slices).fill(-1);
  }

  /** `kind`'s count of slice `index`: kept, or `count()` kept now. */
  get(index: number, kind: SliceCountKind, count: () => number): number {
    const at = KINDS * index + KIND_SLOT[kind];
    if (at >= this.#counts.length) return count();
    let n = this.#counts[at];
    if (n < 0) this.#counts[at] = n = count();
    return n;
  }

  /** Bytes held. */
  approxBytes(): number {
    return typedArrayBytes(this.#counts.byteLength);
  }

  /** The array, given back when its Document is released. */
  arrays(): Iterable<ArrayBufferView> {
    return [this.#counts];
  }
}

const SLICE_COUNTS = Symbol("slice counts");

/** The kept slice counts of `doc` (see {@link SliceCounts}). */
export function sliceCounts(doc: Document): SliceCounts {
  return doc.memo(SLICE_COUNTS, () => new SliceCounts(doc.slices.length));
}

/**
 * The count of a slice's text from the count of its block (`head + body`):
 * the head ends with a line break after `---`, which ends a pre-token of
 * o200k's (punctuation takes the line breaks after it, and a `/`), and the
 * body is trimmed, so unless it starts with `/` the two are counted apart
 * and the block's count is the head's plus the body's
 * (`tests/content/document/slice_counts_test.ts` checks it on every slice
 * of the fixture pages).
 */
export function textFromBlock(
  head: string,
  body: string,
  blockTokens: number,
  measure: (text: string) => number,
): number {
  return body === "" || body.startsWith("/") ? measure(body) : blockTokens - measure(head);
}

/** The line that opens a slice's block in {@link renderSlices}. */
export function sliceHead(e: SliceEntry): string {
  return `--- slice ${e.index} (${e.label}) ---\n`;
}

/**
 * Longest stretch of counting {@link countSlicesLater} does before it
 * yields, in ms: what a request that arrives meanwhile may wait. (A timer
 * set from a timer waits a few ms between steps, so the count runs at about
 * half of the thread while nothing else does.)
 */
export const BACKGROUND_STEP_MS = 2;

/** Slice counts being filled in the background (each filled once). */
const filling = new WeakSet<SliceCounts>();

/**
 * Counts into `counts` what {@link renderSlices} counts of each slice of
 * `doc` from slice `from` on (its block, and the block followed by a blank
 * line; and the estimate of its text), until `deadline` (a `performance.now()` time) has passed; returns
 * the next slice to count. The same figures as renderSlices' (which counts
 * from the pieces' kept counts, equal to `countTokensSync`'s), without
 * filling the pieces' cache with every line of the page. Needs the
 * tokenizer.
 */
export function countSlices(
  doc: Document,
  counts: SliceCounts,
  from = 0,
  deadline = Infinity,
): number {
  let next = from;
  while (next < doc.slices.length && performance.now() < deadline) {
    const [e] = sliceEntries(doc, [next++]);
    const block = sliceHead(e) + e.text.trim();
    const tokens = counts.get(e.index, "block", () => countTokensSync(block));
    counts.get(e.index, "followed", () => countWithBreak(block, tokens, countTokensSync));
    counts.get(e.index, "estimate", () => estimateTokens(e.text));
  }
  return next;
}

/**
 * Counts every slice of `doc` into its {@link SliceCounts} in the
 * background ({@link countSlices}, in steps of {@link BACKGROUND_STEP_MS}
 * between other work), so that a later search shows slices already counted
 * instead of counting some five thousand tokens of new ones (WHATWG HTML:
 * 1.5 million tokens in 3,882 slices, about 0.5 s of the tokenizer, spread
 * over the seconds the agent reads its first answer). Called after a search
 * or a slices view, so a page nobody searches is never counted; once per
 * Document's counts, stopped when the Document gives back its memory. Does
 * nothing before the tokenizer is loaded or the counts made; never keeps
 * the process alive.
 */
export function countSlicesLater(doc: Document): void {
  if (!tokenizerLoaded() || !doc.hasMemo(SLICE_COUNTS)) return;
  const counts = sliceCounts(doc);
  if (filling.has(counts)) return;
  filling.add(counts);
  let next = 0;
  const step = () => {
    // A released Document dropped these counts (a later search makes and fills new ones).
    if (doc.released || !doc.hasMemo(SLICE_COUNTS) || sliceCounts(doc) !== counts) return;
    next = countSlices(doc, counts, next, performance.now() + BACKGROUND_STEP_MS);
    if (next < doc.slices.length) Deno.unrefTimer(setTimeout(step, 0));
  };
  Deno.unrefTimer(setTimeout(step, 0));
}

/**
 * Formats slices as `--- slice N (label) ---` blocks within a budget: whole
 * while they fit; the first that does not (the first slice always, a later
 * one when at least {@link MIN_WINDOW} tokens are left) is shown in part,
 * a window centred on where the search `query` matches it (from its top
 * without a query), each cut edge marked `[…]`, so a hit is never cut out
 * of its own slice. With `exact` (the o200k tables loaded) costs are real
 * tokens, else estimates.
 */
export function renderSlices(
  entries: readonly SliceEntry[],
  maxTokens: number,
  options: { query?: string; exact?: boolean; counts?: SliceCounts } = {},
): RenderedSlices {
  const exact = options.exact === true;
  // Exact costs from the counts of the slices' lines, which come back in other searches.
  const measure = exact ? countPiecesSync : estimateTokens;
  const counts = exact ? options.counts : undefined;
  const out: string[] = [];
  const shown: number[] = [];
  const windowed: number[] = [];
  // With `exact`: each block's real count, and its slice when the block is the slice whole.
  const parts: { tokens?: number; index?: number }[] = [];
  let used = 0;
  for (const e of entries) {
    const head = sliceHead(e);
    const body = e.text.trim();
    const gap = out.length > 0 ? measure("\n\n") : 0;
    const block = head + body;
    const blockTokens = counts
      ? counts.get(e.index, "block", () => measure(block))
      : measure(block);
    const cost = blockTokens + gap;
    if (used + cost <= maxTokens) {
      out.push(block);
      shown.push(e.index);
      parts.push({ tokens: blockTokens, index: e.index });
      used += cost;
      continue;
    }
    const room = maxTokens - used - gap - measure(head) - 1;
    if (out.length > 0 && room < MIN_WINDOW) break;
    const matches = options.query ? queryMatches(options.query, body) : [];
    // The slice's text whole is measured by the window first: kept with its other counts, and
    // made from the block's, which the background count keeps (see textFromBlock).
    const measured = counts
      ? (t: string) =>
        t === body
          ? counts.get(e.index, "text", () => textFromBlock(head, body, blockTokens, measure))
          : measure(t)
      : measure;
    let w = windowAround(body, matches, room, measured);
    let label = head;
    if (!w) {
      // A heading path too long for the budget: the slice's number alone.
      label = `--- slice ${e.index} ---\n`;
      w = windowAround(body, matches, maxTokens - used - gap - measure(label) - 1, measured);
    }
    if (w) {
      out.push(label + w.text);
      windowed.push(e.index);
    } else if (out.length === 0) {
      out.push(truncateToTokens(head + body, maxTokens));
      windowed.push(e.index);
    } else break;
    parts.push({});
    shown.push(e.index);
    break;
  }
  const text = out.join("\n\n");
  if (!exact) return { text, shown, windowed };
  // The joined text's count: every block but the last with the blank line after it (a block
  // starts with `---`, so each is a piece of its own; see tokens/pieces.ts).
  let tokens = 0;
  parts.forEach((p, j) => {
    const own = p.tokens ?? measure(out[j]);
    if (j === parts.length - 1) tokens += own;
    else if (counts && p.index !== undefined) {
      tokens += counts.get(p.index, "followed", () => countWithBreak(out[j], own));
    } else tokens += countWithBreak(out[j], own);
  });
  return { text, shown, windowed, tokens };
}

/** Slice entries for indexes. */
export function sliceEntries(doc: Document, indices: readonly number[]): SliceEntry[] {
  return indices.map((i) => ({
    index: i,
    label: sliceLabel(doc.slices[i]),
    text: doc.sliceText(i),
  }));
}
