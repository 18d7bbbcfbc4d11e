/**
 * The words of a block of Markdown as a reader sees them, for the content
 * selection's tests of what a short block says (a prompt to subscribe, a
 * label, a byline): link targets dropped, the markup characters
 * `[ ] * _ ` # > |` read as spaces, a list marker opening a line dropped,
 * spaces collapsed, the ends trimmed.
 *
 * One pass over the block, cutting it into its words and keeping runs of
 * words already one space apart as one slice: the selection reads some
 * 30,000 short blocks of a specification this way, most of them links, and
 * a chain of regular expression replacements (one per step) copied each
 * block four times and replaced every one of its spaces with a space.
 *
 * A list marker is dropped as `/^\s*(?:[-+]|\d+[.)])\s+/gm` drops it, once
 * link targets are gone and markup is spaces: a word `-`, `+`, `12.` or
 * `3)` with a space after it, first on a line (or first in the block), unless
 * the marker before it was dropped and the space between does not end with
 * the line break (that marker's match took the spaces up to this word, and
 * the next match can only start at a line's start).
 *
 * @module
 */

/** What a character is to the pass: part of a word, a space, a line break, or markup. */
const WORD = 0;
const SPACE = 1;
const BREAK = 2;
const MARKUP = 3;

/** The kinds of the ASCII characters, looked up rather than tested in turn. */
const ASCII = new Uint8Array(128);
for (const c of [9, 11, 12, 32]) ASCII[c] = SPACE;
for (const c of [10, 13]) ASCII[c] = BREAK;
for (const c of "[]*_`#>|") ASCII[c.charCodeAt(0)] = MARKUP;

/**
 * The kind of `c`: spaces and line breaks as `\s`, `^` in a multiline
 * expression and `String.prototype.trim` read them, markup as the
 * characters `[ ] * _ ` # > |`.
 */
function kindOf(c: number): number {
  if (c < 128) return ASCII[c];
  if (c === 0x2028 || c === 0x2029) return BREAK;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x202f ||
      c === 0x205f || c === 0x3000 || c === 0xfeff
    ? SPACE
    : WORD;
}

/** Whether `text[start, end)` is a list marker: `-`, `+`, or digits then `.` or `)`. */
function isMarker(text: string, start: number, end: number): boolean {
  const c = text.charCodeAt(start);
  if (end - start === 1) return c === 0x2d || c === 0x2b;
  const last = text.charCodeAt(end - 1);
  if (last !== 0x2e && last !== 0x29) return false;
  for (let i = start; i < end - 1; i++) {
    const d = text.charCodeAt(i);
    if (d < 0x30 || d > 0x39) return false;
  }
  return true;
}

/** The words of `markdown[start, end)` as a reader sees them (see the module notes). */
export function plainText(markdown: string, start: number, end: number): string {
  const text = markdown.slice(start, end);
  const n = text.length;
  let out = "";
  // The words kept last and not yet added to `out`: text[runStart, runEnd), one space apart.
  let runStart = -1;
  let runEnd = -1;
  let first = true; // no word yet
  let dropped = false; // the word before was a list marker, dropped
  let gapBreak = false; // the space before the next word holds a line break
  let gapEndsBreak = false; // ...ends with one
  let closes = true; // a ")" may still follow (none after one "](": none after any later)
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x5d && closes && text.charCodeAt(i + 1) === 0x28) {
      // A link's target: "](...)" reads as the space "]" makes.
      const close = text.indexOf(")", i + 2);
      if (close === -1) closes = false;
      i = close === -1 ? i + 1 : close + 1;
      gapEndsBreak = false;
      continue;
    }
    const kind = c < 128 ? ASCII[c] : kindOf(c);
    if (kind !== WORD) {
      if (kind === BREAK) gapBreak = gapEndsBreak = true;
      else gapEndsBreak = false;
      i++;
      continue;
    }
    let j = i + 1;
    while (j < n) {
      const d = text.charCodeAt(j);
      if ((d < 128 ? ASCII[d] : kindOf(d)) !== WORD) break;
      j++;
    }
    const lineStart: boolean = dropped ? gapEndsBreak : first || gapBreak;
    dropped = lineStart && j < n && isMarker(text, i, j);
    first = gapBreak = gapEndsBreak = false;
    if (!dropped) {
      if (runEnd >= 0 && i === runEnd + 1 && text.charCodeAt(runEnd) === 32) runEnd = j;
      else {
        if (runEnd >= 0) out += (out === "" ? "" : " ") + text.slice(runStart, runEnd);
        runStart = i;
        runEnd = j;
      }
    }
    i = j;
  }
  if (runEnd >= 0) out += (out === "" ? "" : " ") + text.slice(runStart, runEnd);
  return out;
}
