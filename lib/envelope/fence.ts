/**
 * The fence around external text.
 *
 * ```
 * ┌─ untrusted content [3f9a1c07]
 * │
 * │ # Title
 * │
 * │ first line of the page
 * │
 * └─ untrusted content [3f9a1c07]
 * ```
 *
 * The opening and closing lines hold the server's label and the id, never
 * text from a page: a page's title is the first line inside (`title`),
 * behind the margin like the rest of what the page wrote.
 *
 * Every line between the markers carries the `│` margin, so provenance
 * survives truncation. The markers carry a per-response id (random, 8 hex
 * digits) that the frontmatter repeats as `fence:`; a page cannot know it in
 * advance, so a page that contains a closing line (with any id) cannot end
 * the fence: its line stays behind the margin and its id is wrong. Every
 * kind of line break a renderer might honour (CR, LF, VT, FF, NEL, U+2028,
 * U+2029) starts a new margined line, and other control characters are
 * shown as U+FFFD, so no character in the content can move text out from
 * behind the margin.
 *
 * @module
 */

/** The margin every fenced line starts with. */
export const MARGIN = "│";
/** Start of the opening marker. */
export const OPEN = "┌─";
/** Start of the closing marker. */
export const CLOSE = "└─";
/** The default label of a fence. */
export const DEFAULT_LABEL = "untrusted content";

/** Every line break a renderer might honour. */
export const LINE_BREAK = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/;
// Controls other than tab and the line breaks above.
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u0008\u000e-\u001f\u007f-\u0084\u0086-\u009f]/g;
// Everything that is not printable on one line, for titles and labels: controls, line
// breaks, and the bidirectional marks, embeddings, overrides and isolates that reorder
// how the rest of a line is shown.
const LABEL_UNSAFE =
  // deno-lint-ignore no-control-regex
  /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]+/g;

/** Makes a new fence id: 8 lowercase hex digits from a CSPRNG. */
export function newFenceId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(4));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Makes a title or label safe for one line: control characters, line breaks
 * and bidirectional controls become spaces, runs of whitespace collapse, and
 * the result is capped at `max` characters.
 */
export function sanitizeLabel(text: string, max = 300): string {
  const flat = text.toWellFormed().replace(LABEL_UNSAFE, " ").replace(
    /\s+/g,
    " ",
  ).trim();
  const chars = Array.from(flat);
  return chars.length <= max ? flat : chars.slice(0, Math.max(1, max - 1)).join("") + "…";
}

/** Splits content into display lines and neutralises control characters. */
export function contentLines(content: string): string[] {
  return content.toWellFormed().split(LINE_BREAK).map((line) => line.replace(CONTROL, "\uFFFD"));
}

/** Options of {@link fence}. */
export interface FenceOptions {
  /** The response's fence id (see {@link newFenceId}); all fences of one response share it. */
  id: string;
  /** A title shown as `# title`, the first line inside the fence (page text goes here). */
  title?: string;
  /**
   * The marker label, written by the server (never page text: the opening
   * and closing lines are outside the margin); `untrusted content` by default.
   */
  label?: string;
}

/** Wraps external text in a fence. */
export function fence(content: string, options: FenceOptions): string {
  if (!/^[0-9a-f]{8,32}$/.test(options.id)) {
    throw new Error("fence id must be lowercase hex");
  }
  const label = sanitizeLabel(options.label ?? DEFAULT_LABEL, 120) ||
    DEFAULT_LABEL;
  const marker = `${label} [${options.id}]`;
  const out: string[] = [`${OPEN} ${marker}`, MARGIN];
  if (options.title !== undefined) {
    const title = sanitizeLabel(options.title);
    if (title) out.push(`${MARGIN} # ${title}`, MARGIN);
  }
  const lines = contentLines(content);
  // Drop leading and trailing blank lines; the markers already have blank margins.
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start].trim() === "") start++;
  while (end > start && lines[end - 1].trim() === "") end--;
  for (let i = start; i < end; i++) {
    const line = lines[i].trimEnd();
    out.push(line === "" ? MARGIN : `${MARGIN} ${line}`);
  }
  out.push(MARGIN, `${CLOSE} ${marker}`);
  return out.join("\n");
}

/** One fence found by {@link parseFences}. */
export interface ParsedFence {
  /** The label of the markers. */
  label: string;
  /** The content lines with the margin removed. */
  lines: string[];
}

/**
 * Finds the fences of `id` in a response and returns their content. Lines
 * inside a fence must all carry the margin; anything else is an error. Used
 * by tests and by clients that want the raw text back.
 */
export function parseFences(text: string, id: string): ParsedFence[] {
  const lines = text.split("\n");
  const fences: ParsedFence[] = [];
  const suffix = ` [${id}]`;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!line.startsWith(OPEN + " ") || !line.endsWith(suffix)) continue;
    const label = line.slice(OPEN.length + 1, line.length - suffix.length);
    const close = `${CLOSE} ${label}${suffix}`;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && lines[j] !== close; j++) {
      const inner = lines[j];
      if (inner === MARGIN) body.push("");
      else if (inner.startsWith(MARGIN + " ")) {
        body.push(inner.slice(MARGIN.length + 1));
      } else throw new Error(`line ${j + 1} inside a fence lacks the margin`);
    }
    if (j === lines.length) throw new Error("fence is not closed");
    // Remove the blank margin lines the fence adds at both ends.
    fences.push({ label, lines: body.slice(1, -1) });
    i = j;
  }
  return fences;
}
