/**
 * A window of a text around a place in it, within a token budget: what a
 * search view shows of a slice too long for its budget, so the words that
 * made the slice a hit are never cut out of it. The window is centred on the
 * hit (the place where the most of the query's terms meet), grows by whole
 * lines on both sides while they fit, then by sentences of the next line of
 * running text on each side (a hit's own line too long for the budget is
 * cut around the hit at sentences or words), and each cut edge is marked with the elision marker the
 * question view uses. A window inside a fenced code block is fenced again;
 * one inside a table keeps the table's header above it.
 *
 * @module
 */
import { ITEM_FENCE } from "./fence.ts";
import type { Match } from "../search/matches.ts";

/** The mark put where text was left out (the question view's). */
export const ELISION = "[…]";

/** A window cut from a text. */
export interface Window {
  /** The window's Markdown, with the marks of its cut edges. */
  text: string;
  /** Whether text before it was left out. */
  cutBefore: boolean;
  /** Whether text after it was left out. */
  cutAfter: boolean;
}

interface Line {
  start: number;
  end: number;
  /** The fence line opening the code block the line is in (not for the opening line itself). */
  fence?: string;
  /** The header and delimiter rows of the table the line is a body row of. */
  tableHead?: string;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const BLOCK_MARK = /^\s*(?:[-*+]\s|\d{1,9}[.)]\s|>|\||#{1,6}\s|`{3,}|~{3,})/;
const TABLE_DELIMITER = /^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-*:?\s*)*\|?\s*$/;

function linesOf(text: string): Line[] {
  const lines: Line[] = [];
  let open: string | undefined;
  let head: string | undefined;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end);
    const entry: Line = { start, end };
    const fence = FENCE.exec(line);
    if (open !== undefined) {
      entry.fence = open;
      // A closing fence: the opening's character, at least as many, nothing after.
      const run = FENCE.exec(open)![1];
      if (
        fence && fence[1][0] === run[0] && fence[1].length >= run.length && line.trim() === fence[1]
      ) {
        open = undefined;
      }
    } else if (fence) open = line;
    else {
      // Its code reopens as a bare fence when a window starts inside it.
      const item = ITEM_FENCE.exec(line);
      if (item) open = item[1];
    }
    // A table: a header row, a delimiter row, then body rows while lines start with "|".
    if (open === undefined && entry.fence === undefined) {
      if (head !== undefined && line.trimStart().startsWith("|")) entry.tableHead = head;
      else head = undefined;
      const prev = lines[lines.length - 1];
      if (prev && TABLE_DELIMITER.test(line) && text.slice(prev.start, prev.end).includes("|")) {
        head = text.slice(prev.start, end);
      }
    }
    lines.push(entry);
    start = end + 1;
  }
  return lines;
}

/**
 * The place to centre on: the match with the most of the query's distinct
 * terms within `reach` characters of it (the earliest on ties).
 */
function centre(matches: readonly Match[], reach: number): Match {
  let best = matches[0];
  let bestTerms = 0;
  for (const m of matches) {
    const terms = new Set<number>();
    for (const o of matches) {
      if (o.end >= m.start - reach && o.start <= m.end + reach) terms.add(o.term);
    }
    if (terms.size > bestTerms) [best, bestTerms] = [m, terms.size];
  }
  return best;
}

// A sentence's end: its closing mark (with quotes or brackets) and the space after it, or a
// CJK mark alone.
const SENTENCE_END = /[.!?。！？｡।॥؟۔][)"'”’»」』]*(?:\s+|$)|[。！？｡]/gu;

/** Offsets in `(from, to]` where a sentence has just ended. */
function sentenceEnds(text: string, from: number, to: number): number[] {
  const out: number[] = [];
  SENTENCE_END.lastIndex = from;
  for (let m = SENTENCE_END.exec(text); m !== null; m = SENTENCE_END.exec(text)) {
    const at = m.index + m[0].length;
    if (at > to) break;
    if (at > from) out.push(at);
  }
  return out;
}

/**
 * `at` moved back to the start of its character: off the second half of a
 * surrogate pair and off combining marks (a Thai vowel or tone mark stays
 * with its consonant).
 */
function whole(text: string, at: number): number {
  while (at > 0 && at < text.length) {
    const c = text.charCodeAt(at);
    if ((c >= 0xdc00 && c <= 0xdfff) || c === 0x200d || COMBINING.test(text[at])) at--;
    else break;
  }
  return at;
}

const COMBINING = /\p{M}/u;

/**
 * The earliest start in `[from, at]` of a sentence, else of a word, else
 * `from` itself (inside a word: a script without spaces).
 */
function startBoundary(text: string, from: number, at: number): number {
  if (from <= 0) return 0;
  const sentences = sentenceEnds(text, from - 1, at);
  if (sentences.length > 0) return sentences[0];
  for (let i = from; i <= at; i++) if (/\s/.test(text[i - 1])) return i;
  return whole(text, from);
}

/**
 * The latest end in `[at, to]` of a sentence, else of a word, else `to`
 * itself (inside a word: a script without spaces).
 */
function endBoundary(text: string, at: number, to: number): number {
  if (to >= text.length) return text.length;
  const sentences = sentenceEnds(text, at, to);
  if (sentences.length > 0) return sentences[sentences.length - 1];
  for (let i = to; i > at; i--) if (/\s/.test(text[i])) return i;
  return whole(text, to);
}

/**
 * A window of `text` around its `matches` within `room` tokens (as
 * `measure` counts them), or undefined when not even the matched words fit.
 * Without matches, the window starts at the top.
 */
export function windowAround(
  text: string,
  matches: readonly Match[],
  room: number,
  measure: (text: string) => number,
): Window | undefined {
  if (measure(text) <= room) return { text, cutBefore: false, cutAfter: false };
  const lines = linesOf(text);
  const lineAt = (pos: number) => lines[Math.max(0, lines.findIndex((l) => pos <= l.end))];
  const isFence = (l: Line) => FENCE.test(text.slice(l.start, l.end));
  // Running text: a line no block marks (list item, quote, table row, heading, code).
  const plain = (l: Line) =>
    l.fence === undefined && l.tableHead === undefined && l.end > l.start &&
    !BLOCK_MARK.test(text.slice(l.start, l.end));
  const charsPerToken = Math.max(1, text.length / Math.max(1, measure(text)));
  const hit = matches.length > 0
    ? centre(matches, (room * charsPerToken) / 2)
    : { start: 0, end: 0, term: 0 };
  // The window is text[a, b), framed: a code block cut into is opened again and one cut out
  // of closed, a table's header stays above its rows, and each cut edge is marked.
  const render = (a: number, b: number): string => {
    let top = lineAt(a);
    let bottom = lineAt(b);
    // A window never starts on the line closing a code block, nor ends on one opening it.
    if (isFence(top) && top.fence !== undefined && top !== bottom) {
      top = lines[lines.indexOf(top) + 1];
      a = top.start;
    }
    if (isFence(bottom) && bottom.fence === undefined && top !== bottom) {
      bottom = lines[lines.indexOf(bottom) - 1];
      b = bottom.end;
    }
    let body = text.slice(a, b).replace(/^\n+/, "").trimEnd();
    if (top.fence !== undefined && !isFence(top)) body = `${top.fence}\n${body}`;
    else if (top.tableHead !== undefined) body = `${top.tableHead}\n${body}`;
    const opening = bottom.fence ?? (isFence(bottom) ? text.slice(bottom.start, bottom.end) : "");
    const closed = bottom.fence !== undefined && isFence(bottom) && b >= bottom.end;
    if (opening !== "" && !closed) body += `\n${FENCE.exec(opening)![0].trim()}`;
    const before = text.slice(0, a).trim() !== "";
    const after = text.slice(b).trim() !== "";
    return (before ? `${ELISION}\n\n` : "") + body + (after ? `\n\n${ELISION}` : "");
  };
  const fits = (a: number, b: number) => measure(render(a, b)) <= room;
  const done = (a: number, b: number): Window => ({
    text: render(a, b),
    cutBefore: text.slice(0, a).trim() !== "",
    cutAfter: text.slice(b).trim() !== "",
  });
  let first = lines.indexOf(lineAt(hit.start));
  let last = first;
  let a = lines[first].start;
  let b = lines[last].end;
  if (!fits(a, b)) {
    // The hit's own line is too long: the largest span of it around the hit that fits, at
    // sentence or word boundaries, found by halving.
    const line = lines[first];
    const span = (k: number): [number, number] => [
      startBoundary(text, Math.max(line.start, hit.start - k), hit.start),
      endBoundary(text, hit.end, Math.min(line.end, hit.end + k)),
    ];
    if (!fits(...span(0))) return undefined;
    let lo = 0;
    let hi = Math.max(hit.start - line.start, line.end - hit.end);
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (fits(...span(mid))) lo = mid;
      else hi = mid - 1;
    }
    return done(...span(lo));
  }
  // Whole lines, alternately after and before, while they fit.
  let after = last < lines.length - 1;
  let before = first > 0;
  while (after || before) {
    if (after) {
      if (fits(a, lines[last + 1].end)) b = lines[++last].end;
      else after = false;
      if (last >= lines.length - 1) after = false;
    }
    if (before) {
      if (fits(lines[first - 1].start, b)) a = lines[--first].start;
      else before = false;
      if (first <= 0) before = false;
    }
  }
  // Then sentences of the next line on each side, when it is running text.
  if (last < lines.length - 1 && plain(lines[last + 1])) {
    const next = lines[last + 1];
    const ends = sentenceEnds(text, next.start, next.end).filter((e) => e < next.end);
    for (let k = ends.length - 1; k >= 0; k--) {
      if (fits(a, ends[k])) {
        b = ends[k];
        break;
      }
    }
  }
  if (first > 0 && plain(lines[first - 1])) {
    const prev = lines[first - 1];
    const starts = sentenceEnds(text, prev.start, prev.end).filter((e) => e < prev.end);
    for (const start of starts) {
      if (fits(start, b)) {
        a = start;
        break;
      }
    }
  }
  return done(a, b);
}
