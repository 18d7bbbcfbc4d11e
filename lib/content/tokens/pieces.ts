/**
 * Exact o200k counts of texts made of pieces counted before. A view's
 * answer is made of the page's own lines (paragraphs, list items, table
 * rows, a slice's heading) joined by line breaks, and the same lines come
 * back: in the next request of the question's refinement, in the next
 * search that hits the same slice, in the check of the answer that was
 * just cut, in the envelope around it. Counting every answer whole, three
 * or four times a request, was most of a cached follow-up's time.
 *
 * The count of a text is the sum of the counts of its pieces when every
 * cut between two pieces is a boundary of o200k's pre-tokenizer, since
 * byte pairs merge only inside a pre-token. A cut is made after a run of
 * line breaks followed by a character that is neither white space nor `/`:
 * the run ends a pre-token there (the pattern for line breaks stops at the
 * last one; punctuation before them takes them along with `[\r\n/]*`, but
 * not the character after them unless it is `/`), and no pre-token starts
 * with a line break followed by what comes next. So a text is cut into its
 * lines, each with the line breaks that end it, each counted once and kept
 * (`tests/content/tokens/pieces_test.ts` checks the sum against the count
 * of the whole on real pages and on random joins).
 *
 * The counts kept are bounded by the characters of their keys
 * ({@link PIECE_CACHE_CHARS}, oldest first out), and the keys are copies,
 * not substrings: V8 keeps the whole string a substring was cut from
 * alive, and a line would keep its page.
 *
 * @module
 */
import { countTokensSync, estimateTokens, tokenizerLoaded } from "./count.ts";

/** Characters of the pieces whose counts are kept (about 2 MiB with the map). */
export const PIECE_CACHE_CHARS = 1 << 20;
/** Pieces shorter than this are counted each time (a lookup costs as much). */
const SHORT_PIECE = 24;
/** Texts shorter than this are counted whole. */
const SHORT_TEXT = 256;
/** Texts longer than this are counted whole too: their lines would push every other out. */
const LONG_TEXT = PIECE_CACHE_CHARS / 4;

const counts = new Map<string, number>();
let chars = 0;

// White space (as the pre-tokenizer's \s sees it) and `/`, which may join a pre-token across a
// line break.
const JOINS = /[\s/]/;

function piece(text: string, from: number, to: number): number {
  if (to - from < SHORT_PIECE) return countTokensSync(text.slice(from, to));
  const key = text.slice(from, to);
  const known = counts.get(key);
  if (known !== undefined) return known;
  const n = countTokensSync(key);
  // A fresh copy: a substring of `text` would keep all of `text` alive.
  counts.set(`\n${key}`.slice(1), n);
  chars += key.length;
  while (chars > PIECE_CACHE_CHARS) {
    const oldest = counts.keys().next().value!;
    counts.delete(oldest);
    chars -= oldest.length;
  }
  return n;
}

/**
 * Exact o200k tokens in `text`, the same as `countTokensSync(text)`, from
 * the counts of its lines (see the module notes); needs the tokenizer.
 */
export function countPiecesSync(text: string): number {
  if (text.length < SHORT_TEXT || text.length > LONG_TEXT) return countTokensSync(text);
  let total = 0;
  let start = 0;
  for (let i = text.indexOf("\n"); i >= 0 && i < text.length - 1; i = text.indexOf("\n", i)) {
    let end = i + 1;
    while (end < text.length && text.charCodeAt(end) === 10) end++;
    if (end < text.length && !JOINS.test(text[end])) {
      total += piece(text, start, end);
      start = end;
    }
    i = end;
  }
  return total + piece(text, start, text.length);
}

/**
 * Exact o200k tokens in `text` followed by a blank line, given `tokens`, the
 * count of `text`: only its last line is counted again, with the break (the
 * lines before it are pieces of both texts), by `count` (the same figure as
 * `countTokensSync`; by default from the kept counts of its pieces).
 */
export function countWithBreak(
  text: string,
  tokens: number,
  count: (text: string) => number = countPiecesSync,
): number {
  let start = 0;
  for (let i = text.lastIndexOf("\n"); i >= 0; i = text.lastIndexOf("\n", i - 1)) {
    if (i + 1 < text.length && !JOINS.test(text[i + 1])) {
      start = i + 1;
      break;
    }
    if (i === 0) break;
  }
  const last = text.slice(start);
  return tokens - count(last) + count(`${last}\n\n`);
}

/** {@link countPiecesSync} when the tokenizer is loaded, the estimate otherwise. */
export function bestPieceCount(text: string): number {
  return tokenizerLoaded() ? countPiecesSync(text) : estimateTokens(text);
}

/** Forgets the counts kept (tests, benchmarks). */
export function forgetPieceCounts(): void {
  counts.clear();
  chars = 0;
}
