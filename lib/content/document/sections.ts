/**
 * The section tree of a Markdown document.
 *
 * Headings are ATX lines at column 0 outside fenced code. Each section runs
 * from its heading to the next heading of any level (its own text) and its
 * subtree to the next heading at the same or a shallower level. Slugs are
 * Unicode-aware (letters and digits of every script survive), made unique
 * with `-1`, `-2` suffixes, and stable for a given document. A section whose
 * heading carried an HTML `id` can be addressed by it too.
 *
 * @module
 */
import { checkCancelled } from "../../runtime/cancel.ts";
import { fenceRun } from "./fence.ts";

/** One section. */
export interface Section {
  /** Position in document order. */
  index: number;
  /** Heading level, 1 to 6. */
  level: number;
  /** Heading text. */
  title: string;
  /** Unique slug. */
  slug: string;
  /** The HTML id of the heading, if it had one. */
  id?: string;
  /** Offset of the heading line. */
  start: number;
  /** Offset just past the heading line. */
  bodyStart: number;
  /** Offset of the next heading (any level), or the end. */
  end: number;
  /** Offset of the next heading at this level or above, or the end. */
  subtreeEnd: number;
  /** Index of the parent section, or -1. */
  parent: number;
  /** Indexes of child sections. */
  children: number[];
  /** True when the section has no text of its own (a divider). */
  headerOnly: boolean;
}

const HEADING_LINE = /^(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$/;
const NUMBER_PREFIX = /^(?:[A-Z](?:\.\d+)+|\d+(?:\.\d+)*)\\?\.?\s+/;

/** Lowercases and replaces runs of anything but letters and digits with `-`. */
export function slugify(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "-")
    .replace(/^-+|-+$/g, "");
}

/** The heading text without a leading section number ("13.2.6 Tree" gives "Tree"). */
export function stripNumber(title: string): string {
  const stripped = title.replace(NUMBER_PREFIX, "");
  return stripped === "" ? title : stripped;
}

/** Unescapes the line-start escapes the converter adds (`\#`, `1\.`). */
function cleanTitle(raw: string): string {
  return raw.replace(/\\([#>|*+\-`~=.[\]])/g, "$1").trim();
}

/**
 * Finds the sections of `markdown`. `anchors` (HTML id to offset) lets a
 * heading keep its page id.
 */
export function buildSections(
  markdown: string,
  anchors?: { readonly size: number } & Iterable<[string, number]>,
): Section[] {
  const sections: Section[] = [];
  let fence = "";
  let pos = 0;
  let lines = 0;
  const n = markdown.length;
  checkCancelled();
  while (pos <= n) {
    // A conversion past its deadline, or cancelled, stops here too (a page of text has no HTML).
    if ((++lines & 4095) === 0) checkCancelled();
    let nl = markdown.indexOf("\n", pos);
    if (nl === -1) nl = n;
    const c = markdown.charCodeAt(pos);
    if (c === 35 /* # */ && fence === "") {
      const line = markdown.slice(pos, nl);
      const m = HEADING_LINE.exec(line);
      if (m) {
        const title = cleanTitle(m[2]).replace(/\s+/g, " ");
        if (title !== "") {
          sections.push({
            index: sections.length,
            level: m[1].length,
            title,
            slug: "",
            start: pos,
            bodyStart: Math.min(n, nl + 1),
            end: n,
            subtreeEnd: n,
            parent: -1,
            children: [],
            headerOnly: false,
          });
        }
      }
    } else {
      // Fences may sit behind list indentation or quote markers, and open on a list item's line.
      const run = fenceRun(markdown, pos, nl, fence === "");
      if (run) {
        const [p, q] = run;
        if (fence === "") fence = markdown.slice(p, q);
        else if (
          markdown.charCodeAt(p) === fence.charCodeAt(0) && q - p >= fence.length &&
          markdown.slice(q, nl).trim() === ""
        ) {
          fence = "";
        }
      }
    }
    pos = nl + 1;
  }
  // Ends, parents, children, dividers.
  const open: number[] = [];
  for (let i = 0; i < sections.length; i++) {
    const s = sections[i];
    if (i + 1 < sections.length) s.end = sections[i + 1].start;
    while (open.length > 0 && sections[open[open.length - 1]].level >= s.level) {
      sections[open.pop()!].subtreeEnd = s.start;
    }
    if (open.length > 0) {
      s.parent = open[open.length - 1];
      sections[s.parent].children.push(i);
    }
    open.push(i);
    s.headerOnly = markdown.slice(s.bodyStart, s.end).trim() === "";
  }
  // Slugs: unique, in document order.
  const used = new Set<string>();
  const counters = new Map<string, number>();
  for (const s of sections) {
    const base = slugify(s.title) || "section";
    let slug = base;
    if (used.has(slug)) {
      let k = counters.get(base) ?? 0;
      do slug = `${base}-${++k}`; while (used.has(slug));
      counters.set(base, k);
    }
    used.add(slug);
    s.slug = slug;
  }
  if (anchors && anchors.size > 0 && sections.length > 0) {
    const byStart = new Map(sections.map((s) => [s.start, s]));
    for (const [id, offset] of anchors) {
      const s = byStart.get(offset);
      if (s && s.id === undefined) s.id = id;
    }
  }
  return sections;
}

/** The index of the section holding `offset`, or -1 before the first heading. */
export function sectionAt(sections: readonly Section[], offset: number): number {
  let lo = 0;
  let hi = sections.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (sections[mid].start <= offset) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** The titles from the root down to section `index`. */
export function ancestry(sections: readonly Section[], index: number): string[] {
  const path: string[] = [];
  for (let i = index; i >= 0; i = sections[i].parent) path.unshift(sections[i].title);
  return path;
}
