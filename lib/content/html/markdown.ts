/**
 * HTML to Markdown in one streaming pass over htmlparser2's tokens.
 *
 * No DOM is built: elements are handled as they open and close, and the
 * Markdown is written as it goes, which keeps a 15 MB specification within a
 * couple of seconds and a few hundred megabytes. What comes out:
 *
 * - ATX headings (`h1` inside nested sectioning elements takes the depth of
 *   its section, so specifications that use `h1` everywhere still get a tree),
 *   always at column 0 even when the heading sat in a list item or a link,
 *   with block elements inside headings flattened;
 * - paragraphs, lists (nested, ordered with their start number, task boxes),
 *   block quotes, fenced code blocks with their language, GFM tables with
 *   pipes escaped, definition lists, links resolved against the page URL,
 *   images as `[Image: alt]`, `**strong**`, `*em*`, `` `code` ``, `~~del~~`;
 * - nothing from scripts, styles, templates, hidden elements, forms controls,
 *   SVG and other non-text elements;
 * - the `id` of every element mapped to the Markdown offset where it sits, so
 *   a URL fragment resolves to the section holding it.
 *
 * Page furniture (navigation, headers and footers outside the main content,
 * cookie banners) is dropped by a separate, replaceable policy: see
 * {@link FurniturePolicy} and `extract.ts`.
 *
 * @module
 */
import { bitsByName, type HtmlHandler, VOID, walkHtml } from "./tokenizer.ts";
import { AnchorList } from "./anchor_list.ts";
import { checkCancelled } from "../../runtime/cancel.ts";
import { collectBetweenStages, freeArrays, grown } from "../../runtime/memory.ts";
import { COLLECT_MIN_CHARS, type PageHtml, widening } from "./page_html.ts";

/** Decides, per element, whether its whole subtree is page furniture. */
export interface FurniturePolicy {
  /** Attributes the policy reads besides those the converter reads. */
  attributes?: readonly string[];
  /**
   * Called for every element as it opens (`ordinal` counts elements in
   * document order). Return true to drop the element and everything in it.
   */
  drop(tag: string, attrs: Record<string, string>, context: ElementContext): boolean;
  /**
   * Whether an image's alternative text is written (`[Image: alt]`); every
   * alt is written when the policy has no opinion.
   */
  image?(alt: string, context: ImageContext): boolean;
}

/** What a {@link FurniturePolicy} knows about an image. */
export interface ImageContext {
  /** The page's `<title>` so far ("" before it was read). */
  title: string;
}

/** What a {@link FurniturePolicy} knows about an element's position. */
export interface ElementContext {
  /** Element number in document order. */
  ordinal: number;
  /** Whether a `main`, `article` or `[role=main]` encloses it. */
  inMain: boolean;
  /** Nesting depth. */
  depth: number;
  /** Whether the converter reads it as inline (a link, a term, a span: part of a sentence). */
  inline: boolean;
}

/** Result of a conversion. */
export interface HtmlConversion {
  /** The Markdown. */
  markdown: string;
  /** `<title>`, else `og:title`, else the first heading ("" if none). */
  title: string;
  /** `<link rel=canonical>`, resolved. */
  canonicalUrl?: string;
  /** `<meta name=description>` or `og:description`. */
  description?: string;
  /** `<html lang>`. */
  lang?: string;
  /** Element id to Markdown offset. */
  anchors: AnchorList;
  /** Signals that the page is a JavaScript shell. */
  shell: ShellSignals;
  /** Characters of visible text seen (before furniture was dropped). */
  textChars: number;
  /** Characters of text inside dropped furniture. */
  droppedChars: number;
  /** Characters of text the content selector dropped. */
  deselectedChars: number;
}

/** The page's elements, as the content selector sees them (parallel arrays by element number). */
export interface ElementTable {
  /** Parent element, or -1. */
  parent: Int32Array;
  /** Tag name, as its number in `names` (see {@link tagOf}). */
  tag: Int32Array;
  /** Class attribute as written, as its number in `names` (0, "", when none; see {@link hintOf}). */
  hint: Int32Array;
  /** Id attribute as written, as its number in `ids` (0, "", when none; see {@link idOf}). */
  id: Int32Array;
  /** The tag names and class attributes, by number ("" first). */
  names: readonly string[];
  /** The ids, by number ("" first). */
  ids: readonly string[];
  /** Characters of text in the subtree. */
  text: Int32Array;
  /** Characters of text in the subtree inside links off the page. */
  links: Int32Array;
  /**
   * How the subtree's text starts: 1 inside a link off the page, 3 inside one in code font (a
   * term's name), 2 otherwise, 0 no text.
   */
  lead: Uint8Array;
}

/** Element `e`'s tag name. */
export function tagOf(el: ElementTable, e: number): string {
  return el.names[el.tag[e]];
}

/** Element `e`'s class attribute as written ("" when none). */
export function hintOf(el: ElementTable, e: number): string {
  return el.names[el.hint[e]];
}

/** Element `e`'s id ("" when none). */
export function idOf(el: ElementTable, e: number): string {
  return el.ids[el.id[e]];
}

/** One block of the Markdown and where it came from. */
export interface BlockRecord {
  /** Element the block was written for (its paragraph, heading, table...). */
  owner: number;
  /** What kind of block. */
  kind: "text" | "heading" | "code" | "table" | "rule";
  /** Offset where its leading line breaks start. */
  sepStart: number;
  /** Offset of its first character. */
  start: number;
  /** Offset past its last character. */
  end: number;
  /** Characters of text. */
  text: number;
  /** Characters of link text. */
  links: number;
}

/**
 * Chooses which blocks of a converted page are its content. Runs once,
 * after the single parse, on the blocks and element table it produced.
 * Returns one flag per block (true keeps it), or undefined to keep all.
 */
export type ContentSelector = (
  blocks: readonly BlockRecord[],
  elements: ElementTable,
  markdown: string,
) => boolean[] | undefined;

/** Evidence that the page's content is built by scripts. */
export interface ShellSignals {
  /** A `<noscript>` mentions JavaScript. */
  noscriptMentionsJs: boolean;
  /** Ids of framework mount points (`root`, `app`, `__next`, ...) seen. */
  appRoots: string[];
  /** Number of `<script>` elements. */
  scripts: number;
}

/** Options of {@link htmlToMarkdown}. */
export interface ConvertOptions {
  /** The page URL, to resolve links against. */
  baseUrl?: string;
  /** Furniture policy; none by default (everything but non-content elements kept). */
  furniture?: FurniturePolicy;
  /** Content selector run after the parse; none by default. */
  select?: ContentSelector;
}

// Elements whose content is never text for a reader.
const SKIP = new Set([
  "script",
  "style",
  "template",
  "noscript",
  "svg",
  "math",
  "canvas",
  "iframe",
  "object",
  "embed",
  "video",
  "audio",
  "map",
  "select",
  "button",
  "textarea",
  "dialog",
  "frameset",
  "noframes",
  "applet",
  "datalist",
]);

const INLINE = new Set([
  "a",
  "abbr",
  "acronym",
  "b",
  "bdi",
  "bdo",
  "big",
  "cite",
  "code",
  "data",
  "del",
  "dfn",
  "em",
  "font",
  "i",
  "img",
  "input",
  "ins",
  "kbd",
  "label",
  "mark",
  "meter",
  "nobr",
  "output",
  "progress",
  "q",
  "rp",
  "rt",
  "ruby",
  "s",
  "samp",
  "small",
  "span",
  "strike",
  "strong",
  "sub",
  "sup",
  "time",
  "tt",
  "u",
  "var",
  "wbr",
  "br",
  // Custom elements of common spec generators that are inline.
  "emu-xref",
  "emu-nt",
  "emu-t",
  "emu-gmod",
  "emu-gann",
  "emu-gprose",
  "emu-params",
  "emu-opt",
  "emu-val",
  "emu-const",
  "emu-not-ref",
]);

const SECTIONING = new Set(["section", "article", "emu-clause", "emu-annex", "emu-intro"]);

// Elements that make a table cell hold blocks (a layout table).
const LAYOUT_SIGNAL = new Set([
  "p",
  "div",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "ul",
  "ol",
  "dl",
  "pre",
  "blockquote",
  "table",
  "section",
  "article",
  "form",
  "center",
]);

/**
 * What the converter asks of a tag name, as bits (`TAG_*`, and a heading's
 * level above them): one lookup per element where the sets above took five
 * or six (a large page opens and closes hundreds of thousands of elements).
 */
const TAG_SKIP = 1;
const TAG_INLINE = 2;
const TAG_SECTIONING = 4;
const TAG_LAYOUT = 8;
const TAG_VOID = 16;
const TAG_LEVEL_SHIFT = 5;
const TAG_KIND = bitsByName([
  [SKIP, TAG_SKIP],
  [INLINE, TAG_INLINE],
  [SECTIONING, TAG_SECTIONING],
  [LAYOUT_SIGNAL, TAG_LAYOUT],
  [VOID, TAG_VOID],
  ...[1, 2, 3, 4, 5, 6].map((level) => [[`h${level}`], level << TAG_LEVEL_SHIFT] as const),
]);

const UNSAFE_URL = /[()\s<>]/;
const APP_ROOTS = new Set([
  "root",
  "app",
  "__next",
  "__nuxt",
  "__svelte",
  "___gatsby",
  "__gatsby",
  "main-app",
]);
/** The longest of {@link APP_ROOTS}: longer ids are not looked up (WHATWG HTML has 70,000 ids). */
const APP_ROOT_MAX = 9;

/**
 * Inline text being built, with HTML whitespace collapsing. `out` only ever
 * grows by appending, and nothing here reads it back: whether it ends with
 * a line break or spaces is kept on the side, since asking the string
 * itself (`endsWith`, a regular expression) flattens V8's rope of appends
 * and copied the whole paragraph at every link (quadratic in a paragraph of
 * 200,000 links).
 */
class Inline {
  out = "";
  space = false;
  /** `out` ends with a line break (or is empty). */
  private atLineStart = true;
  /** Spaces at the end of `out` (only markup can leave them there). */
  private trailing = 0;

  /** Appends `s` to `out`, keeping the end facts. */
  private append(s: string): void {
    this.out += s;
    const last = s.charCodeAt(s.length - 1);
    this.atLineStart = last === 10;
    if (last !== 32) this.trailing = 0;
    else {
      let n = 0;
      while (n < s.length && s.charCodeAt(s.length - 1 - n) === 32) n++;
      this.trailing = n === s.length ? this.trailing + n : n;
    }
  }

  /** Adds text whose whitespace is already collapsed to single spaces. */
  text(s: string): void {
    if (s === "") return;
    if (s.charCodeAt(0) === 32) {
      this.space = true;
      s = s.slice(1);
      if (s === "") return;
    }
    if (this.space && !this.atLineStart) this.append(" ");
    this.space = false;
    if (s.charCodeAt(s.length - 1) === 32) {
      this.space = true;
      s = s.slice(0, -1);
    }
    this.append(s);
  }

  /** Adds markup (no whitespace handling of its own). */
  mark(s: string): void {
    if (this.space && !this.atLineStart) this.append(" ");
    this.space = false;
    if (s !== "") this.append(s);
  }

  /** A hard line break. */
  newline(): void {
    this.space = false;
    if (this.trailing > 0) this.out = this.out.slice(0, this.out.length - this.trailing);
    this.trailing = 0;
    this.append("\n");
  }
}

/**
 * Inline markup being gathered: a link, emphasis, a code span, a heading, a
 * table cell or the page's title. Every kind has every field (those of
 * other kinds unused), so all captures share one shape: reading `kind` or
 * `inline` of the innermost one is one map check, where six shapes made
 * each read a megamorphic lookup.
 */
interface Capture {
  kind: "link" | "emph" | "code" | "heading" | "cell" | "title";
  inline: Inline;
  /** A link's target, its images, whether it has words of its own. */
  href: string;
  images: number;
  words: boolean;
  /** A link's element: its depth in the frames, and its ordinal (which names it). */
  depth: number;
  ordinal: number;
  /** Emphasis's marker (`**`, `*`, `~~`). */
  marker: string;
  /** Links inside a code span. */
  links: { text: string; href: string }[] | undefined;
  /** A heading's level, ids and element. */
  level: number;
  ids: string[] | undefined;
  eid: number;
}

/** A capture of `kind` (see {@link Capture}); emphasis with its `marker`. */
function capture(kind: Capture["kind"], marker = ""): Capture {
  return {
    kind,
    inline: new Inline(),
    href: "",
    images: 0,
    words: false,
    depth: 0,
    ordinal: 0,
    marker,
    links: undefined,
    level: 0,
    ids: undefined,
    eid: -1,
  };
}

interface Container {
  kind: "quote" | "item";
  /** No block written inside it yet (its opening needs no quote marker before it). */
  fresh?: boolean;
  /** For items: marker still to print on the item's first line. */
  marker?: string;
  indent: string;
}

interface ListState {
  ordered: boolean;
  next: number;
  items: number;
}

interface TableState {
  eid: number;
  /** A layout table: its cells hold blocks, so it is read as blocks, not as a grid. */
  layout?: boolean;
  rows: string[][];
  current?: string[];
  flatten: boolean;
  hasHead: boolean;
}

// What an open element is to the converter: the bits of its frame (`frameFlags` in
// htmlToMarkdown), where each element had an object of fifteen fields.
/** A block-level element (paragraph owners are these). */
const F_BLOCK = 1;
const F_SKIP = 2;
const F_FURNITURE = 4;
const F_CAPTURE = 8;
const F_CONTAINER = 16;
const F_LIST = 32;
const F_TABLE = 64;
const F_ROW = 128;
const F_PRE = 256;
const F_MAIN = 512;
const F_SECTIONING = 1024;
const F_ABANDONED = 2048;
/** An `<a href>` off the page, captured or not. */
const F_OFF_ANCHOR = 4096;
/** Neither inline nor void: its end is a block boundary (its kind, kept from its start tag). */
const F_ENDS_BLOCK = 8192;

const WS = /[ \t\n\r\f]+/g;

/**
 * `s` with each run of HTML whitespace made one space: `s` itself when it
 * has nothing to collapse (no tab, line break or form feed, no two spaces
 * in a row), as most pieces of inline text have not, which spares them the
 * regular expression and a copy.
 */
function collapseSpace(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 32) {
      const d = s.charCodeAt(i + 1);
      if (d === 32 || d === 9 || d === 10 || d === 13 || d === 12) return s.replace(WS, " ");
    } else if (c === 9 || c === 10 || c === 13 || c === 12) return s.replace(WS, " ");
  }
  return s;
}

// Nesting limits: deeper lists and quotes do not indent further, deeper
// inline markup is kept as plain text, so hostile nesting cannot blow up the output.
const MAX_CONTAINERS = 16;
const MAX_CAPTURES = 32;

/**
 * A start tag's attributes as the converter reads them: a field for each
 * attribute it reads, undefined where the element has none (the walk fills
 * one for each element that has any, see `walkHtml`). Every element's
 * record then has one shape, and each read of `attrs.id` or `attrs.class`
 * is one check, where records of a dozen shapes (the attributes each
 * element happens to have, in its order) made every read a megamorphic
 * look-up.
 */
const attributeRecord = (): Record<string, string> =>
  ({
    id: undefined,
    name: undefined,
    class: undefined,
    href: undefined,
    alt: undefined,
    lang: undefined,
    "data-lang": undefined,
    content: undefined,
    property: undefined,
    rel: undefined,
    role: undefined,
    hidden: undefined,
    "aria-hidden": undefined,
    style: undefined,
    type: undefined,
    checked: undefined,
    start: undefined,
    colspan: undefined,
  }) as unknown as Record<string, string>;

/** Attributes the converter reads; the tokenizer skips all others. */
const ATTRIBUTES = Object.keys(attributeRecord());

/**
 * The last item of `list`, or undefined. Not `list[list.length - 1]`: on an empty list that
 * reads the property "-1", which V8 looks up as a name, a slow lookup.
 */
function last<T>(list: readonly T[]): T | undefined {
  return list.length > 0 ? list[list.length - 1] : undefined;
}

function escapeLineStart(line: string): string {
  const c = line.charCodeAt(0);
  // # > - + * digits ` ~ | = and a table-like leading pipe.
  if (c === 35 || c === 62 || c === 124) return "\\" + line;
  if ((c === 45 || c === 43 || c === 42) && (line.length === 1 || line.charCodeAt(1) === 32)) {
    return "\\" + line;
  }
  if (c === 61 && /^=+\s*$/.test(line)) return "\\" + line;
  if ((c === 96 || c === 126) && /^(`{3,}|~{3,})/.test(line)) return "\\" + line;
  if (c >= 48 && c <= 57) {
    const m = /^(\d{1,9})([.)])( |$)/.exec(line);
    if (m) return m[1] + "\\" + line.slice(m[1].length);
  }
  return line;
}

function languageOf(attrs: Record<string, string>): string {
  const cls = `${attrs.class ?? ""} ${attrs["data-lang"] ?? ""} ${attrs.lang ?? ""}`;
  const m =
    /(?:^|\s)(?:language-|lang-|highlight-source-|highlight-|brush:\s*)([\w+#.-]+)/i.exec(cls) ??
      /(?:^|\s)(?:data-lang=)?([\w+#-]+)$/.exec((attrs["data-lang"] ?? "").trim());
  if (!m) return "";
  const lang = m[1].toLowerCase();
  return lang === "default" || lang === "none" || lang === "text" || lang === "plain" ? "" : lang;
}

function isHidden(attrs: Record<string, string>): boolean {
  if (attrs.hidden !== undefined) return true;
  if (attrs["aria-hidden"] === "true") return true;
  const style = attrs.style;
  return style !== undefined && /(?:display\s*:\s*none|visibility\s*:\s*hidden)/i.test(style);
}

/**
 * The Markdown as it is written, in pieces joined into flat chunks of a
 * few thousand characters as they come, then into one string at the end.
 * A large page writes a hundred thousand pieces and more (many of them
 * views of the page's source): kept until the end, they outlived the young
 * generation (14 MB for 12 MB of text on WHATWG HTML, 121,600 pieces), and
 * lived on beside the joined Markdown through the content selection.
 * Joined as they come, each dies young, and what lives is the text itself,
 * let go once taken.
 */
class Written {
  #pieces: string[] = [];
  #chunks: string[] = [];
  #pending = 0;

  /** Appends `s`. */
  push(s: string): void {
    this.#pieces.push(s);
    this.#pending += s.length;
    if (this.#pending >= CHUNK_CHARS) this.#seal();
  }

  #seal(): void {
    if (this.#pieces.length > 0) this.#chunks.push(this.#pieces.join(""));
    this.#pieces = [];
    this.#pending = 0;
  }

  /**
   * Whether anything but white space was written. The pieces not yet
   * joined are joined first, so that none of them is a view into the page's
   * source any more (see `detached`).
   */
  hasText(): boolean {
    this.#seal();
    return this.#chunks.some((c) => /\S/.test(c));
  }

  /** Everything written, as one string; what was held is let go. */
  take(): string {
    this.#seal();
    const text = this.#chunks.join("");
    this.#chunks = [];
    return text;
  }
}

/**
 * `s` as a string of its own. V8 keeps a substring of 13 characters or more
 * as a view into the string it was cut from, so one id or class name kept
 * from the page's source would keep all of the source alive after its walk
 * (see `PageHtml`); a concatenation, once read, is written out anew.
 */
export function detached(s: string): string {
  return s.length < 13 ? s : (" " + s).slice(1);
}

function detachedOrNone(s: string | undefined): string | undefined {
  return s === undefined ? s : detached(s);
}

/** Up to this many elements the element table doubles as it grows; beyond, it grows by a quarter. */
const ELEMENTS_DOUBLING = 1 << 16;

/** Characters of Markdown joined into one chunk (see {@link Written}). */
const CHUNK_CHARS = 16_384;

/** Converts a page. Never throws on malformed HTML. */
export function htmlToMarkdown(
  page: string | PageHtml,
  options: ConvertOptions = {},
): HtmlConversion {
  // The only reference to the source this conversion keeps (emptied after the walk, see PageHtml).
  let html = typeof page === "string" ? page : page.text;
  const large = html.length >= COLLECT_MIN_CHARS;
  let base: URL | undefined;
  try {
    base = options.baseUrl ? new URL(options.baseUrl) : undefined;
  } catch {
    base = undefined;
  }
  const furniture = options.furniture;

  const written = new Written();
  let length = 0;
  let pendingNewlines = 0; // owed before the next block's first line
  let started = false;
  const containers: Container[] = [];
  const lists: ListState[] = [];
  const tables: TableState[] = [];
  const captures: Capture[] = [];
  // The open elements, in parallel arrays by depth rather than an object each (a large page
  // opens hundreds of thousands): the frame's bits (F_*), its element number (-1 for skipped
  // elements), its ordinal, its tag and attributes.
  let frames = 0;
  let frameFlags = new Int32Array(256);
  let frameEid = new Int32Array(256);
  let frameOrdinal = new Int32Array(256);
  const frameTag: string[] = [];
  const frameAttrs: Record<string, string>[] = [];
  const growFrames = () => {
    frameFlags = grown(frameFlags, frames * 2);
    frameEid = grown(frameEid, frames * 2);
    frameOrdinal = grown(frameOrdinal, frames * 2);
  };
  let paragraph = new Inline();
  let skipDepth = 0;
  let furnitureDepth = 0;
  let preDepth = 0;
  let pre: { text: string; lang: string; eid: number } | undefined;
  let mainDepth = 0;
  let sectionDepth = 0;
  let ordinal = 0;
  let textChars = 0;
  let droppedChars = 0;

  let title = "";
  let titleFromHeading = "";
  let ogTitle = "";
  let canonicalUrl: string | undefined;
  let description: string | undefined;
  let lang: string | undefined;
  const anchors = new AnchorList();
  const shell: ShellSignals = { noscriptMentionsJs: false, appRoots: [], scripts: 0 };
  let inTitle = false;
  let noscriptDepth = 0;

  const emit = (s: string) => {
    written.push(s);
    length += s.length;
  };

  // The element table and block records the content selector reads.
  // The element table, in typed arrays grown by doubling (a page can have
  // hundreds of thousands of elements).
  let capacity = 1024;
  let elParent = new Int32Array(capacity);
  let elText = new Int32Array(capacity);
  let elLinks = new Int32Array(capacity);
  let elLead = new Uint8Array(capacity);
  let elBlock = new Int32Array(capacity); // the innermost block-level element holding it, or itself
  // Tag names and class attributes as numbers into `names`, ids into `ids` (0: none): a number
  // stored in a typed array where a string pushed to an array that outlives the young
  // generation cost a write barrier, three per element.
  let elTag = new Int32Array(capacity);
  let elHint = new Int32Array(capacity);
  let elId = new Int32Array(capacity);
  const names: string[] = [""];
  const numbers = new Map<string, number>([["", 0]]);
  /** The number of a tag name or class attribute (a copy of its own, see `detached`). */
  const numberOf = (s: string): number => {
    let k = numbers.get(s);
    if (k === undefined) {
      k = names.length;
      const copy = detached(s);
      names.push(copy);
      numbers.set(copy, k);
    }
    return k;
  };
  const ids: string[] = [""];
  let elCount = 0;
  const growElements = () => {
    // Doubling, then by a quarter once the table is large: a doubling late in a long walk left
    // nearly half of a large table unused (WHATWG HTML's 271,000 elements in room for 524,288).
    capacity = capacity < ELEMENTS_DOUBLING ? capacity * 2 : Math.ceil(capacity * 1.25);
    const old = [elParent, elText, elLinks, elLead, elBlock, elTag, elHint, elId];
    elParent = grown(elParent, capacity);
    elText = grown(elText, capacity);
    elLinks = grown(elLinks, capacity);
    elLead = grown(elLead, capacity);
    elBlock = grown(elBlock, capacity);
    elTag = grown(elTag, capacity);
    elHint = grown(elHint, capacity);
    elId = grown(elId, capacity);
    // The outgrown arrays are given back now: outside V8's heap, left to the collector they
    // stayed until the next full collection (the last doubling comes late in a long walk,
    // whose end is the conversion's peak).
    freeArrays(old);
  };
  const blocks: BlockRecord[] = [];
  let current = -1; // innermost open element
  let currentBlock = -1; // innermost open block-level element
  let paraOwner = -1; // element the current paragraph's first text came from
  let paraText = 0;
  let paraLinks = 0;

  let linkDepth = 0; // open <a> captures (text inside counts as link text)

  let offAnchorDepth = 0; // ...of which point off the page
  let opaqueCaptures = 0; // open heading, cell and title captures (their text is not paragraph text)

  const prefixFor = (first: boolean): string => {
    let p = "";
    for (const c of containers) {
      if (c.kind === "quote") p += "> ";
      else if (first && c.marker !== undefined) {
        p += c.marker;
        c.marker = undefined;
      } else p += c.indent;
    }
    return p;
  };

  /** Writes a block's lines with container prefixes, after the owed blank lines. */
  const writeBlock = (
    lines: string[],
    escape: boolean,
    owner: number = current,
    kind: BlockRecord["kind"] = "text",
    text = 0,
    links = 0,
  ) => {
    const sepStart = length;
    if (started) {
      let quotes = 0;
      for (const c of containers) if (c.kind === "quote" && !c.fresh) quotes++;
      const quotePrefix = quotes > 0 ? Array(quotes).fill(">").join(" ") : "";
      for (let i = 0; i < pendingNewlines; i++) emit(i === 0 ? "\n" : quotePrefix + "\n");
    }
    for (const c of containers) c.fresh = undefined;
    started = true;
    pendingNewlines = 0;
    const start = length;
    for (let i = 0; i < lines.length; i++) {
      const line = escape ? escapeLineStart(lines[i]) : lines[i];
      emit((i === 0 ? "" : "\n") + (prefixFor(i === 0) + line).trimEnd());
    }
    pendingNewlines = 2;
    blocks.push({ owner, kind, sepStart, start, end: length, text, links });
  };

  const flushParagraph = () => {
    const text = paragraph.out.trim();
    paragraph = new Inline();
    const owner = paraOwner >= 0 ? paraOwner : currentBlock;
    const chars = paraText;
    const links = paraLinks;
    paraOwner = -1;
    paraText = paraLinks = 0;
    if (text === "") return;
    writeBlock(text.split("\n").map((l) => l.trim()), true, owner, "text", chars, links);
  };

  const blockBoundary = () => {
    if (captures.length > 0) {
      const top = captures[captures.length - 1];
      if (top.kind === "cell" || top.kind === "heading" || top.kind === "title") {
        top.inline.text(" ");
        return;
      }
    }
    flushParagraph();
  };

  /** Where inline text goes now. */
  const sink = (): Inline => captures.length > 0 ? captures[captures.length - 1].inline : paragraph;

  const inHeading = () => headingCapture !== undefined;

  const resolved = new Map<string, string | undefined>();
  const resolve = (href: string): string | undefined => {
    const h = href.trim();
    if (h === "" || h.charCodeAt(0) === 35 /* # */) return h === "" ? undefined : h;
    let out = resolved.get(h);
    if (out !== undefined || resolved.has(h)) return out;
    if (/^\s*(javascript|vbscript|data):/i.test(h)) out = undefined;
    else {
      try {
        out = base ? new URL(h, base).href : new URL(h).href;
      } catch {
        out = h.replace(/\s/g, "%20");
      }
    }
    resolved.set(h, out);
    return out;
  };

  let headingCapture: Capture | undefined;
  /** Records an id (of its own: see `detached`) where the next block starts. */
  const recordAnchor = (id: string) => {
    if (headingCapture) headingCapture.ids!.push(id);
    else anchors.add(id, length + (started ? pendingNewlines : 0));
  };

  const closeCapture = (): Capture => captures.pop()!;

  const handler: HtmlHandler = {
    open(name, attrs) {
      if (frames === frameFlags.length) growFrames();
      const depth = frames++;
      ordinal++;
      frameTag[depth] = name;
      frameAttrs[depth] = attrs;
      frameOrdinal[depth] = ordinal;
      frameEid[depth] = -1;
      if (skipDepth > 0) {
        frameFlags[depth] = F_SKIP;
        skipDepth++;
        return;
      }
      frameFlags[depth] = 0;
      if (name === "title" && !inTitle && title === "") {
        inTitle = true;
        captures.push(capture("title"));
        opaqueCaptures++;
        frameFlags[depth] = F_CAPTURE;
        return;
      }
      if (name === "meta") {
        const prop = (attrs.property ?? attrs.name ?? "").toLowerCase();
        if (prop === "og:title" && attrs.content) ogTitle = detached(attrs.content.trim());
        else if (
          (prop === "description" || prop === "og:description") && attrs.content && !description
        ) {
          description = detached(attrs.content.replace(WS, " ").trim());
        }
        return;
      }
      if (name === "link") {
        if (/(^|\s)canonical(\s|$)/i.test(attrs.rel ?? "") && attrs.href && !canonicalUrl) {
          canonicalUrl = detachedOrNone(resolve(attrs.href));
        }
        return;
      }
      if (name === "base" && attrs.href) {
        try {
          base = new URL(attrs.href, base);
        } catch { /* keep the page URL */ }
        return;
      }
      if (name === "html" && attrs.lang) lang = detached(attrs.lang);
      if (name === "script") shell.scripts++;
      if (name === "noscript") noscriptDepth++;
      const id = attrs.id;
      if (id && id.length <= APP_ROOT_MAX && APP_ROOTS.has(id)) shell.appRoots.push(id);

      const kind = TAG_KIND.get(name) ?? 0;
      if ((kind & TAG_SKIP) !== 0 || isHidden(attrs)) {
        frameFlags[depth] = F_SKIP;
        skipDepth = 1;
        return;
      }
      const isMain = name === "main" || name === "article" || attrs.role === "main";
      if (
        furniture &&
        furniture.drop(name, attrs, {
          ordinal,
          inMain: mainDepth > 0,
          depth: frames,
          inline: (kind & TAG_INLINE) !== 0,
        })
      ) {
        frameFlags[depth] = F_SKIP | F_FURNITURE;
        skipDepth = 1;
        furnitureDepth = 1;
        return;
      }
      const inline = (kind & TAG_INLINE) !== 0;
      let flags = 0;
      if (isMain) {
        flags |= F_MAIN;
        mainDepth++;
      }
      // The id, kept in the element table and the anchors: one copy of its own for both.
      const ownId = id ? detached(id) : "";
      if (elCount === capacity) growElements();
      const eid = elCount++;
      elParent[eid] = current;
      elTag[eid] = numberOf(name);
      const hint = attrs.class;
      elHint[eid] = hint ? numberOf(hint) : 0;
      if (ownId) {
        elId[eid] = ids.length;
        ids.push(ownId);
      }
      frameEid[depth] = eid;
      current = eid;
      if (!inline) {
        flags |= F_BLOCK;
        currentBlock = eid;
      }
      elBlock[eid] = currentBlock;
      if ((kind & TAG_SECTIONING) !== 0) {
        flags |= F_SECTIONING;
        sectionDepth++;
      }
      if ((kind & (TAG_INLINE | TAG_VOID)) === 0) flags |= F_ENDS_BLOCK;
      frameFlags[depth] = flags;
      const heading = kind >> TAG_LEVEL_SHIFT;
      // A heading's ids are recorded once it is open, so they point at its line.
      if (heading === 0 || preDepth > 0) {
        if (ownId) recordAnchor(ownId);
        else if (attrs.name && name === "a") recordAnchor(detached(attrs.name));
      }

      if (preDepth > 0) {
        if (name === "br") pre!.text += "\n";
        else if (name === "code" && !pre!.lang) pre!.lang = languageOf(attrs);
        return;
      }

      if (heading !== 0) {
        let level = heading;
        if (level === 1 && sectionDepth > 0) level = Math.min(6, sectionDepth);
        // A heading inside a link: the link is dropped, the heading kept.
        for (const c of captures) if (c.kind === "link") c.words = true;
        abandonLinks();
        flushParagraph();
        const c = capture("heading");
        c.level = level;
        c.ids = ownId ? [ownId] : [];
        c.eid = eid;
        captures.push(c);
        opaqueCaptures++;
        headingCapture = c;
        frameFlags[depth] |= F_CAPTURE;
        return;
      }

      if (!inline) {
        // A block inside a link turns the link into plain content.
        abandonLinks();
        if ((kind & TAG_LAYOUT) !== 0) layoutTable();
      }

      switch (name) {
        case "br": {
          const top = last(captures);
          if (top?.kind === "cell") top.inline.mark("<br>");
          else if (top?.kind === "heading" || top?.kind === "title") top.inline.text(" ");
          else sink().newline();
          return;
        }
        case "wbr":
          return;
        case "hr":
          blockBoundary();
          if (captures.length === 0) writeBlock(["* * *"], false, current, "rule");
          return;
        case "img": {
          const alt = (attrs.alt ?? "").replace(WS, " ").trim();
          const top = last(captures);
          if (top?.kind === "link") top.images++;
          if (!alt || inHeading()) return;
          if (furniture?.image && !furniture.image(alt, { title })) return;
          // An image opening a paragraph belongs to the element it is in, not to the block
          // (a figure's caption) whose text comes next.
          if (captures.length === 0 && paraOwner < 0) paraOwner = currentBlock;
          sink().mark(`[Image: ${alt.replace(/[[\]]/g, "")}]`);
          return;
        }
        case "input": {
          if ((attrs.type ?? "").toLowerCase() === "checkbox") {
            sink().mark(attrs.checked !== undefined ? "[x]" : "[ ]");
            sink().text(" ");
          }
          return;
        }
        case "a": {
          if (attrs.href !== undefined) {
            if (!attrs.href.trimStart().startsWith("#")) {
              frameFlags[depth] |= F_OFF_ANCHOR;
              offAnchorDepth++;
            }
          }
          if (inHeading() || captures.length >= MAX_CAPTURES) return;
          const href = attrs.href !== undefined ? resolve(attrs.href) : undefined;
          if (href === undefined) return;
          const link = capture("link");
          link.href = href;
          link.depth = depth;
          link.ordinal = ordinal;
          captures.push(link);
          linkDepth++;

          frameFlags[depth] |= F_CAPTURE;
          return;
        }
        case "strong":
        case "b":
        case "em":
        case "i":
        case "del":
        case "s":
        case "strike": {
          if (inHeading() || captures.length >= MAX_CAPTURES) return;
          const marker = name === "strong" || name === "b"
            ? "**"
            : name === "em" || name === "i"
            ? "*"
            : "~~";
          captures.push(capture("emph", marker));
          frameFlags[depth] |= F_CAPTURE;
          return;
        }
        case "code":
        case "kbd":
        case "samp":
        case "tt": {
          if (inHeading() || captures.length >= MAX_CAPTURES) return;
          captures.push(capture("code"));
          frameFlags[depth] |= F_CAPTURE;
          return;
        }
        case "pre": {
          blockBoundary();
          if (captures.some((c) => c.kind === "cell")) {
            // Code inside a table cell stays inline.
            captures.push(capture("code"));
            frameFlags[depth] |= F_CAPTURE;
            return;
          }
          frameFlags[depth] |= F_PRE;
          preDepth = 1;
          let lang = languageOf(attrs);
          for (let i = depth - 1; !lang && i >= Math.max(0, depth - 3); i--) {
            lang = languageOf(frameAttrs[i]);
          }
          pre = { text: "", lang, eid };
          return;
        }
        case "ul":
        case "ol":
        case "menu": {
          blockBoundary();
          frameFlags[depth] |= F_LIST;
          // A list nested in an item follows the item's text directly.
          if (containers.length > 0 && containers[containers.length - 1].kind === "item") {
            pendingNewlines = Math.min(pendingNewlines, 1);
          }
          const start = Number(attrs.start);
          lists.push({
            ordered: name === "ol",
            next: Number.isFinite(start) ? start : 1,
            items: 0,
          });
          return;
        }
        case "li": {
          blockBoundary();
          if (captures.length > 0 || containers.length >= MAX_CONTAINERS) return;
          const list = last(lists) ?? { ordered: false, next: 1, items: 0 };
          const marker = list.ordered ? `${list.next++}. ` : "- ";
          containers.push({ kind: "item", marker, indent: " ".repeat(marker.length) });
          frameFlags[depth] |= F_CONTAINER;
          // Items of one list sit on consecutive lines; the list itself is set off by a blank line.
          if (list.items++ > 0) pendingNewlines = Math.min(pendingNewlines, 1);
          return;
        }
        case "blockquote": {
          blockBoundary();
          if (captures.length > 0 || containers.length >= MAX_CONTAINERS) return;
          containers.push({ kind: "quote", indent: "", fresh: true });
          frameFlags[depth] |= F_CONTAINER;
          return;
        }
        case "table": {
          blockBoundary();
          const outer = last(tables);
          const flatten = captures.length > 0 || (outer !== undefined && !outer.layout);
          tables.push({ eid, rows: [], flatten, hasHead: false });
          frameFlags[depth] |= F_TABLE;
          return;
        }
        case "tr": {
          const table = last(tables);
          if (!table || table.layout) return blockBoundary();
          if (table.flatten) {
            sink().text(" ");
            return;
          }
          table.current = [];
          table.rows.push(table.current);
          frameFlags[depth] |= F_ROW;
          return;
        }
        case "th":
        case "td": {
          const table = last(tables);
          if (!table || table.layout) return blockBoundary();
          if (table.flatten) {
            sink().text(" ");
            return;
          }
          if (name === "th" && table.rows.length <= 1) table.hasHead = true;
          if (!table.current) {
            table.current = [];
            table.rows.push(table.current);
          }
          captures.push(capture("cell"));
          opaqueCaptures++;
          frameFlags[depth] |= F_CAPTURE;
          const span = Math.min(50, Number(attrs.colspan) || 1);
          for (let i = 1; i < span; i++) table.current.push("");
          return;
        }
        case "dt":
        case "summary":
          blockBoundary();
          if (captures.length === 0) {
            captures.push(capture("emph", "**"));
            frameFlags[depth] |= F_CAPTURE;
          }
          return;
        default:
          if (!inline) blockBoundary();
      }
    },

    text(raw) {
      if (skipDepth > 0) {
        if (furnitureDepth > 0) droppedChars += raw.length;
        if (noscriptDepth > 0 && /javascript|enable js/i.test(raw)) shell.noscriptMentionsJs = true;
        return;
      }
      if (preDepth > 0) {
        pre!.text += raw;
        textChars += raw.length;
        if (current >= 0) elText[current] += raw.length;
        return;
      }
      const text = collapseSpace(raw);
      if (text === " " || text === "") {
        if (text === " ") sink().text(" ");
        return;
      }
      textChars += text.length;
      if (current >= 0) {
        elText[current] += text.length;
        if (offAnchorDepth > 0) elLinks[current] += text.length;
        // Whether each element's text starts inside a link off the page (a teaser's title), or
        // inside one in code font (a term named by its definition's link).
        if (elLead[current] === 0) {
          const lead = offAnchorDepth === 0 ? 2 : captures.some((c) => c.kind === "code") ? 3 : 1;
          for (let a = current; a >= 0 && elLead[a] === 0; a = elParent[a]) elLead[a] = lead;
        }
      }
      if (opaqueCaptures === 0) {
        // Text bound for the paragraph being built.
        if (paraOwner < 0) paraOwner = currentBlock;
        paraText += text.length;
        if (linkDepth > 0) paraLinks += text.length;
      }
      const top = last(captures);
      if (top?.kind === "link") top.words = true;
      sink().text(text);
    },

    close(name) {
      if (frames === 0) return;
      const depth = --frames;
      const flags = frameFlags[depth];
      const eid = frameEid[depth];
      if ((flags & F_SKIP) !== 0) {
        skipDepth--;
        if ((flags & F_FURNITURE) !== 0) furnitureDepth = 0;
        if (name === "noscript") noscriptDepth = Math.max(0, noscriptDepth - 1);
        return;
      }
      if (eid >= 0) {
        const parent = elParent[eid];
        if (parent >= 0) {
          elText[parent] += elText[eid];
          elLinks[parent] += elLinks[eid];
        }
        current = parent;
        // Back to the nearest enclosing block-level element.
        if ((flags & F_BLOCK) !== 0) currentBlock = parent >= 0 ? elBlock[parent] : -1;
      }
      if (name === "noscript") noscriptDepth = Math.max(0, noscriptDepth - 1);
      if ((flags & F_ABANDONED) !== 0) linkDepth--;

      if ((flags & F_OFF_ANCHOR) !== 0) offAnchorDepth--;
      if ((flags & F_MAIN) !== 0) mainDepth--;
      if ((flags & F_SECTIONING) !== 0) sectionDepth--;
      if ((flags & F_PRE) !== 0) {
        preDepth = 0;
        const code = pre!.text.replace(/^\r?\n/, "").replace(/\s+$/, "");
        const lang = pre!.lang;
        const preEid = pre!.eid;
        pre = undefined;
        if (code !== "") {
          let fence = "```";
          while (code.includes(fence)) fence += "`";
          writeBlock(
            [fence + lang, ...code.split(/\r\n|\r|\n/), fence],
            false,
            preEid,
            "code",
            code.length,
          );
        }
        return;
      }
      if (preDepth > 0) return;
      if ((flags & F_CAPTURE) !== 0) {
        closeCaptureFrame();
        return;
      }
      if ((flags & F_CONTAINER) !== 0) {
        flushParagraph();
        const c = containers.pop();
        if (c?.kind === "item" && c.marker !== undefined) {
          // An empty item still shows its marker.
          containers.push(c);
          writeBlock([""], false);
          containers.pop();
        }
        pendingNewlines = 2;
        return;
      }
      if ((flags & F_LIST) !== 0) {
        flushParagraph();
        lists.pop();
        pendingNewlines = 2;
        return;
      }
      if ((flags & F_ROW) !== 0) {
        const table = last(tables);
        if (table) table.current = undefined;
        return;
      }
      if ((flags & F_TABLE) !== 0) {
        const table = tables.pop()!;
        if (!table.flatten && !table.layout) writeTable(table);
        return;
      }
      if ((flags & F_ENDS_BLOCK) !== 0) blockBoundary();
    },
  };

  /**
   * A block-level element inside a table cell means the table lays out a
   * page rather than holding data: what was gathered so far is written as
   * paragraphs and the rest of the table is read as ordinary blocks.
   */
  function layoutTable() {
    const top = last(captures);
    if (top?.kind !== "cell") return;
    const table = last(tables);
    if (!table || table.flatten || table.layout) return;
    captures.pop();
    opaqueCaptures--;
    for (let i = frames - 1; i >= 0; i--) {
      const tag = frameTag[i];
      if ((frameFlags[i] & F_CAPTURE) !== 0 && (tag === "td" || tag === "th")) {
        frameFlags[i] &= ~F_CAPTURE;
        break;
      }
    }
    table.layout = true;
    for (const row of table.rows) {
      for (const cell of row) {
        if (cell.trim()) writeBlock(cell.split("<br>"), true, table.eid, "text", cell.length);
      }
    }
    table.rows = [];
    table.current = undefined;
    // The open cell's text continues as the current paragraph.
    if (top.inline.out.trim()) paragraph.text(top.inline.out + (top.inline.space ? " " : ""));
  }

  function abandonLinks() {
    // Links cannot hold blocks: pour their text into the enclosing sink.
    while (captures.length > 0 && captures[captures.length - 1].kind === "link") {
      const link = captures.pop()!;
      // Its text still counts as link text until the link closes.
      // Its element, found by depth and told by its ordinal: one closed meanwhile (captures
      // and elements out of step) is left alone, as it was when frames were objects.
      if (link.depth < frames && frameOrdinal[link.depth] === link.ordinal) {
        frameFlags[link.depth] = (frameFlags[link.depth] & ~F_CAPTURE) | F_ABANDONED;
      }
      sink().mark(link.inline.out);
      if (link.inline.space) sink().text(" ");
    }
  }

  function closeCaptureFrame() {
    const capture = closeCapture();
    if (capture.kind === "title" || capture.kind === "heading" || capture.kind === "cell") {
      opaqueCaptures--;
    } else if (capture.kind === "link") linkDepth--;
    const inner = capture.inline.out.trim();
    switch (capture.kind) {
      case "title":
        inTitle = false;
        title = detached(capture.inline.out.replace(WS, " ").trim());
        return;
      case "heading": {
        headingCapture = undefined;
        const text = capture.inline.out.replace(WS, " ").replace(/[\s¶#§]+$/u, "").trim();
        if (text === "") return;
        if (!titleFromHeading) titleFromHeading = detached(text);
        // Headings start at column 0, whatever container they were found in.
        const saved = containers.splice(0);
        writeBlock(
          ["#".repeat(capture.level) + " " + text],
          false,
          capture.eid,
          "heading",
          text.length,
          Math.min(text.length, elLinks[capture.eid]),
        );
        containers.push(...saved);
        const offset = length - ("#".repeat(capture.level).length + 1 + text.length);
        for (const id of capture.ids!) anchors.add(id, offset);
        return;
      }
      case "link": {
        const out = sink();
        if (inner === "") return;
        const parent = last(captures);
        if (capture.images > 0 && !capture.words) {
          out.mark(inner);
        } else if (parent?.kind === "code") {
          // Markdown has no link inside a code span: keep the text, and let the code span
          // become the link's text when the link is all of it (`<code><a>x</a></code>`).
          (parent.links ??= []).push({ text: inner, href: capture.href });
          out.mark(inner);
        } else {
          const url = UNSAFE_URL.test(capture.href)
            ? capture.href.replace(/[()\s<>]/g, encodeURIComponent)
            : capture.href;
          const label = inner.includes("[") || inner.includes("]")
            ? inner.replace(/([[\]])/g, "\\$1")
            : inner;
          out.mark(`[${label}](${url})`);
        }
        if (capture.inline.space) out.text(" ");
        return;
      }
      case "emph": {
        const out = sink();
        if (inner === "") return;
        if (capture.inline.out.startsWith(" ") || capture.inline.out === "") out.text(" ");
        out.mark(`${capture.marker}${inner}${capture.marker}`);
        if (capture.inline.space) out.text(" ");
        return;
      }
      case "code": {
        const out = sink();
        const code = capture.inline.out.replace(/\n/g, " ").trim();
        if (code === "") return;
        let ticks = "`";
        while (code.includes(ticks)) ticks += "`";
        const pad = code.startsWith("`") || code.endsWith("`") ? " " : "";
        const span = `${ticks}${pad}${code}${pad}${ticks}`;
        const only = capture.links?.length === 1 && capture.links[0].text === code
          ? capture.links[0].href
          : undefined;
        if (only !== undefined) {
          const url = UNSAFE_URL.test(only) ? only.replace(/[()\s<>]/g, encodeURIComponent) : only;
          out.mark(`[${span}](${url})`);
        } else out.mark(span);
        if (capture.inline.space) out.text(" ");
        return;
      }
      case "cell": {
        const table = last(tables);
        if (!table?.current) return;
        table.current.push(
          inner.replace(/\n+/g, "<br>").replace(/\\/g, "\\\\").replace(/\|/g, "\\|"),
        );
        return;
      }
    }
  }

  function writeTable(table: TableState) {
    const rows = table.rows.filter((r) => r.length > 0);
    if (rows.length === 0) return;
    // A loop, not Math.max(...): a table of 200,000 rows overflows the stack with its arguments.
    let width = 0;
    for (const r of rows) if (r.length > width) width = r.length;
    if (width === 1 || (rows.length === 1 && !table.hasHead)) {
      // A layout table or a single row: plain paragraphs read better.
      for (const r of rows) {
        for (const cell of r) {
          if (cell.trim()) writeBlock(cell.split("<br>"), true, table.eid, "text", cell.length);
        }
      }
      return;
    }
    const line = (r: string[]) =>
      "| " + Array.from({ length: width }, (_, i) => r[i] ?? "").join(" | ") + " |";
    const lines = [line(rows[0]), "| " + Array(width).fill("---").join(" | ") + " |"];
    for (let i = 1; i < rows.length; i++) lines.push(line(rows[i]));
    writeBlock(
      lines,
      false,
      table.eid,
      "table",
      elText[table.eid],
      elLinks[table.eid],
    );
  }

  const narrow = typeof page !== "string" && page.narrow;
  // The string the narrowed source was made from is garbage the walk would otherwise carry.
  if (typeof page !== "string" && page.leftWide) collectBetweenStages();
  walkHtml(
    html,
    narrow ? widening(handler) : handler,
    new Set([...ATTRIBUTES, ...(furniture?.attributes ?? [])]),
    attributeRecord,
  );
  // A conversion given up stops between its stages too (the walk checks as it goes).
  checkCancelled();
  flushParagraph();
  // Anything still open at the end (unclosed captures) is written as text.
  while (captures.length > 0) {
    const c = captures.pop()!;
    sink().text(c.inline.out);
  }
  flushParagraph();

  // What the walk kept of the source's attributes goes with it (the open elements' records, the
  // links resolved), so that letting go of the source below frees it.
  frameAttrs.length = 0;
  resolved.clear();
  numbers.clear();
  // A large page's source is let go once the walk wrote some text: a selection that keeps none
  // of it then keeps everything written (below) instead of a reconversion of the whole page.
  const released = large && typeof page !== "string" && written.hasText();
  if (released) {
    page.release();
    html = "";
  }
  // The walk of a large page leaves its garbage (attribute records, frames, pieces of text)
  // where the Markdown and the selection would grow: collected now, with the source when it
  // was let go, where the process has the collector ready (the one-shot command, the
  // conversion workers).
  if (large) collectBetweenStages();
  let markdown = written.take();
  checkCancelled();
  let deselectedChars = 0;
  const keep = options.select && blocks.length > 0
    ? options.select(blocks, {
      parent: elParent.subarray(0, elCount),
      tag: elTag.subarray(0, elCount),
      hint: elHint.subarray(0, elCount),
      id: elId.subarray(0, elCount),
      names,
      ids,
      text: elText.subarray(0, elCount),
      links: elLinks.subarray(0, elCount),
      lead: elLead.subarray(0, elCount),
    }, markdown)
    : undefined;
  // The element table is read by the selection only: given back now, not at the next full
  // collection (8.5 MB on WHATWG HTML, through the Document's build and the answer).
  freeArrays([elParent, elText, elLinks, elLead, elBlock, elTag, elHint, elId]);
  // A source let go of cannot be converted again whole: a selection keeping no text keeps all.
  const keepsText = (keep: readonly boolean[]) =>
    blocks.some((b, i) => keep[i] && /\S/.test(markdown.slice(b.start, b.end)));
  if (keep && (!released || keepsText(keep))) {
    const result = keepBlocks(markdown, blocks, keep, anchors);
    markdown = result.markdown;
    deselectedChars = result.droppedText;
  }

  return {
    markdown,
    title: title || ogTitle || titleFromHeading,
    canonicalUrl,
    description,
    lang,
    anchors,
    shell,
    textChars,
    droppedChars,
    deselectedChars,
  };
}

/**
 * Rebuilds Markdown from the kept blocks, keeping each block's own leading
 * line breaks when its predecessor was kept too, and moves (or drops)
 * anchors to match.
 */
function keepBlocks(
  markdown: string,
  blocks: readonly BlockRecord[],
  keep: readonly boolean[],
  anchors: AnchorList,
): { markdown: string; droppedText: number } {
  const out: string[] = [];
  const newStart = new Array<number>(blocks.length).fill(-1);
  let length = 0;
  let droppedText = 0;
  for (let i = 0; i < blocks.length;) {
    const b = blocks[i];
    if (!keep[i]) {
      droppedText += b.text;
      i++;
      continue;
    }
    const sep = length === 0
      ? ""
      : i > 0 && keep[i - 1]
      ? markdown.slice(b.sepStart, b.start)
      : "\n\n";
    out.push(sep);
    length += sep.length;
    // The kept blocks that follow, each starting where the one before ends, go with it as
    // one slice (a specification keeps nearly all of its 40,000 blocks: a slice each, and
    // their separators, made 80,000 strings to join).
    let last = i;
    while (
      last + 1 < blocks.length && keep[last + 1] && blocks[last + 1].sepStart === blocks[last].end
    ) {
      last++;
    }
    for (let k = i; k <= last; k++) newStart[k] = length + (blocks[k].start - b.start);
    out.push(markdown.slice(b.start, blocks[last].end));
    length += blocks[last].end - b.start;
    i = last + 1;
  }
  const offsets = anchors.offsetList();
  const moved = new Int32Array(offsets.length);
  for (let k = 0; k < offsets.length; k++) {
    const offset = offsets[k];
    // The block holding the offset, or the next one when it falls between blocks.
    let lo = 0;
    let hi = blocks.length - 1;
    let j = blocks.length;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (blocks[mid].end > offset) {
        j = mid;
        hi = mid - 1;
      } else lo = mid + 1;
    }
    if (j < blocks.length && keep[j]) {
      const b = blocks[j];
      moved[k] = newStart[j] + Math.min(Math.max(0, offset - b.start), b.end - b.start);
    } else moved[k] = -1;
  }
  anchors.retain(moved);
  return { markdown: out.join(""), droppedText };
}
