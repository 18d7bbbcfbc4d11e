/**
 * Words for the search index. Text is lowercased and split on anything that
 * is not a letter or digit. Scripts written without spaces between words
 * (Chinese, Japanese, Korean, Thai, Lao, Khmer, Myanmar, Tibetan) are
 * indexed by character unigrams and bigrams, so a term matches inside a
 * run of such text. Terms longer than 40 characters are not indexed.
 *
 * @module
 */

/** Longest indexed term. */
export const MAX_TERM = 40;

/** Whether code point `c` belongs to a script written without spaces. */
export function isUnspaced(c: number): boolean {
  return (c >= 0x3040 && c <= 0x30ff) || // Hiragana, Katakana
    (c >= 0x31f0 && c <= 0x31ff) || // Katakana phonetic extensions
    (c >= 0xff66 && c <= 0xff9f) || // halfwidth Katakana
    (c >= 0x3400 && c <= 0x4dbf) || // CJK extension A
    (c >= 0x4e00 && c <= 0x9fff) || // CJK unified
    (c >= 0xf900 && c <= 0xfaff) || // CJK compatibility
    (c >= 0x20000 && c <= 0x3134f) || // CJK extensions B+
    (c >= 0x1100 && c <= 0x11ff) || // Hangul Jamo
    (c >= 0x3130 && c <= 0x318f) || // Hangul compatibility Jamo
    (c >= 0xa960 && c <= 0xa97f) || (c >= 0xd7b0 && c <= 0xd7ff) || // Jamo ext A/B
    (c >= 0xac00 && c <= 0xd7af) || // Hangul syllables
    (c >= 0x0e01 && c <= 0x0e4e) || // Thai letters and marks
    (c >= 0x0e81 && c <= 0x0ede) || // Lao
    (c >= 0x0f00 && c <= 0x0fff) || // Tibetan
    (c >= 0x1000 && c <= 0x109f) || // Myanmar
    (c >= 0x1780 && c <= 0x17ff); // Khmer
}

// Non-ASCII characters that separate words: spaces, punctuation, symbols.
function isSeparator(c: number): boolean {
  return (c >= 0x80 && c <= 0xbf && c !== 0xaa && c !== 0xb5 && c !== 0xba) ||
    c === 0xd7 || c === 0xf7 ||
    (c >= 0x2000 && c <= 0x2bff) || // punctuation, arrows, math, box drawing, symbols
    (c >= 0x3000 && c <= 0x303f) || // CJK punctuation
    (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0xff00 && c <= 0xff0f) ||
    (c >= 0xff1a && c <= 0xff20) || (c >= 0xff3b && c <= 0xff40) || (c >= 0xff5b && c <= 0xff65) ||
    (c >= 0xfe00 && c <= 0xfe0f) || c === 0xfeff || c === 0xfffd ||
    (c >= 0x1f000 && c <= 0x1faff); // emoji and pictographs
}

/** A piece of a query: a word, or a run of unspaced script. */
export type Piece = { kind: "word"; term: string } | { kind: "run"; text: string; grams: string[] };

/**
 * Scans `text` and reports tokens in order, without allocating for the
 * common case: an ASCII word is reported as its range and a hash of its
 * lowercased characters (see {@link hashTerm}); a word with other letters as
 * a lowercased string; an unspaced run as a string.
 */
export function scanRanges(
  text: string,
  onAscii: (start: number, end: number, hash: number) => void,
  onWord: (term: string) => void,
  onRun?: (run: string) => void,
): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    let c = text.charCodeAt(i);
    if (c < 0x80) {
      const isWord = (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 65 && c <= 90);
      if (!isWord) {
        i++;
        continue;
      }
      let j = i;
      let hash = 0;
      let ascii = true;
      for (; j < n; j++) {
        let d = text.charCodeAt(j);
        if ((d >= 97 && d <= 122) || (d >= 48 && d <= 57)) {
          hash = (Math.imul(hash, 31) + d) | 0;
          continue;
        }
        if (d >= 65 && d <= 90) {
          d += 32;
          hash = (Math.imul(hash, 31) + d) | 0;
          continue;
        }
        if (d >= 0x80 && !(d >= 0xd800 && d <= 0xdfff) && !isSeparator(d) && !isUnspaced(d)) {
          ascii = false;
          continue;
        }
        break;
      }
      if (j - i <= MAX_TERM) {
        if (ascii) onAscii(i, j, hash);
        else onWord(text.slice(i, j).toLowerCase());
      }
      i = j;
      continue;
    }
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) c = text.codePointAt(i)!;
    const width = c > 0xffff ? 2 : 1;
    if (isUnspaced(c)) {
      let j = i + width;
      while (j < n) {
        let d = text.charCodeAt(j);
        if (d >= 0xd800 && d <= 0xdbff && j + 1 < n) d = text.codePointAt(j)!;
        if (!isUnspaced(d)) break;
        j += d > 0xffff ? 2 : 1;
      }
      onRun?.(text.slice(i, j));
      i = j;
      continue;
    }
    if (isSeparator(c) || (c >= 0xd800 && c <= 0xdfff)) {
      i += width;
      continue;
    }
    // A word that starts with a non-ASCII letter.
    let j = i + width;
    while (j < n) {
      let d = text.charCodeAt(j);
      if (d >= 0xd800 && d <= 0xdbff && j + 1 < n) d = text.codePointAt(j)!;
      const isWordChar = d < 0x80
        ? (d >= 97 && d <= 122) || (d >= 48 && d <= 57) || (d >= 65 && d <= 90)
        : !isSeparator(d) && !isUnspaced(d);
      if (!isWordChar) break;
      j += d > 0xffff ? 2 : 1;
    }
    if (j - i <= MAX_TERM) onWord(text.slice(i, j).toLowerCase());
    i = j;
  }
}

/** The hash {@link scanRanges} computes for an ASCII word, for any term string. */
export function hashTerm(term: string): number {
  let hash = 0;
  for (let k = 0; k < term.length; k++) hash = (Math.imul(hash, 31) + term.charCodeAt(k)) | 0;
  return hash;
}

/** Scans `text` and reports lowercased words and unspaced runs in order. */
export function scan(
  text: string,
  onWord: (term: string) => void,
  onRun?: (run: string) => void,
): void {
  scanRanges(text, (start, end) => onWord(text.slice(start, end).toLowerCase()), onWord, onRun);
}

/** The unigrams and bigrams of an unspaced run. */
export function grams(run: string): string[] {
  const chars = Array.from(run);
  const out: string[] = [...chars];
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1]);
  return out;
}

/** Index terms of `text`, in order (with repeats). */
export function indexTerms(text: string): string[] {
  const out: string[] = [];
  scan(text, (w) => out.push(w), (run) => {
    for (const g of grams(run)) out.push(g);
  });
  return out;
}

/** Words of `text` in order (unspaced runs skipped), for phrase checks. */
export function words(text: string): string[] {
  const out: string[] = [];
  scan(text, (w) => out.push(w));
  return out;
}

/** The pieces of a query word. */
export function queryPieces(text: string): Piece[] {
  const out: Piece[] = [];
  scan(text, (term) => out.push({ kind: "word", term }), (run) => {
    const chars = Array.from(run);
    const g = chars.length === 1 ? chars : chars.slice(1).map((c, i) => chars[i] + c);
    out.push({ kind: "run", text: run.toLowerCase(), grams: g });
  });
  return out;
}
