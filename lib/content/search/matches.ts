/**
 * Where a search query matches inside a text: the words its terms match,
 * found as the index finds them (case-insensitive; a fuzzy term within its
 * edit distance; a phrase by its words in order; a run of a script written
 * without spaces by substring), so a view can show the part of a long slice
 * that made it a hit. Terms under an exclusion (`-word`, `NOT`) are not
 * looked for.
 *
 * @module
 */
import { parseQuery, type QueryNode } from "./query.ts";
import { boundedDistance } from "./bm25.ts";
import { matchesOf } from "../../runtime/matches.ts";

/** One place a query term matches. */
export interface Match {
  /** Offset of its first character. */
  start: number;
  /** Offset past its last character. */
  end: number;
  /** Which of the query's terms (or phrases) it matches, from 0. */
  term: number;
}

type Leaf =
  | { type: "term"; term: string; fuzzy: number }
  | { type: "phrase"; terms: string[]; slop: number }
  | { type: "substring"; text: string };

function leaves(node: QueryNode, out: Leaf[]): Leaf[] {
  if (node.type === "bool") {
    for (const n of [...node.must, ...node.should]) leaves(n, out);
  } else if (node.type === "substring") out.push({ type: "substring", text: node.text });
  else out.push(node);
  return out;
}

/** A word: letters, marks and digits. */
const WORD = /[\p{L}\p{M}\p{N}]+/gu;

/** Words of `text` (letters, marks and digits) with their offsets, lowercased. */
function wordsOf(text: string): { word: string; start: number; end: number }[] {
  const out: { word: string; start: number; end: number }[] = [];
  for (const m of matchesOf(WORD, text)) {
    out.push({ word: m[0].toLowerCase(), start: m.index, end: m.index + m[0].length });
  }
  return out;
}

/** The places in `text` that the terms of the search `query` match, in text order. */
export function queryMatches(query: string, text: string): Match[] {
  const terms = leaves(parseQuery(query).root, []);
  if (terms.length === 0) return [];
  const words = wordsOf(text);
  const lower = text.toLowerCase();
  const out: Match[] = [];
  terms.forEach((leaf, term) => {
    if (leaf.type === "substring") {
      const needle = leaf.text.toLowerCase();
      if (needle === "") return;
      for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, at + 1)) {
        out.push({ start: at, end: at + needle.length, term });
      }
      return;
    }
    if (leaf.type === "term") {
      for (const w of words) {
        if (
          w.word === leaf.term ||
          (leaf.fuzzy > 0 && boundedDistance(w.word, leaf.term, leaf.fuzzy) <= leaf.fuzzy)
        ) out.push({ start: w.start, end: w.end, term });
      }
      return;
    }
    // A phrase: its words in order, at most `slop` other words between each two.
    const [head, ...rest] = leaf.terms;
    for (let i = 0; i < words.length; i++) {
      if (words[i].word !== head) continue;
      let at = i;
      let whole = true;
      for (const t of rest) {
        let next = -1;
        for (let j = at + 1; j <= Math.min(words.length - 1, at + 1 + leaf.slop); j++) {
          if (words[j].word === t) {
            next = j;
            break;
          }
        }
        if (next < 0) {
          whole = false;
          break;
        }
        at = next;
      }
      if (whole) out.push({ start: words[i].start, end: words[at].end, term });
    }
  });
  return out.sort((a, b) => a.start - b.start || a.end - b.end);
}
