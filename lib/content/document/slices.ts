/**
 * Semantic slices: the document cut into pieces of about 400 to 500 tokens
 * (1,600 to 2,000 characters) at Markdown boundaries.
 *
 * The document is read as blocks separated by blank lines, with a fenced code
 * block (blank lines and all) and a table each one block. Blocks are packed
 * into a slice until the next would pass 2,000 characters; a heading starts a
 * new slice once the current one holds 800 characters, so sections mostly
 * begin slices. A block larger than a slice is cut at line breaks, and a line
 * larger than a slice at sentence ends or, failing that, at 2,000
 * characters. Slices keep offsets, not copies of the text.
 *
 * Each slice is labelled with the heading ancestry of its first character,
 * and `(i/n)` when one section spans several consecutive slices.
 *
 * @module
 */
import { fenceRun } from "./fence.ts";
import { ancestry, type Section, sectionAt } from "./sections.ts";

/** One slice. */
export interface Slice {
  /** Position in document order. */
  index: number;
  /** Offset of the first character. */
  start: number;
  /** Offset past the last character. */
  end: number;
  /** Section holding the start, or -1. */
  section: number;
  /** Heading path, `A > B > C` (empty before the first heading). */
  ancestry: string;
  /** Position within a run of slices of one section, when the run has several. */
  part?: { of: number; at: number };
}

/** Upper size of a slice in characters. */
export const SLICE_MAX = 2000;
/** A heading starts a new slice once the current one is this long. */
export const SLICE_HEADING_BREAK = 800;

/** A block of Markdown: a paragraph, list, code block, table or heading. */
export interface Block {
  /** Offset of its first character. */
  start: number;
  /** Offset past its last character. */
  end: number;
  /** Whether it is a heading line. */
  heading: boolean;
}

/**
 * Splits Markdown into blocks: blank-line separated, fences and tables kept
 * whole. With `stop`, the split ends at the first block for which it returns
 * true (that block is the last one returned), so a reader of the first few
 * blocks of a long page does not split all of it.
 */
export function blocks(markdown: string, stop?: (block: Block) => boolean): Block[] {
  const out: Block[] = [];
  const n = markdown.length;
  let pos = 0;
  let blockStart = -1;
  let fence = "";
  let heading = false;
  let stopped = false;
  const close = (end: number) => {
    if (blockStart >= 0 && !stopped) {
      const block = { start: blockStart, end, heading };
      out.push(block);
      if (stop?.(block)) stopped = true;
    }
    blockStart = -1;
    heading = false;
  };
  while (pos < n && !stopped) {
    let nl = markdown.indexOf("\n", pos);
    if (nl === -1) nl = n;
    // Fence lines (possibly behind list indentation or quote markers, or opening on a list
    // item's line).
    const found = fenceRun(markdown, pos, nl, fence === "");
    let isFence = false;
    if (found) {
      const [p, q] = found;
      const run = markdown.slice(p, q);
      if (fence === "") {
        isFence = true;
        if (blockStart >= 0 && !heading) close(pos > 0 ? pos - 1 : pos);
        blockStart = pos;
        fence = run;
      } else if (
        run[0] === fence[0] && run.length >= fence.length && markdown.slice(q, nl).trim() === ""
      ) {
        isFence = true;
        fence = "";
        close(nl);
        pos = nl + 1;
        continue;
      }
    }
    if (fence !== "" || isFence) {
      pos = nl + 1;
      continue;
    }
    const blank = nl === pos || markdown.slice(pos, nl).trim() === "";
    if (blank) {
      close(pos > 0 ? pos - 1 : pos);
    } else if (
      markdown.charCodeAt(pos) === 35 && /^#{1,6}[ \t]/.test(markdown.slice(pos, pos + 8))
    ) {
      close(pos > 0 ? pos - 1 : pos);
      blockStart = pos;
      heading = true;
      close(nl);
    } else if (blockStart < 0) {
      blockStart = pos;
    }
    pos = nl + 1;
  }
  if (fence !== "") close(n);
  else close(n);
  return out;
}

/** Cuts an oversize range at line breaks, then sentence ends, then hard. */
function cut(markdown: string, start: number, end: number, into: [number, number][]): void {
  let from = start;
  while (end - from > SLICE_MAX) {
    const window = markdown.slice(from, from + SLICE_MAX);
    let at = window.lastIndexOf("\n");
    if (at < SLICE_MAX / 2) {
      const sentence = Math.max(
        window.lastIndexOf(". "),
        window.lastIndexOf("。"),
        window.lastIndexOf("! "),
        window.lastIndexOf("? "),
      );
      at = sentence >= SLICE_MAX / 2 ? sentence + 1 : -1;
    }
    if (at < SLICE_MAX / 2) {
      at = SLICE_MAX;
      // Never split a surrogate pair.
      const code = markdown.charCodeAt(from + at - 1);
      if (code >= 0xd800 && code <= 0xdbff) at--;
    }
    into.push([from, from + at]);
    from += at;
    while (from < end && (markdown.charCodeAt(from) === 10 || markdown.charCodeAt(from) === 32)) {
      from++;
    }
  }
  if (end > from) into.push([from, end]);
}

/** Cuts `markdown` into slices labelled with their section ancestry. */
export function buildSlices(markdown: string, sections: readonly Section[]): Slice[] {
  const ranges: [number, number][] = [];
  let curStart = -1;
  let curEnd = -1;
  const flush = () => {
    if (curStart >= 0) ranges.push([curStart, curEnd]);
    curStart = -1;
  };
  for (const b of blocks(markdown)) {
    const size = b.end - b.start;
    const cur = curStart < 0 ? 0 : curEnd - curStart;
    if (b.heading && cur >= SLICE_HEADING_BREAK) flush();
    else if (curStart >= 0 && b.start - curStart + size > SLICE_MAX) flush();
    if (size > SLICE_MAX) {
      flush();
      cut(markdown, b.start, b.end, ranges);
      continue;
    }
    if (curStart < 0) curStart = b.start;
    curEnd = b.end;
  }
  flush();

  const slices: Slice[] = ranges.map(([start, end], index) => {
    const section = sectionAt(sections, start);
    return {
      index,
      start,
      end,
      section,
      ancestry: section >= 0 ? ancestry(sections, section).join(" > ") : "",
    };
  });
  // (i/n) for runs of slices in one section.
  for (let i = 0; i < slices.length;) {
    let j = i;
    while (j + 1 < slices.length && slices[j + 1].section === slices[i].section) j++;
    if (j > i) { for (let k = i; k <= j; k++) slices[k].part = { of: j - i + 1, at: k - i + 1 }; }
    i = j + 1;
  }
  return slices;
}

/** A slice's label: its ancestry, with `(i/n)` when its section spans several. */
export function sliceLabel(slice: Slice): string {
  const part = slice.part ? ` (${slice.part.at}/${slice.part.of})` : "";
  return (slice.ancestry || "(before the first heading)") + part;
}
