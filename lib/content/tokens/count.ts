/**
 * Token counts. Budgets in this product are promises to an LLM client, so
 * there are two figures:
 *
 * - an estimate ({@link estimateTokens}, {@link tokenWeight}), cheap enough
 *   to run on every candidate piece while a view chooses what to include.
 *   It reads the text once and prices each run by its script (Latin words,
 *   Cyrillic, Greek, Arabic, Hebrew, Han, kana, Hangul, digits, punctuation,
 *   indentation), with weights fitted against a real BPE vocabulary (o200k)
 *   by `bench/token_calibration.ts`; on the benchmark pages its median is
 *   within a few percent of the real count for every script;
 * - the exact count ({@link countTokens}, {@link fitToBudget}): o200k, the
 *   public vocabulary closest to what clients bill (Claude's is not public),
 *   with gpt-tokenizer's ranks in tables of our own (`o200k.ts`: about 10 MB
 *   and some tens of milliseconds to load). They load on the first exact
 *   count, never at start-up, and the exact count runs only on what is about
 *   to be returned.
 *
 * @module
 */
import { collectBetweenStages } from "../../runtime/memory.ts";
import { loadO200k, type O200k, PRE_TOKEN } from "./o200k.ts";

// Feature slots counted by one pass over the text. A run is a maximal
// stretch of one class; each slot has a weight in WEIGHTS.
const F_LATIN_RUNS = 0; // words in Latin script (a case change starts a new one)
const F_LATIN_CHARS = 1; // ASCII letters
const F_LATIN_EXT = 2; // accented Latin letters and combining marks
const F_DIGIT_RUNS = 3;
const F_DIGITS = 4;
const F_PUNCT_RUNS = 5; // ASCII punctuation and symbols
const F_PUNCT = 6;
const F_NEWLINE_RUNS = 7;
const F_SPACE_RUNS = 8; // two or more spaces or tabs (indentation, alignment)
const F_CYR_RUNS = 9;
const F_CYR = 10;
const F_GREEK_RUNS = 11;
const F_GREEK = 12;
const F_ARABIC_RUNS = 13; // Arabic and Hebrew
const F_ARABIC = 14;
const F_HAN = 15;
const F_KANA = 16;
const F_HANGUL = 17;
const F_OTHER_RUNS = 18; // other letters: Indic, Thai, Armenian, Georgian, ...
const F_OTHER = 19;
const F_SYMBOL = 20; // other BMP punctuation and symbols (“ ” — … •, box drawing)
const F_CJK_PUNCT = 21; // CJK and full-width punctuation
const F_ASTRAL = 22; // emoji and other symbols outside the BMP
/** Number of feature slots. */
export const FEATURE_COUNT = 23;

/** Names of the feature slots, for the calibration report. */
export const FEATURE_NAMES: readonly string[] = [
  "latin_runs",
  "latin_chars",
  "latin_ext",
  "digit_runs",
  "digits",
  "punct_runs",
  "punct",
  "newline_runs",
  "space_runs",
  "cyrillic_runs",
  "cyrillic",
  "greek_runs",
  "greek",
  "arabic_runs",
  "arabic",
  "han",
  "kana",
  "hangul",
  "other_runs",
  "other",
  "symbol",
  "cjk_punct",
  "astral",
];

/**
 * Tokens per feature, fitted by `bench/token_calibration.ts` (least squares
 * on relative error, o200k counts of the calibration corpus).
 */
const WEIGHTS = new Float64Array([
  0.554, // latin_runs
  0.096, // latin_chars
  1.037, // latin_ext
  1.275, // digit_runs
  0.314, // digits
  0.816, // punct_runs
  0.018, // punct
  1.281, // newline_runs
  0.43, // space_runs
  0.631, // cyrillic_runs
  0.231, // cyrillic
  0.31, // greek_runs
  0.353, // greek
  0.378, // arabic_runs
  0.289, // arabic
  0.847, // han
  0.638, // kana
  0.754, // hangul
  0, // other_runs
  0.41, // other
  0.66, // symbol
  0.804, // cjk_punct
  4.538, // astral
]);

// Character classes of the scanner.
const C_SPACE = 1;
const C_NEWLINE = 2;
const C_LOWER = 3;
const C_UPPER = 4;
const C_DIGIT = 5;
const C_PUNCT = 6;
const C_LATIN_EXT = 7;
const C_CYR = 8;
const C_GREEK = 9;
const C_ARABIC = 10;
const C_HAN = 11;
const C_KANA = 12;
const C_HANGUL = 13;
const C_OTHER_LETTER = 14;
const C_SYMBOL = 15;
const C_CJK_PUNCT = 16;
const C_ASTRAL = 17;
const C_MARK = 18; // combining mark: continues whatever run it follows

const ASCII_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  ASCII_CLASS[c] = c === 10 || c === 13
    ? C_NEWLINE
    : c === 32 || c === 9 || c === 11 || c === 12
    ? C_SPACE
    : c >= 97 && c <= 122
    ? C_LOWER
    : c >= 65 && c <= 90
    ? C_UPPER
    : c >= 48 && c <= 57
    ? C_DIGIT
    : C_PUNCT;
}

function classOf(c: number): number {
  if (c < 0x80) return ASCII_CLASS[c];
  if (c < 0x0250) {
    if (c < 0xc0) return c === 0xa0 ? C_SPACE : C_SYMBOL;
    return c === 0xd7 || c === 0xf7 ? C_SYMBOL : C_LATIN_EXT;
  }
  if (c < 0x0300) return C_LATIN_EXT; // IPA, spacing modifiers
  if (c < 0x0370) return C_MARK;
  if (c < 0x0400) return C_GREEK;
  if (c < 0x0530) return C_CYR;
  if (c < 0x0590) return C_OTHER_LETTER; // Armenian
  if (c < 0x0900) return C_ARABIC; // Hebrew, Arabic, Syriac, Thaana
  if (c < 0x1100) return C_OTHER_LETTER; // Indic, Thai, Lao, Tibetan, Myanmar, Georgian
  if (c < 0x1200) return C_HANGUL; // Jamo
  if (c < 0x1e00) return C_OTHER_LETTER; // Ethiopic ... Balinese
  if (c < 0x1f00) return C_LATIN_EXT; // Latin Extended Additional (Vietnamese)
  if (c < 0x2000) return C_GREEK;
  if (c < 0x3000) return c === 0x2028 || c === 0x2029 ? C_NEWLINE : C_SYMBOL;
  if (c < 0x3040) return C_CJK_PUNCT;
  if (c < 0x3100) return C_KANA;
  if (c < 0x3190) return C_HANGUL; // Bopomofo counted with Jamo, close enough
  if (c < 0x3400) return c >= 0x31f0 && c < 0x3200 ? C_KANA : C_SYMBOL;
  if (c < 0xa000) return C_HAN;
  if (c < 0xac00) return C_OTHER_LETTER; // Yi, Vai, ...
  if (c < 0xd7b0) return C_HANGUL;
  if (c < 0xd800) return C_HANGUL;
  if (c < 0xe000) return C_ASTRAL; // surrogates: classified by their pair
  if (c < 0xf900) return C_SYMBOL; // private use
  if (c < 0xfb00) return C_HAN;
  if (c < 0xfb50) return C_ARABIC; // Hebrew presentation forms
  if (c < 0xfe00) return C_ARABIC;
  if (c < 0xfe70) return C_SYMBOL;
  if (c < 0xff00) return C_ARABIC;
  if (c < 0xff66) return C_CJK_PUNCT; // full-width forms
  if (c < 0xffa0) return C_KANA; // half-width katakana
  return C_SYMBOL;
}

/** The class of every BMP code unit ({@link classOf}'s), made at the first count. */
let classes: Uint8Array | undefined;
/** The feature slot a run of each class counts in ({@link SINK}: none). */
const RUN_SLOT = new Uint8Array(32);
/** The feature slot each character of a class counts in ({@link SINK}: none). */
const CHAR_SLOT = new Uint8Array(32);
/** Whether a character of class `k` after one of class `p` starts a run: `STARTS[p << 5 | k]`. */
const STARTS = new Uint8Array(32 * 32);
/** A slot past the features that takes the counts nothing reads. */
const SINK = FEATURE_COUNT;
/** The counts of one pass, with the sink. */
const counts = new Float64Array(FEATURE_COUNT + 1);

function classTable(): Uint8Array {
  const table = new Uint8Array(0x10000);
  for (let c = 0; c < 0x10000; c++) table[c] = classOf(c);
  RUN_SLOT.fill(SINK);
  CHAR_SLOT.fill(SINK);
  const slots: [number, number, number][] = [
    [C_NEWLINE, F_NEWLINE_RUNS, SINK],
    [C_LOWER, F_LATIN_RUNS, F_LATIN_CHARS],
    [C_UPPER, F_LATIN_RUNS, F_LATIN_CHARS],
    [C_LATIN_EXT, F_LATIN_RUNS, F_LATIN_EXT],
    [C_DIGIT, F_DIGIT_RUNS, F_DIGITS],
    [C_PUNCT, F_PUNCT_RUNS, F_PUNCT],
    [C_CYR, F_CYR_RUNS, F_CYR],
    [C_GREEK, F_GREEK_RUNS, F_GREEK],
    [C_ARABIC, F_ARABIC_RUNS, F_ARABIC],
    [C_HAN, SINK, F_HAN],
    [C_KANA, SINK, F_KANA],
    [C_HANGUL, SINK, F_HANGUL],
    [C_OTHER_LETTER, F_OTHER_RUNS, F_OTHER],
    [C_SYMBOL, SINK, F_SYMBOL],
    [C_CJK_PUNCT, SINK, F_CJK_PUNCT],
    [C_ASTRAL, SINK, F_ASTRAL],
  ];
  for (const [k, run, char] of slots) {
    RUN_SLOT[k] = run;
    CHAR_SLOT[k] = char;
  }
  const latin = (k: number) => k === C_LOWER || k === C_UPPER || k === C_LATIN_EXT;
  for (let p = 0; p < 32; p++) {
    for (let k = 0; k < 32; k++) {
      // A Latin word goes on across small, capital and accented letters, except that a
      // capital after a small letter starts a new one (camelCase); other runs are of one class.
      const starts = k === C_UPPER
        ? p !== C_UPPER && p !== C_LATIN_EXT
        : latin(k)
        ? !latin(p)
        : p !== k;
      STARTS[p << 5 | k] = starts ? 1 : 0;
    }
  }
  return table;
}

/**
 * Counts the features of `text` into `out` (which it zeroes first). One
 * pass, no allocation: each character's class comes from a table of the
 * BMP, whether it starts a run from a table of class pairs, and a run of
 * small ASCII letters (most of most text) is counted in one step.
 */
export function tokenFeatures(text: string, out: Float64Array): Float64Array {
  const table = classes ??= classTable();
  counts.fill(0);
  let prev = 0; // class of the previous character
  let spaces = 0; // length of the current run of spaces
  const n = text.length;
  for (let i = 0; i < n; i++) {
    let c = text.charCodeAt(i);
    let k = table[c];
    if (k === C_ASTRAL && c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const lo = text.charCodeAt(i + 1);
      if (lo >= 0xdc00 && lo <= 0xdfff) {
        c = ((c - 0xd800) << 10) + (lo - 0xdc00) + 0x10000;
        i++;
        k = c >= 0x20000 && c < 0x40000 ? C_HAN : C_ASTRAL;
      }
    }
    if (k === C_SPACE) {
      spaces++;
      prev = k;
      continue;
    }
    // A combining mark continues whatever run it follows.
    if (k === C_MARK) {
      counts[F_LATIN_EXT]++;
      continue;
    }
    if (spaces >= 2) counts[F_SPACE_RUNS]++;
    spaces = 0;
    counts[RUN_SLOT[k]] += STARTS[prev << 5 | k];
    if (k === C_LOWER) {
      let j = i + 1;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (d < 97 || d > 122) break;
        j++;
      }
      counts[F_LATIN_CHARS] += j - i;
      i = j - 1;
    } else counts[CHAR_SLOT[k]]++;
    prev = k;
  }
  if (spaces >= 2) counts[F_SPACE_RUNS]++;
  for (let f = 0; f < FEATURE_COUNT; f++) out[f] = counts[f];
  return out;
}

const scratch = new Float64Array(FEATURE_COUNT);

/** The estimate for counted features (weights in {@link tokenFeatures} order). */
export function weighFeatures(features: Float64Array, weights: Float64Array = WEIGHTS): number {
  let sum = 0;
  for (let f = 0; f < FEATURE_COUNT; f++) sum += features[f] * weights[f];
  return sum;
}

/** Estimated tokens in `text` (cheap; see the module notes for how close it is). */
export function estimateTokens(text: string): number {
  return Math.ceil(tokenWeight(text));
}

/**
 * The unrounded estimate, so costs of pieces can be added up without
 * rounding each one.
 */
export function tokenWeight(text: string): number {
  if (text.length === 0) return 0;
  return weighFeatures(tokenFeatures(text, scratch));
}

/**
 * Whether the estimate of `text[from, to)` is over `limit`, reading only as
 * much of it as that takes: the estimate of a text only grows as text is
 * added at its end (every feature counts up, every weight is positive), so
 * a beginning over the limit answers for the whole.
 */
export function weighsOver(text: string, from: number, to: number, limit: number): boolean {
  return overAt(text, from, to, limit, 512) >= 0;
}

/**
 * The end of the first prefix of `text[from, to)` estimated over `limit`,
 * among prefixes of `first` characters and then twice as many each time
 * (the whole last), or -1 when the whole is not over it.
 */
function overAt(text: string, from: number, to: number, limit: number, first: number): number {
  for (let reach = first;; reach *= 2) {
    let end = Math.min(to, from + reach);
    // Never between the halves of a surrogate pair.
    const c = text.charCodeAt(end - 1);
    if (end < to && c >= 0xd800 && c <= 0xdbff) end++;
    if (tokenWeight(text.slice(from, end)) > limit) return end;
    if (end >= to) return -1;
  }
}

/**
 * The longest prefix of `text` estimated at no more than `budget` tokens,
 * cut at a line break when one is in the last fifth of the prefix, and never
 * inside a surrogate pair.
 */
export function truncateToTokens(text: string, budget: number): string {
  if (budget <= 0) return "";
  const total = tokenWeight(text);
  if (Math.ceil(total) <= budget) return text;
  // The estimate is additive up to run boundaries: search for the cut.
  let lo = 0;
  let hi = Math.min(text.length, Math.ceil((text.length * budget) / total) * 2 + 16);
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (Math.ceil(tokenWeight(text.slice(0, mid))) <= budget) lo = mid;
    else hi = mid - 1;
  }
  return cleanCut(text, lo, 0.8);
}

/** `text` cut before `end`, never inside a surrogate pair, at a line break in its last part. */
function cleanCut(text: string, end: number, keep: number): string {
  if (end > 0 && end < text.length) {
    const c = text.charCodeAt(end - 1);
    if (c >= 0xd800 && c <= 0xdbff) end--;
  }
  const cut = text.slice(0, end);
  if (end >= text.length) return cut;
  const newline = cut.lastIndexOf("\n");
  return newline >= cut.length * keep ? cut.slice(0, newline) : cut;
}

// ---------------------------------------------------------------------------
// Exact counts

let encoding: O200k | undefined;
let loading: Promise<O200k> | undefined;

/**
 * Loads the o200k tables (once; some tens of milliseconds, see `o200k.ts`).
 * {@link countTokens} and {@link fitToBudget} await it themselves; a caller
 * that needs {@link countTokensSync} awaits it first.
 */
export function tokenizerReady(): Promise<void> {
  // The tables and the rank file (about 10 MB) fill what a large page converted on this thread
  // left, rather than lift the peak above it: that is collected first (the one-shot fetch of
  // WHATWG HTML peaked 7 MiB higher without). Nothing runs where no such page readied the collector.
  if (!loading) collectBetweenStages();
  loading ??= loadO200k().then((loaded) => {
    encoding = loaded;
    return loaded;
  });
  return loading.then(() => {});
}

/** Whether the o200k tables are loaded (the exact count is then synchronous). */
export function tokenizerLoaded(): boolean {
  return encoding !== undefined;
}

/**
 * Longest run (of spaces, or of anything but spaces) that is encoded as one
 * piece. The encoder merges the byte pairs of each piece of the text by
 * scanning the whole piece for every merge, so a piece of n characters costs
 * n² (a paragraph of 900,000 `<`, a 4 MB word: minutes for one answer); a
 * longer run is encoded in parts of this length. The tokens still decode to
 * the text; their number may differ from o200k's on the whole run, by at
 * most one fewer per part on 3,000 random runs (and up to a quarter more on
 * some punctuation), so a count adds one per part: never under the real one.
 */
export const LONG_RUN = 256;

/** Where `text` is cut so that no run is longer than {@link LONG_RUN} (none: []). */
function runCuts(text: string): number[] {
  const cuts: number[] = [];
  if (text.length <= LONG_RUN) return cuts;
  let start = 0;
  let space = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const s = c === 32 || (c >= 9 && c <= 13);
    if (s !== space) {
      space = s;
      start = i;
    } else if (i - start >= LONG_RUN && !(c >= 0xdc00 && c <= 0xdfff)) {
      // Never between the halves of a surrogate pair.
      cuts.push(i);
      start = i;
    }
  }
  return cuts;
}

/**
 * `text` encoded in o200k, long runs in parts (see {@link LONG_RUN}), its
 * count (the tokens, plus one per cut) and the number of parts.
 */
function encodeText(
  enc: O200k,
  text: string,
): { tokens: number[]; count: number; parts: number } {
  const cuts = runCuts(text);
  if (cuts.length === 0) {
    const tokens = enc.encode(text);
    return { tokens, count: tokens.length, parts: 1 };
  }
  const tokens: number[] = [];
  let from = 0;
  for (const at of [...cuts, text.length]) {
    for (const t of enc.encode(text.slice(from, at))) tokens.push(t);
    from = at;
  }
  return { tokens, count: tokens.length + cuts.length, parts: cuts.length + 1 };
}

/**
 * Characters of the pre-tokens whose counts are kept (words, spaces,
 * punctuation: a page's vocabulary repeats; all forgotten when full). WHATWG
 * HTML has some 31,500 different pre-tokens in 227,000 characters. Counting
 * from them does without the encoder's lookup of every word in its table of
 * 200,000 and without building the token array: the page's 3,882 slices
 * count in about 0.4 of the time.
 */
export const PRE_TOKEN_CACHE_CHARS = 1 << 19;
/** Pre-tokens longer than this are not kept (rare; they would push many out). */
const LONG_PRE_TOKEN = 64;
const preTokenCounts = new Map<string, number>();
let preTokenChars = 0;

/** Exact o200k tokens of `text` (no run longer than {@link LONG_RUN}), from its pre-tokens. */
function countPreTokens(enc: O200k, text: string): number {
  let total = 0;
  PRE_TOKEN.lastIndex = 0;
  for (let m = PRE_TOKEN.exec(text); m !== null; m = PRE_TOKEN.exec(text)) {
    const word = m[0];
    let n = preTokenCounts.get(word);
    if (n === undefined) {
      n = enc.encodePiece(word).length;
      if (word.length <= LONG_PRE_TOKEN) {
        if (preTokenChars + word.length > PRE_TOKEN_CACHE_CHARS) {
          preTokenCounts.clear();
          preTokenChars = 0;
        }
        // A match of 13 characters or more may be a view of `text`, which it would keep alive.
        preTokenCounts.set(word.length > 12 ? `\n${word}`.slice(1) : word, n);
        preTokenChars += word.length;
      }
    }
    total += n;
  }
  return total;
}

/** Exact o200k tokens in `text`; throws before {@link tokenizerReady} has resolved. */
export function countTokensSync(text: string): number {
  if (!encoding) {
    throw new Error("the tokenizer is not loaded: await tokenizerReady() first");
  }
  if (text.length === 0) return 0;
  // The count of encodeText: long runs counted in parts, one more per cut.
  const cuts = runCuts(text);
  if (cuts.length === 0) return countPreTokens(encoding, text);
  let count = cuts.length;
  let from = 0;
  for (const at of [...cuts, text.length]) {
    count += countPreTokens(encoding, text.slice(from, at));
    from = at;
  }
  return count;
}

/** Exact o200k tokens in `text` (loads the tables on first use). */
export async function countTokens(text: string): Promise<number> {
  await tokenizerReady();
  return countTokensSync(text);
}

/**
 * The exact count when the tables are loaded, the estimate otherwise: for
 * synchronous checks (the response cap) that run after a view has counted.
 */
export function bestCount(text: string): number {
  return encoding ? countTokensSync(text) : estimateTokens(text);
}

/** What {@link fitToBudget} returns. */
export interface Fit {
  /** The text, whole or cut at a block or line boundary. */
  text: string;
  /** Its exact o200k count. */
  tokens: number;
  /** Whether the exact check had to cut it. */
  trimmed: boolean;
}

/**
 * Share of a budget a cut may leave unused to end at a boundary (a
 * paragraph, a line, a sentence, a word) rather than inside a word.
 */
export const CUT_SLACK = 0.1;

/**
 * The final check on what goes out: `text` as is when it holds at most
 * `budget` real (o200k) tokens, otherwise its longest prefix that does, cut
 * at the best boundary in the last tenth of the budget (see
 * {@link prefixWithinSync}). A `tail` is appended to a cut text and counts in
 * the budget (it is dropped if nothing of the text would fit).
 */
export async function fitToBudget(text: string, budget: number, tail = ""): Promise<Fit> {
  await tokenizerReady();
  return fitToBudgetSync(text, budget, tail);
}

/** {@link fitToBudget} once {@link tokenizerReady} has resolved. */
export function fitToBudgetSync(text: string, budget: number, tail = ""): Fit {
  if (tail === "") return prefixWithinSync(text, budget);
  // `tail` (a list of what was left out) follows the text and counts in the budget.
  const whole = countTokensSync(text + tail);
  if (whole <= budget) return { text: text + tail, tokens: whole, trimmed: false };
  let room = budget - countTokensSync(tail);
  for (let round = 0; round < 8 && room > 0; round++) {
    const head = prefixWithinSync(text, room);
    const tokens = countTokensSync(head.text + tail);
    if (tokens <= budget) return { text: head.text + tail, tokens, trimmed: true };
    room -= tokens - budget;
  }
  return prefixWithinSync(text, budget);
}

/**
 * The longest prefix of `text` within `budget` real tokens that ends at a
 * boundary and keeps at least `keep` tokens (by default all but
 * {@link CUT_SLACK} of the budget): after a paragraph when one ends in that
 * window, else after a line, else after a sentence (its closing mark, in any
 * script), else before a space, else inside the word (never inside a
 * character). Reads only as far as the budget reaches, so a cut of a long
 * text costs its budget, not its length. Needs {@link tokenizerReady}.
 */
export function prefixWithinSync(
  text: string,
  budget: number,
  keep: number = Math.floor(budget * (1 - CUT_SLACK)),
): Fit {
  const enc = encoding;
  if (!enc) throw new Error("the tokenizer is not loaded: await tokenizerReady() first");
  const limit = Math.max(0, Math.floor(budget));
  // Encode a prefix that surely holds `limit` tokens (the estimate is within a
  // factor of two of o200k on every script), not the whole of a long text.
  // Only as much of a long text as it takes is weighed: a prefix of doubling length until the
  // estimate is past that (a page of one 4 MB paragraph was weighed whole for 5,000 tokens).
  let head = text;
  if (text.length > 4096) {
    const want = 2 * limit + 256;
    const reach = overAt(text, 0, text.length, want, 4096);
    const cut = truncateToTokens(reach >= 0 ? text.slice(0, reach) : text, want);
    if (cut.length < text.length) head = cut;
  }
  let encoded = encodeText(enc, head);
  if (encoded.count <= limit && head !== text) {
    head = text;
    encoded = encodeText(enc, text);
  }
  if (encoded.count <= limit) return { text, tokens: encoded.count, trimmed: false };
  const { tokens } = encoded;
  // The first `limit` tokens decode to a prefix (its last character may be
  // half of one); cut that at a boundary, then recount, since a prefix can
  // tokenize differently from the prefix of the tokens.
  const prefixLength = (n: number) =>
    n <= 0 ? 0 : enc.decode(tokens.slice(0, n)).replace(/\uFFFD+$/, "").length;
  let end = prefixLength(limit);
  const floor = prefixLength(Math.min(limit, Math.max(0, Math.floor(keep))));
  for (let round = 0; round < 8; round++) {
    const cut = boundaryCut(text, end, Math.min(floor, end));
    const { count, parts } = encodeText(enc, cut);
    if (count <= limit) return { text: cut, tokens: count, trimmed: true };
    // Two characters per token over, or, in a text of long runs (eight `<` a token), as many
    // as its tokens hold on average.
    const perToken = parts > 1 ? Math.max(2, cut.length / count) : 2;
    end = Math.min(cut.length, end) - Math.max(1, Math.ceil((count - limit) * perToken));
    if (end <= 0) break;
  }
  return { text: "", tokens: 0, trimmed: true };
}

// A sentence's closing mark: Latin and the scripts that borrow its marks,
// CJK (full and half width), Devanagari and Bengali (danda), Arabic and Urdu,
// Armenian, Ethiopic, Myanmar, Tibetan, Khmer.
const SENTENCE_MARK = /[.!?。！？｡।॥؟۔։።፧။།។…]/;
// What may close a sentence after its mark: quotes and brackets.
const CLOSERS = /["'”’»)\]」』）】]/;
// Marks that end a sentence with no space after them (CJK, danda ...).
const TIGHT_MARK = /[。！？｡।॥።။།។]/;

const COMBINING = /\p{M}/u;

/** Offset just past the last sentence end in `text[floor, end)`, or -1. */
function sentenceEnd(text: string, floor: number, end: number): number {
  for (let i = end - 1; i >= floor; i--) {
    const c = text[i];
    if (!SENTENCE_MARK.test(c)) continue;
    let j = i + 1;
    while (j < end && CLOSERS.test(text[j])) j++;
    if (TIGHT_MARK.test(c) || j >= text.length || /\s/.test(text[j])) {
      if (j <= end) return j;
    }
  }
  return -1;
}

/**
 * `text` cut before `end` at the best boundary at or after `floor`: a
 * paragraph break, a line break, a sentence end, a space, or `end` itself
 * (never inside a surrogate pair).
 */
function boundaryCut(text: string, end: number, floor: number): string {
  // Never inside a character: not between a surrogate pair's halves, nor before a combining
  // mark (a Thai vowel or tone mark stays with its consonant).
  while (end > 0 && end < text.length) {
    const c = text.charCodeAt(end);
    if ((c >= 0xdc00 && c <= 0xdfff) || c === 0x200d || COMBINING.test(text[end])) end--;
    else break;
  }
  const cut = text.slice(0, end);
  if (end >= text.length) return cut;
  const paragraph = cut.lastIndexOf("\n\n");
  if (paragraph >= floor && paragraph > 0) return cut.slice(0, paragraph).trimEnd();
  const line = cut.lastIndexOf("\n");
  if (line >= floor && line > 0) return cut.slice(0, line).trimEnd();
  const sentence = sentenceEnd(text, Math.max(floor, 1), end);
  if (sentence > 0) return cut.slice(0, sentence);
  const space = cut.lastIndexOf(" ");
  return space >= floor && space > 0 ? cut.slice(0, space).trimEnd() : cut;
}
