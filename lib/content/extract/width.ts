/**
 * How much text a string holds, whatever its script: the rules of
 * main-content extraction weigh blocks by their length and count their
 * words, and both were written for Latin, where a sentence is some sixty
 * characters between spaces and ends with a full stop. A Chinese or Japanese
 * sentence says as much in a third of the characters, with no space between
 * its words; Thai separates neither words nor (with a mark) sentences.
 *
 * - {@link textWidth}: characters as Latin-equivalent characters. A Han
 *   character counts 3.3, a kana 1.4, a Hangul syllable 2.2 and a full-width
 *   punctuation mark 2 (it stands for a mark and the space after it): the
 *   English characters per character of each script in the translated
 *   message catalogues of the Debian packages on this machine (the English
 *   message and its translation; Chinese fitted for Han, then Japanese for
 *   kana and Korean for Hangul, every other character at 1). Alphabetic
 *   scripts (Cyrillic 0.84, Greek 0.75, Thai 1.03, Devanagari 1.01, Arabic
 *   1.25, Hebrew 1.29) are close enough to 1 for thresholds this rough, and
 *   count 1.
 * - {@link wordCount}: words separated by spaces, and in the scripts
 *   written without spaces (Han, kana, Thai, Lao, Khmer, Myanmar, Tibetan)
 *   one word per {@link WORD_WIDTH} of width.
 * - {@link endsSentence}: a sentence's closing mark in any script; in the
 *   scripts that mark no sentence end (Thai, Lao), a line of a few words.
 *
 * @module
 */

/** Width of a Han character (Chinese; kanji; hanja). */
const HAN = 3.3;
/** Width of a kana. */
const KANA = 1.4;
/** Width of a Hangul syllable or jamo. */
const HANGUL = 2.2;
/** Width of a full-width punctuation mark (、。「」（）！？…). */
const CJK_MARK = 2;

/** Latin-equivalent characters per word (English averages five letters a word). */
export const WORD_WIDTH = 5;

/** Width of the character `c` (a UTF-16 code unit; astral Han counted by its high surrogate). */
function widthOf(c: number): number {
  if (c < 0x1100) return 1;
  if (c < 0x1200) return HANGUL; // jamo
  if (c <= 0x3000) return 1; // ... the ideographic space
  if (c < 0x3040) return CJK_MARK;
  if (c < 0x3100) return KANA;
  if (c < 0x3190) return HANGUL; // compatibility jamo
  if (c < 0x3400) return c >= 0x31f0 && c < 0x3200 ? KANA : 1;
  if (c < 0xa000) return HAN;
  if (c < 0xac00) return 1;
  if (c < 0xd7b0) return HANGUL;
  if (c >= 0xd840 && c < 0xd8c0) return HAN; // planes 2-3 (Han extensions), by the high surrogate
  if (c >= 0xf900 && c < 0xfb00) return HAN;
  if (c >= 0xff00 && c < 0xff66) return CJK_MARK;
  if (c >= 0xff66 && c < 0xffa0) return KANA;
  return 1;
}

/** Whether `c` belongs to a script written without spaces between words. */
function unspaced(c: number): boolean {
  return (c >= 0x0e00 && c < 0x0f00) || // Thai, Lao
    (c >= 0x0f00 && c < 0x1100) || // Tibetan, Myanmar
    (c >= 0x1780 && c < 0x1800) || // Khmer
    (c >= 0x3040 && c < 0x3100) || (c >= 0x31f0 && c < 0x3200) || // kana
    (c >= 0x3400 && c < 0xa000) || (c >= 0xf900 && c < 0xfb00) || // Han
    (c >= 0xd840 && c < 0xd8c0) || (c >= 0xff66 && c < 0xffa0);
}

/**
 * Every character {@link widthOf} counts wider than a Latin one, as one
 * character class (width_test.ts checks the two agree on every UTF-16 code
 * unit): the regular expression engine finds a page's few wide characters
 * in a scan of its Markdown many times faster than a loop over every
 * character, and before the loop's code is compiled (a one-shot command)
 * faster still. Written out, not built from `widthOf` when the module loads
 * (a loop over 61,000 code units cost every process 5 ms at start). Without
 * the `u` flag the class and the text are both UTF-16 code units, as
 * `widthOf` reads them (astral Han by its high surrogate).
 */
const WIDE =
  /[\u1100-\u11ff\u3001-\u318f\u31f0-\u31ff\u3400-\u9fff\uac00-\ud7af\ud840-\ud8bf\uf900-\ufaff\uff00-\uff9f]/g;

/**
 * Offset of the first character of `text` at or after `from` that is wider
 * than a Latin one, or -1 when there is none.
 */
export function nextWide(text: string, from = 0): number {
  WIDE.lastIndex = from;
  return WIDE.test(text) ? WIDE.lastIndex - 1 : -1;
}

/** Latin-equivalent characters of `text[start, end)` (see the module notes). */
export function textWidth(text: string, start = 0, end = text.length): number {
  let width = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    // A low surrogate completes a pair already counted by its high surrogate.
    if (c >= 0xdc00 && c < 0xe000) continue;
    width += c < 0x1100 ? 1 : widthOf(c);
  }
  return width;
}

/**
 * Words in `text`: its runs between spaces, where a run in a script written
 * without spaces counts a word per {@link WORD_WIDTH} of its width. With
 * `enough`, the count stops once it reaches that many (`wordCount(t, 5) >= 5`
 * says whether a long paragraph has five words without reading all of it).
 */
export function wordCount(text: string, enough = Infinity): number {
  let words = 0;
  let inRun = false;
  let wide = 0; // width of unspaced characters in the current run
  const close = () => {
    if (inRun) words += wide > 0 ? Math.max(1, Math.round(wide / WORD_WIDTH)) : 1;
    inRun = false;
    wide = 0;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x3000) {
      close();
      if (words >= enough) return words;
      continue;
    }
    inRun = true;
    if (c >= 0x0e00 && unspaced(c)) wide += widthOf(c);
  }
  close();
  return words;
}

// Closing marks of a sentence: Latin, CJK (full and half width), Devanagari
// and Bengali (danda), Arabic and Urdu, Armenian, Ethiopic, Myanmar, Tibetan, Khmer.
const SENTENCE_MARK = /[.!?。！？｡।॥؟۔։።፧။།។]\W*$/u;
// Thai and Lao end a sentence with a space, not a mark.
const UNMARKED = /[\u0e00-\u0eff]/;

/**
 * Whether `text` ends as a sentence ends: with a closing mark, or, in a
 * script that marks no sentence end (Thai, Lao), as a line of three words
 * or more.
 */
export function endsSentence(text: string): boolean {
  if (SENTENCE_MARK.test(text)) return true;
  return UNMARKED.test(text) && wordCount(text, 3) >= 3;
}
