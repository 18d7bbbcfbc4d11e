/**
 * Fenced code in the Markdown the converter writes, as the line scanners of
 * the section tree and the blocks (`sections.ts`, `slices.ts`) see it. A
 * fence may stand behind list indentation or quote markers, and it may open
 * on a list item's own line (`- ```` , `1. ````: an item whose first child is
 * code); only indentation and quote markers stand before a closing one (a
 * line `- ```` inside code is code). {@link ITEM_FENCE} is the opening rule
 * for the scanners that read one line as a string (`plain_text.ts`,
 * `window.ts`).
 *
 * @module
 */

/** Whether a line starting with `c` may start with a list marker (`-`, `*`, `+`, a digit). */
function isMarkerStart(c: number): boolean {
  return c === 45 || c === 42 || c === 43 || (c >= 48 && c <= 57);
}

/**
 * Where the text after the list marker at `p` starts (`- `, `* `, `+ `,
 * `1. `, `12) `: the marker and one space), or -1 when no marker is there.
 */
function afterListMarker(markdown: string, p: number, nl: number): number {
  const c = markdown.charCodeAt(p);
  if (!isMarkerStart(c)) return -1;
  let q = p;
  if (c === 45 || c === 42 || c === 43) q = p + 1;
  else {
    while (q < nl && q - p < 9 && markdown.charCodeAt(q) >= 48 && markdown.charCodeAt(q) <= 57) q++;
    if (q >= nl) return -1;
    const d = markdown.charCodeAt(q);
    if (d !== 46 && d !== 41) return -1;
    q++;
  }
  return q < nl && markdown.charCodeAt(q) === 32 ? q + 1 : -1;
}

/**
 * The run of three or more backticks or tildes that starts the line
 * `[pos, nl)` of `markdown`, after indentation and quote markers (and, when
 * `opening`, list markers): its `[start, end)`, or undefined when the line
 * holds no fence there.
 */
export function fenceRun(
  markdown: string,
  pos: number,
  nl: number,
  opening: boolean,
): [number, number] | undefined {
  let p = pos;
  for (;;) {
    while (p < nl && (markdown.charCodeAt(p) === 32 || markdown.charCodeAt(p) === 62)) p++;
    const after = opening ? afterListMarker(markdown, p, nl) : -1;
    if (after < 0) break;
    p = after;
  }
  const ch = markdown.charCodeAt(p);
  if (ch !== 96 && ch !== 126) return undefined;
  let q = p;
  while (q < nl && markdown.charCodeAt(q) === ch) q++;
  return q - p >= 3 ? [p, q] : undefined;
}

/**
 * The same opening for scanners that read one line as a string: a fence
 * after a list item's marker (`- ````, `1. ````); its group 1 is the run.
 */
export const ITEM_FENCE = /^ {0,3}(?:[-*+]|\d{1,9}[.)])[ \t]+(`{3,}|~{3,})/;
