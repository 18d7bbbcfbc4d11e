/**
 * A fast HTML tokenizer and tree walker for conversion.
 *
 * Two layers. {@link tokenize} follows the WHATWG tokenizer states (it
 * passes the html5lib tokenizer tests) but scans with `indexOf` and
 * character-code loops instead of one call per character, which is what
 * lets a 15 MB page through in a few hundred milliseconds: comments
 * (`<!-->`, `<!--->` and `--!>` included), doctypes, bogus comments, CDATA
 * in foreign content, raw text, RCDATA and script data with its escapes,
 * attributes (quoted values may hold `>`, on end tags too), character
 * references, CR/LF normalisation.
 *
 * {@link walkHtml} builds on it what conversion needs of the tree
 * construction rules, the way browsers do it, without building a tree:
 *
 * - `script`, `style`, `xmp`, `iframe`, `noembed`, `noframes` and `noscript`
 *   are raw text, `title` and `textarea` raw text with character references
 *   (in HTML content only; inside SVG and MathML they are ordinary elements);
 * - every open element gets exactly one close callback: void elements close
 *   at once, a self-closing tag closes at once inside SVG and MathML and for
 *   `svg` and `math` themselves, the usual implied end tags apply (`p` before
 *   blocks, `li`, `dt`/`dd`, table parts, `option`, a heading inside a
 *   heading), HTML block tags break out of SVG and MathML, an end tag closes
 *   what the standard says it closes (`</h3>` closes an open `h2`, an end
 *   tag does not reach past a special element or out of a table cell),
 *   unmatched end tags are ignored except `</p>` and `</br>`, which act as
 *   `<p></p>` and `<br>`, `<image>` is `<img>`, and the rest is closed at
 *   the end;
 * - nesting is capped (10,000 levels): deeper elements are flattened, so a
 *   hostile page cannot exhaust the stack.
 *
 * @module
 */
import { checkCancelled } from "../../runtime/cancel.ts";
import { decodeHTML, decodeHTMLAttribute } from "entities";

/** Callbacks of {@link walkHtml}; open and close calls always balance. */
export interface HtmlHandler {
  /** An element opens (its attributes are read, not changed: elements without any share them). */
  open(name: string, attrs: Record<string, string>): void;
  /** Text (entity-decoded). */
  text(text: string): void;
  /** An element closes. */
  close(name: string): void;
}

/** Void elements: they never have content or an end tag. */
export const VOID = new Set([
  "area",
  "base",
  "basefont",
  "bgsound",
  "br",
  "col",
  "embed",
  "frame",
  "hr",
  "img",
  "input",
  "keygen",
  "link",
  "meta",
  "param",
  "source",
  "track",
  "wbr",
]);

const RAW_TEXT = new Set([
  "script",
  "style",
  "xmp",
  "iframe",
  "noembed",
  "noframes",
  "noscript",
  "plaintext",
]);
const ESCAPABLE_RAW = new Set(["title", "textarea"]);

// Elements whose start closes an open <p>.
const CLOSES_P = new Set([
  "dd",
  "dialog",
  "dt",
  "li",
  "plaintext",
  "search",
  "xmp",
  "address",
  "article",
  "aside",
  "blockquote",
  "center",
  "details",
  "dialog",
  "dir",
  "div",
  "dl",
  "fieldset",
  "figcaption",
  "figure",
  "footer",
  "form",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "header",
  "hgroup",
  "hr",
  "listing",
  "main",
  "menu",
  "nav",
  "ol",
  "p",
  "pre",
  "section",
  "summary",
  "table",
  "ul",
]);

// Start tag -> open elements it closes, searched up to a boundary.
const IMPLIED: Record<string, { closes: Set<string>; boundary: Set<string> }> = {
  li: { closes: new Set(["li"]), boundary: new Set(["ul", "ol", "menu", "table"]) },
  dt: { closes: new Set(["dt", "dd"]), boundary: new Set(["dl", "table"]) },
  dd: { closes: new Set(["dt", "dd"]), boundary: new Set(["dl", "table"]) },
  tr: {
    closes: new Set(["tr", "td", "th"]),
    boundary: new Set(["table", "thead", "tbody", "tfoot"]),
  },
  td: { closes: new Set(["td", "th"]), boundary: new Set(["tr", "table"]) },
  th: { closes: new Set(["td", "th"]), boundary: new Set(["tr", "table"]) },
  thead: {
    closes: new Set(["thead", "tbody", "tfoot", "tr", "td", "th"]),
    boundary: new Set(["table"]),
  },
  tbody: {
    closes: new Set(["thead", "tbody", "tfoot", "tr", "td", "th"]),
    boundary: new Set(["table"]),
  },
  tfoot: {
    closes: new Set(["thead", "tbody", "tfoot", "tr", "td", "th"]),
    boundary: new Set(["table"]),
  },
  option: { closes: new Set(["option"]), boundary: new Set(["select", "datalist"]) },
  optgroup: { closes: new Set(["option", "optgroup"]), boundary: new Set(["select"]) },
  rt: { closes: new Set(["rt", "rp"]), boundary: new Set(["ruby"]) },
  rp: { closes: new Set(["rt", "rp"]), boundary: new Set(["ruby"]) },
};

const IMPLIED_MAP = new Map(Object.entries(IMPLIED));

/** Deepest nesting kept; deeper elements are flattened into their parent. */
export const MAX_DEPTH = 10_000;

/** How the tokenizer reads what follows a start tag (the tree builder decides). */
export const enum TextMode {
  /** Ordinary content. */
  Data = 0,
  /** Text with character references up to the matching end tag (`title`, `textarea`). */
  Rcdata = 1,
  /** Text as written up to the matching end tag (`style`, `xmp`, ...). */
  Rawtext = 2,
  /** Script data: like raw text, but `<!--<script>` hides a `</script>`. */
  Script = 3,
  /** Everything to the end is text. */
  Plaintext = 4,
}

/** Tokens of {@link tokenize}. Text may come in several pieces. */
export interface TokenSink {
  /**
   * A start tag; the answer says how to read what follows it (`attrs` are
   * read, not changed: tags without any share them).
   */
  startTag(name: string, attrs: Record<string, string>, selfClosing: boolean): TextMode;
  /** An end tag (its attributes, if any, are dropped). */
  endTag(name: string): void;
  /** Text. */
  text(text: string): void;
  /** A comment (or bogus comment); only reported when present. */
  comment?(data: string): void;
  /** A doctype; only reported when present. */
  doctype?(
    name: string | null,
    publicId: string | null,
    systemId: string | null,
    quirks: boolean,
  ): void;
  /** Whether `<![CDATA[` opens a CDATA section here (inside SVG or MathML). */
  cdata(): boolean;
}

/** Where {@link tokenize} starts (for tests of single states). */
export interface TokenizeStart {
  /** The mode to begin in. */
  mode?: TextMode;
  /** The start tag that the raw text belongs to (which end tag ends it). */
  lastStartTag?: string;
  /** Begin inside a CDATA section. */
  cdata?: boolean;
}

/** How {@link tokenize} reports what it reads (for {@link walkHtml}). */
export interface TokenizeReport {
  /** Makes the record each element's attributes go into (see {@link walkHtml}). */
  record?: () => Record<string, string>;
  /** Whether the page holds a NUL, when the caller has looked already (else looked for here). */
  holdsNul?: boolean;
}

const RAW_END = new Map<string, RegExp>();

/** The attributes of every tag that has none (frozen: they are shared). */
const NO_ATTRIBUTES: Record<string, string> = Object.freeze({}) as Record<string, string>;

/**
 * An object kept in dictionary mode (one with no prototype starts so): its
 * keys are the engine's shared strings, and adding one makes no new hidden
 * class (a fresh object per name made one per distinct name, which a page
 * of a million distinct tag names turned into seconds).
 */
const SHARED_KEYS: Record<string, number> = Object.create(null);

/**
 * `s` as the engine's one shared copy of it, the copy a property key is: a
 * tag or attribute name compared with `===` against a literal, looked up in
 * a map or a set, or used as a key is then matched by its address, where a
 * copy of its own was compared character by character (and, as a key,
 * looked up in the engine's table of shared strings) at every use.
 */
function internalized(s: string): string {
  SHARED_KEYS[s] = 0;
  const key = Object.keys(SHARED_KEYS)[0] ?? s;
  delete SHARED_KEYS[s];
  return key;
}

/**
 * Distinct names a walk makes shared copies of: a page has a few hundred;
 * past this many (a page built of distinct names), the rest are left as
 * they are read.
 */
const SHARED_NAMES = 4096;

/** Slots of the tokenizer's table of names read (16 lengths × 32 × 32 characters). */
const NAME_SLOTS = 16 * 32 * 32;

// deno-lint-ignore no-control-regex
const NUL = /\u0000/g;

function decodeText(s: string): string {
  return s.indexOf("&") === -1 ? s : decodeHTML(s);
}

function decodeAttr(s: string): string {
  return s.indexOf("&") === -1 ? s : decodeHTMLAttribute(s);
}

function noNul(s: string): string {
  return s.indexOf("\u0000") === -1 ? s : s.replace(NUL, "\uFFFD");
}

function isSpace(ch: number): boolean {
  return ch === 32 || ch === 10 || ch === 9 || ch === 12;
}

function isAlpha(ch: number): boolean {
  return (ch >= 65 && ch <= 90) || (ch >= 97 && ch <= 122);
}

/** Comment data that ran to the end of the input, without the dashes of an unfinished close. */
function openComment(rest: string): string {
  if (rest.endsWith("--!")) return rest.slice(0, -3);
  if (rest.endsWith("--")) return rest.slice(0, -2);
  if (rest.endsWith("-")) return rest.slice(0, -1);
  return rest;
}

/** The end of script data starting at `from`: the index of its `</script`, or -1. */
function scriptEnd(html: string, from: number, tag: string): number {
  const re = endTagPattern(tag);
  re.lastIndex = from;
  const m = re.exec(html);
  const plain = m ? m.index : html.length;
  // (Searched within the script only: the next comment may be megabytes away.)
  if (html.slice(from, plain).indexOf("<!--") === -1) return m ? m.index : -1;
  // An escape comes first: follow the script data states from there.
  const n = html.length;
  let state = 0; // 0 data, 1 escaped, 2 double escaped
  let dashes = 0; // dashes just seen (in escaped states)
  let p = from;
  while (p < n) {
    const ch = html.charCodeAt(p);
    if (state === 0) {
      if (ch === 60 && html.startsWith("<!--", p)) {
        state = 1;
        dashes = 2;
        p += 4;
        continue;
      }
      if (ch === 60 && html.charCodeAt(p + 1) === 47 && appropriateEnd(html, p, tag)) return p;
      p++;
      continue;
    }
    if (ch === 45) { // "-"
      dashes++;
      p++;
      continue;
    }
    if (ch === 62 && dashes >= 2) { // "-->"
      state = 0;
      dashes = 0;
      p++;
      continue;
    }
    dashes = 0;
    if (ch === 60) { // "<"
      const next = html.charCodeAt(p + 1);
      if (state === 1) {
        if (next === 47 && appropriateEnd(html, p, tag)) return p;
        if (isAlpha(next) && scriptWord(html, p + 1)) {
          state = 2;
          p += 7;
          continue;
        }
      } else if (next === 47 && scriptWord(html, p + 2)) {
        state = 1;
        p += 8;
        continue;
      }
    }
    p++;
  }
  return -1;
}

/** Whether `script` followed by a space, "/" or ">" starts at `at`. */
function scriptWord(html: string, at: number): boolean {
  if (html.substr(at, 6).toLowerCase() !== "script") return false;
  const after = html.charCodeAt(at + 6);
  return isSpace(after) || after === 47 || after === 62;
}

/** Whether `</tag` followed by a space, "/" or ">" starts at `at`. */
function appropriateEnd(html: string, at: number, tag: string): boolean {
  if (html.substr(at + 2, tag.length).toLowerCase() !== tag) return false;
  const after = html.charCodeAt(at + 2 + tag.length);
  return isSpace(after) || after === 47 || after === 62;
}

function endTagPattern(tag: string): RegExp {
  let re = RAW_END.get(tag);
  if (!re) RAW_END.set(tag, re = new RegExp(`</${tag}[\\t\\n\\f />]`, "ig"));
  return re;
}

interface Doctype {
  end: number;
  name: string | null;
  publicId: string | null;
  systemId: string | null;
  quirks: boolean;
}

/** Reads a doctype whose `<!DOCTYPE` starts at `at` (the doctype states, one character at a time). */
function readDoctype(html: string, at: number): Doctype {
  const n = html.length;
  let p = at + 9;
  const d: Doctype = { end: n, name: null, publicId: null, systemId: null, quirks: true };
  const done = (quirks: boolean, end: number): Doctype => {
    d.quirks = quirks;
    d.end = end;
    return d;
  };
  const bogus = (quirks: boolean): Doctype => {
    const close = html.indexOf(">", p);
    return done(quirks, close === -1 ? n : close + 1);
  };
  const skip = () => {
    while (p < n && isSpace(html.charCodeAt(p))) p++;
  };
  skip();
  if (p >= n) return done(true, n);
  if (html.charCodeAt(p) === 62) return done(true, p + 1);
  // Name.
  let name = "";
  for (; p < n; p++) {
    const ch = html.charCodeAt(p);
    if (isSpace(ch) || ch === 62) break;
    name += ch === 0 ? "\uFFFD" : (ch >= 65 && ch <= 90) ? String.fromCharCode(ch + 32) : html[p];
  }
  d.name = name;
  if (p >= n) return done(true, n);
  skip();
  if (p >= n) return done(true, n);
  if (html.charCodeAt(p) === 62) return done(false, p + 1);
  const keyword = html.substr(p, 6).toUpperCase();
  if (keyword !== "PUBLIC" && keyword !== "SYSTEM") return bogus(true);
  p += 6;
  // Identifiers: the public one (for PUBLIC), then the system one.
  let system = keyword === "SYSTEM";
  for (let part = 0; part < 2; part++) {
    skip();
    if (p >= n) return done(true, n);
    const ch = html.charCodeAt(p);
    // ">" before the first identifier is quirky; after the public one it is fine.
    if (ch === 62) return done(part === 0, p + 1);
    if (ch !== 34 && ch !== 39) return bogus(true);
    // A quoted identifier; ">" or the end of input cut it short (and make the doctype quirky).
    let value = "";
    let cut = true;
    for (p++; p < n; p++) {
      const q = html.charCodeAt(p);
      if (q === ch) {
        p++;
        cut = false;
        break;
      }
      if (q === 62) break;
      value += q === 0 ? "\uFFFD" : html[p];
    }
    if (system) d.systemId = value;
    else d.publicId = value;
    if (cut) return done(true, p < n ? p + 1 : n);
    if (system) {
      skip();
      if (p >= n) return done(true, n);
      if (html.charCodeAt(p) === 62) return done(false, p + 1);
      return bogus(false);
    }
    system = true;
  }
  return bogus(true);
}

/**
 * Tokenizes `html` into `sink`, following the WHATWG tokenizer. With
 * `attributes`, only those attributes are decoded and reported (the rest
 * are skipped, which saves most of the attribute work on large pages), in
 * a record `report.record` makes when given (see {@link walkHtml}).
 */
export function tokenize(
  source: string,
  sink: TokenSink,
  attributes?: ReadonlySet<string>,
  start: TokenizeStart = {},
  report: TokenizeReport = {},
): void {
  const html = source.indexOf("\r") === -1 ? source : source.replace(/\r\n?/g, "\n");
  const n = html.length;
  let i = 0;
  // Most pages hold no NUL: one search of the page spares one of every attribute value.
  const nulFree = !(report.holdsNul ?? html.indexOf("\u0000") !== -1);
  const record = report.record;
  const cleaned = (s: string): string => nulFree ? s : noNul(s);
  // Tag and attribute names as read before, by length and first two characters: a name
  // the page repeats (nearly all of them) is the string read the first time, not a new
  // one, which spares an allocation per tag and attribute and lets every later lookup of
  // the name (the tree builder's and the converter's sets) reuse its hash.
  const names: (string | undefined)[] = new Array(NAME_SLOTS);
  let shared = 0; // names made shared copies of (see SHARED_NAMES)
  const nameAt = (from: number, to: number): string => {
    const length = to - from;
    const slot = ((length & 15) << 10) | ((html.charCodeAt(from) & 31) << 5) |
      (html.charCodeAt(from + 1) & 31);
    const seen = names[slot];
    if (seen !== undefined && seen.length === length) {
      // Compared here, not with startsWith: a name is a few characters, and the call into the
      // builtin cost more than the comparison (a tag or attribute name read a million times).
      let k = 0;
      while (k < length && seen.charCodeAt(k) === html.charCodeAt(from + k)) k++;
      if (k === length) return seen;
    }
    const name = shared++ < SHARED_NAMES
      ? internalized(html.slice(from, to))
      : html.slice(from, to);
    names[slot] = name;
    return name;
  };
  const raw = (mode: TextMode, tag: string | undefined): void => {
    // Text of a raw text, RCDATA, script or PLAINTEXT element, then its end tag.
    let stop: number;
    if (mode === TextMode.Plaintext || tag === undefined) stop = -1;
    else if (mode === TextMode.Script) stop = scriptEnd(html, i, tag);
    else {
      const re = endTagPattern(tag);
      re.lastIndex = i;
      const m = re.exec(html);
      stop = m ? m.index : -1;
    }
    const end = stop === -1 ? n : stop;
    if (end > i) {
      const body = noNul(html.slice(i, end));
      sink.text(mode === TextMode.Rcdata ? decodeText(body) : body);
    }
    i = end;
  };
  if (start.cdata) {
    const close = html.indexOf("]]>");
    const stop = close === -1 ? n : close;
    if (stop > 0) sink.text(html.slice(0, stop));
    i = close === -1 ? n : close + 3;
  } else if (start.mode) raw(start.mode, start.lastStartTag);

  while (i < n) {
    const lt = html.indexOf("<", i);
    const end = lt === -1 ? n : lt;
    if (end > i) sink.text(decodeText(html.slice(i, end)));
    if (lt === -1) break;
    i = lt;
    const c = html.charCodeAt(i + 1);
    if (c === 33) { // "<!"
      if (html.charCodeAt(i + 2) === 45 && html.charCodeAt(i + 3) === 45) {
        // Comment. "<!-->" and "<!--->" are whole (empty) comments.
        let data = "";
        if (html.charCodeAt(i + 4) === 62) {
          i += 5;
        } else if (html.charCodeAt(i + 4) === 45 && html.charCodeAt(i + 5) === 62) {
          i += 6;
        } else {
          // It ends at the first "-->" or "--!>".
          const from = i + 4;
          let close = html.indexOf("--", from);
          let stop = -1;
          while (close !== -1) {
            const after = html.charCodeAt(close + 2);
            if (after === 62) {
              stop = close;
              i = close + 3;
              break;
            }
            if (after === 33 && html.charCodeAt(close + 3) === 62) {
              stop = close;
              i = close + 4;
              break;
            }
            close = html.indexOf("--", close + 1);
          }
          if (stop === -1) {
            if (sink.comment) data = openComment(html.slice(from));
            i = n;
          } else if (sink.comment) data = html.slice(from, stop);
        }
        sink.comment?.(noNul(data));
        continue;
      }
      if (html.substr(i + 2, 7).toUpperCase() === "DOCTYPE") {
        const d = readDoctype(html, i);
        sink.doctype?.(d.name, d.publicId, d.systemId, d.quirks);
        i = d.end;
        continue;
      }
      if (html.startsWith("[CDATA[", i + 2) && sink.cdata()) {
        const close = html.indexOf("]]>", i + 9);
        const stop = close === -1 ? n : close;
        if (stop > i + 9) sink.text(html.slice(i + 9, stop));
        i = close === -1 ? n : close + 3;
        continue;
      }
      // Bogus comment up to ">".
      const close = html.indexOf(">", i + 2);
      sink.comment?.(noNul(html.slice(i + 2, close === -1 ? n : close)));
      i = close === -1 ? n : close + 1;
      continue;
    }
    if (c === 63) { // "<?": bogus comment, the "?" included
      const close = html.indexOf(">", i + 2);
      sink.comment?.(noNul(html.slice(i + 1, close === -1 ? n : close)));
      i = close === -1 ? n : close + 1;
      continue;
    }
    let endTag = false;
    let p = i + 1;
    if (c === 47) { // "</"
      const d = html.charCodeAt(i + 2);
      if (d === 62) { // "</>" is nothing
        i += 3;
        continue;
      }
      if (i + 2 >= n) {
        sink.text("</");
        i = n;
        break;
      }
      if (!isAlpha(d)) {
        // "</ " and the like: a bogus comment up to ">".
        const close = html.indexOf(">", i + 2);
        sink.comment?.(noNul(html.slice(i + 2, close === -1 ? n : close)));
        i = close === -1 ? n : close + 1;
        continue;
      }
      endTag = true;
      p = i + 2;
    } else if (!isAlpha(c)) {
      // A "<" that does not start a tag is text.
      sink.text("<");
      i++;
      continue;
    }
    // Tag name: up to whitespace, "/", ">".
    const nameStart = p;
    let odd = false; // upper case or NUL in the name
    for (; p < n; p++) {
      const ch = html.charCodeAt(p);
      if (ch === 62 || ch === 47 || ch === 32 || ch === 10 || ch === 9 || ch === 12) break;
      if ((ch >= 65 && ch <= 90) || ch === 0) odd = true;
    }
    const name = odd ? noNul(html.slice(nameStart, p).toLowerCase()) : nameAt(nameStart, p);
    // A tag without attributes (kept ones) shares one empty record: most elements of a large
    // page have none (200,000 of WHATWG HTML's 333,000), and end tags never report theirs.
    let attrs = NO_ATTRIBUTES;
    let selfClosing = false;
    let closed = false;
    // Attributes.
    while (p < n) {
      let ch = html.charCodeAt(p);
      while (ch === 32 || ch === 10 || ch === 9 || ch === 12) ch = html.charCodeAt(++p);
      if (p >= n) break;
      if (ch === 62) { // ">"
        p++;
        closed = true;
        break;
      }
      if (ch === 47) { // "/"
        p++;
        if (html.charCodeAt(p) === 62) {
          selfClosing = true;
          closed = true;
          p++;
          break;
        }
        continue;
      }
      // Attribute name (a leading "=" belongs to it).
      const attrStart = p;
      let attrOdd = false;
      for (p++; p < n; p++) {
        ch = html.charCodeAt(p);
        if (
          ch === 61 || ch === 62 || ch === 47 || ch === 32 || ch === 10 || ch === 9 || ch === 12
        ) break;
        if ((ch >= 65 && ch <= 90) || ch === 0) attrOdd = true;
      }
      const first = html.charCodeAt(attrStart);
      const attrName = attrOdd || (first >= 65 && first <= 90) || first === 0
        ? noNul(html.slice(attrStart, p).toLowerCase())
        : nameAt(attrStart, p);
      const keep = !endTag && (attributes === undefined || attributes.has(attrName));
      while (ch === 32 || ch === 10 || ch === 9 || ch === 12) ch = html.charCodeAt(++p);
      let value = "";
      if (ch === 61) { // "="
        ch = html.charCodeAt(++p);
        while (ch === 32 || ch === 10 || ch === 9 || ch === 12) ch = html.charCodeAt(++p);
        if (ch === 34 || ch === 39) {
          const close = html.indexOf(ch === 34 ? '"' : "'", p + 1);
          if (close === -1) {
            p = n;
            break;
          }
          if (keep) value = cleaned(decodeAttr(html.slice(p + 1, close)));
          p = close + 1;
        } else if (ch !== 62) {
          const valueStart = p;
          for (; p < n; p++) {
            ch = html.charCodeAt(p);
            if (ch === 62 || ch === 32 || ch === 10 || ch === 9 || ch === 12) break;
          }
          if (keep) value = cleaned(decodeAttr(html.slice(valueStart, p)));
        }
      }
      if (keep && attrs[attrName] === undefined) {
        if (attrs === NO_ATTRIBUTES) attrs = record ? record() : {};
        attrs[attrName] = value;
      }
    }
    if (!closed) break; // the input ended inside the tag: the tag is dropped
    i = p;
    if (endTag) {
      sink.endTag(name);
      continue;
    }
    const mode = sink.startTag(name, attrs, selfClosing);
    if (mode !== TextMode.Data) raw(mode, name);
  }
}

const HTML = 0;
const SVG = 1;
const MATHML = 2;

// Start tags that leave SVG or MathML content for HTML (and <font> with color, face or size).
const BREAKOUT = new Set([
  "b",
  "big",
  "blockquote",
  "body",
  "br",
  "center",
  "code",
  "dd",
  "div",
  "dl",
  "dt",
  "em",
  "embed",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "head",
  "hr",
  "i",
  "img",
  "li",
  "listing",
  "menu",
  "meta",
  "nobr",
  "ol",
  "p",
  "pre",
  "ruby",
  "s",
  "small",
  "span",
  "strong",
  "strike",
  "sub",
  "sup",
  "table",
  "tt",
  "u",
  "ul",
  "var",
]);

// Elements whose content is HTML although they sit in SVG or MathML.
const SVG_INTEGRATION = new Set(["foreignobject", "desc", "title"]);
const MATHML_TEXT = new Set(["mi", "mo", "mn", "ms", "mtext"]);

const HEADINGS = new Set(["h1", "h2", "h3", "h4", "h5", "h6"]);

// Where a search for an element in scope stops (HTML elements).
const SCOPE = new Set([
  "applet",
  "caption",
  "html",
  "table",
  "td",
  "th",
  "marquee",
  "object",
  "template",
]);

// "Special" elements: an end tag for an ordinary element does not close them.
const SPECIAL = new Set([
  "address",
  "applet",
  "area",
  "article",
  "aside",
  "base",
  "basefont",
  "bgsound",
  "blockquote",
  "body",
  "br",
  "button",
  "caption",
  "center",
  "col",
  "colgroup",
  "dd",
  "details",
  "dir",
  "div",
  "dl",
  "dt",
  "embed",
  "fieldset",
  "figcaption",
  "figure",
  "footer",
  "form",
  "frame",
  "frameset",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "head",
  "header",
  "hgroup",
  "hr",
  "html",
  "iframe",
  "img",
  "input",
  "keygen",
  "li",
  "link",
  "listing",
  "main",
  "marquee",
  "menu",
  "meta",
  "nav",
  "noembed",
  "noframes",
  "noscript",
  "object",
  "ol",
  "p",
  "param",
  "plaintext",
  "pre",
  "script",
  "search",
  "section",
  "select",
  "source",
  "style",
  "summary",
  "table",
  "tbody",
  "td",
  "template",
  "textarea",
  "tfoot",
  "th",
  "thead",
  "title",
  "tr",
  "track",
  "ul",
  "wbr",
  "xmp",
]);

// End tags that close their element only when it is in scope (else they are ignored).
const SCOPED_END = new Set([
  "address",
  "article",
  "aside",
  "blockquote",
  "button",
  "center",
  "details",
  "dialog",
  "dir",
  "div",
  "dl",
  "fieldset",
  "figcaption",
  "figure",
  "footer",
  "header",
  "hgroup",
  "listing",
  "main",
  "menu",
  "nav",
  "ol",
  "pre",
  "search",
  "section",
  "summary",
  "ul",
  "dd",
  "dt",
  "form",
  "applet",
  "marquee",
  "object",
]);

const TABLE_PARTS = new Set(["td", "th", "tr", "tbody", "thead", "tfoot", "caption", "table"]);

// Formatting elements: their end tag closes up to them within scope (a stand-in for the adoption agency).
const FORMATTING = new Set([
  "a",
  "b",
  "big",
  "code",
  "em",
  "font",
  "i",
  "nobr",
  "s",
  "small",
  "strike",
  "strong",
  "tt",
  "u",
]);

/** What the tree builder reports: open, close, text. */
/**
 * What the tree builder reports: open, close, text, or (only inside a held
 * table's events) the events of a table held inside it, in their place.
 */
type WalkEvent =
  | [0, string, Record<string, string>]
  | [1, string]
  | [2, string]
  | [3, WalkEvent[]];

// Elements that take only table parts; other content is moved before the table.
const TABLE_CONTEXT = new Set(["table", "tbody", "thead", "tfoot", "tr"]);
// Start tags a table takes in place.
const IN_TABLE = new Set([
  "caption",
  "colgroup",
  "col",
  "tbody",
  "tfoot",
  "thead",
  "td",
  "th",
  "tr",
  "table",
  "style",
  "script",
  "template",
  "form",
]);
const NOT_SPACE = /[^ \t\n\f]/;
// deno-lint-ignore no-control-regex
const VISIBLE = /[^ \t\n\f\u0000]/;
// Start tags that leave a later <frameset> in force (the others end the chance of one).
const FRAMESET_NEUTRAL = new Set([
  "html",
  "head",
  "body",
  "base",
  "basefont",
  "bgsound",
  "link",
  "meta",
  "title",
  "style",
  "script",
  "noscript",
  "noframes",
  "template",
  "div",
  "p",
  "span",
  "a",
  "b",
  "i",
  "em",
  "strong",
  "font",
  "center",
  "section",
  "article",
  "aside",
  "nav",
  "header",
  "footer",
  "main",
  "frame",
  "svg",
  "math",
]);
// Start tags that, in a table, go to the table itself.
const TABLE_START = new Set([
  "caption",
  "colgroup",
  "col",
  "tbody",
  "tfoot",
  "thead",
  "td",
  "th",
  "tr",
  "table",
]);

/**
 * Each name's bits: the bit of every group of names it is in, so that one
 * lookup answers what a test of each group would.
 */
export function bitsByName(
  groups: readonly (readonly [Iterable<string>, number])[],
): Map<string, number> {
  const bits = new Map<string, number>();
  for (const [names, bit] of groups) {
    for (const name of names) bits.set(name, (bits.get(name) ?? 0) | bit);
  }
  return bits;
}

/**
 * What the tree rules ask of every tag, by name, as bits (`K_*`): one lookup
 * per start or end tag where the sets above took ten (a large page has
 * hundreds of thousands of tags). The sets of rarer paths are asked directly.
 */
const K_VOID = 1;
/** Raw text or escapable raw text (see {@link modeOf}). */
const K_RAW = 2;
const K_CLOSES_P = 4;
const K_HEADING = 8;
const K_SCOPE = 16;
const K_SPECIAL = 32;
const K_TABLE_CONTEXT = 64;
/** `td`, `th`, `caption`, `template`: where table rules stop applying. */
const K_CELL = 128;
const K_SCOPED_END = 256;
const K_TABLE_PARTS = 512;
const K_FORMATTING = 1024;
/** A start tag with an {@link IMPLIED} rule. */
const K_IMPLIED = 2048;
const TREE_KIND = bitsByName([
  [VOID, K_VOID],
  [RAW_TEXT, K_RAW],
  [ESCAPABLE_RAW, K_RAW],
  [CLOSES_P, K_CLOSES_P],
  [HEADINGS, K_HEADING],
  [SCOPE, K_SCOPE],
  [SPECIAL, K_SPECIAL],
  [TABLE_CONTEXT, K_TABLE_CONTEXT],
  [["td", "th", "caption", "template"], K_CELL],
  [SCOPED_END, K_SCOPED_END],
  [TABLE_PARTS, K_TABLE_PARTS],
  [FORMATTING, K_FORMATTING],
  [IMPLIED_MAP.keys(), K_IMPLIED],
]);
const kindOf = (name: string): number => TREE_KIND.get(name) ?? 0;

/** An implied-end rule with its names' records. */
interface ImpliedRecords {
  boundary: NameRecord[];
  closes: NameRecord[];
}

/**
 * What a walk keeps per element name: its kind, where the open elements of
 * that name sit in the stack (HTML and foreign, indexes, innermost last;
 * made when the first opens) and its implied-end rule once asked for (null:
 * none). One look-up of the name finds all of it, where each was a map of
 * its own.
 */
interface NameRecord {
  kind: number;
  html: number[] | undefined;
  foreign: number[] | undefined;
  rule: ImpliedRecords | null | undefined;
}

// Attributes the tree builder itself reads.
const BUILDER_ATTRIBUTES = ["color", "face", "size", "encoding"];

/**
 * Tokenizes `html` and reports balanced elements and text to `handler`.
 * With `attributes`, only those attributes are decoded and reported (the
 * rest are skipped, which saves most of the attribute work on large pages).
 * With `record`, each element's attributes go into a record it makes (an
 * object with a field for each attribute the handler reads, undefined where
 * the element has none, so every element's record has one shape and a
 * handler's reads of them stay fast); without, into an object of their own.
 */
export function walkHtml(
  html: string,
  handler: HtmlHandler,
  attributes?: ReadonlySet<string>,
  record?: () => Record<string, string>,
): void {
  const stack: string[] = [];
  const ns: number[] = []; // namespace of each open element
  const points: boolean[] = []; // whether it is an HTML or MathML text integration point
  let foreign = 0; // open elements in SVG or MathML
  let openP = 0; // open <p> elements: the p-closing search runs only when there is one
  let flattened = 0; // elements opened beyond MAX_DEPTH
  // Tables are held back until they close, so that what a browser moves out of a table
  // ("foster parenting": text or an element where only table parts may go) can come first.
  const buffers: WalkEvent[][] = []; // one per open table
  const targets: number[] = []; // per open element: the buffer its content goes to (-1: handler)
  const homes: number[] = []; // per open element: the buffer its own events went to
  let tables = 0; // open HTML tables
  // Where elements of each kind sit in the stack (indexes, innermost last), so that every
  // search of the stack below is a look at the ends of a few lists, not a walk down it: a
  // page nested ten thousand deep cost ten thousand steps for every end tag it repeated.
  // Each name's kind and its elements, HTML and foreign (one look-up per tag for all of them).
  const records = new Map<string, NameRecord>();
  const recordOf = (name: string): NameRecord => {
    let record = records.get(name);
    if (record === undefined) {
      record = { kind: kindOf(name), html: undefined, foreign: undefined, rule: undefined };
      records.set(name, record);
    }
    return record;
  };
  const recs: NameRecord[] = []; // per open element: its name's record
  /** The kind of `name`, from its record when one was made (`records.get(name)`). */
  const kindIn = (record: NameRecord | undefined, name: string): number =>
    record ? record.kind : kindOf(name);
  const scopeAt: number[] = []; // HTML elements a scope search stops at (SCOPE)
  const specialAt: number[] = []; // HTML special elements (SPECIAL)
  const pointAt: number[] = []; // integration points (in SVG or MathML)
  const anyForeignAt: number[] = []; // SVG and MathML elements
  const anyHtmlAt: number[] = []; // HTML elements
  const headingAt: number[] = []; // HTML headings
  const tablePartAt: number[] = []; // HTML table, tbody, thead, tfoot, tr (TABLE_CONTEXT)
  const cellAt: number[] = []; // HTML td, th, caption, template
  /** The last index of a list, or -1. */
  const last = (list: number[] | undefined): number =>
    list === undefined || list.length === 0 ? -1 : list[list.length - 1];
  const P = recordOf("p");
  const BUTTON = recordOf("button");
  const TABLE = recordOf("table");
  const LI = recordOf("li");
  const OL = recordOf("ol");
  const UL = recordOf("ul");
  const TEMPLATE = recordOf("template");
  const TR = recordOf("tr");
  // A <frameset> before any text or content element replaces the body (and drops what follows).
  let framesetOk = true;
  let frameset = false;

  const emit = (target: number, event: WalkEvent): void => {
    if (target >= 0) buffers[target].push(event);
    else if (event[0] === 0) handler.open(event[1], event[2]);
    else if (event[0] === 1) handler.close(event[1]);
    else if (event[0] === 2) handler.text(event[1]);
    else replay(event[1]);
  };
  // The same without building an event when nothing is held back.
  let opened = 0;
  const emitOpen = (target: number, name: string, attrs: Record<string, string>): void => {
    // A cancelled conversion in a worker stops here (see cancel.ts).
    if ((++opened & 2047) === 0) checkCancelled();
    if (target >= 0) buffers[target].push([0, name, attrs]);
    else handler.open(name, attrs);
  };
  const emitClose = (target: number, name: string): void => {
    if (target >= 0) buffers[target].push([1, name]);
    else handler.close(name);
  };
  const target = (): number => stack.length > 0 ? targets[stack.length - 1] : -1;
  /** Where moved-out content goes: before the innermost table. */
  const fosterTarget = (): number => {
    const table = last(TABLE.html);
    return table >= 0 ? homes[table] : target();
  };
  /** Whether the current node only takes table parts. */
  const inTableContext = (): boolean => {
    const top = stack.length - 1;
    return tables > 0 && top >= 0 && ns[top] === HTML && TABLE_CONTEXT.has(stack[top]);
  };

  /** Index of the table part whose rules apply (not inside a cell or caption), or -1. */
  const tableMode = (): number => {
    const part = last(tablePartAt);
    return part > Math.max(last(cellAt), last(anyForeignAt)) ? part : -1;
  };

  const pop = (): void => {
    const index = stack.length - 1;
    const closed = stack.pop()!;
    const space = ns.pop()!;
    points.pop();
    unmark(recs.pop()!, space, index);
    const into = targets.pop()!;
    const home = homes.pop()!;
    if (space !== HTML) foreign--;
    else if (closed === "p") openP--;
    emitClose(into, closed);
    if (closed === "table" && space === HTML && into !== home) {
      tables--;
      const held = buffers.pop()!;
      // A table inside a held table goes into it as one event, not copied event by event
      // (a thousand nested tables copied their contents a thousand times).
      if (home >= 0) buffers[home].push([3, held]);
      else replay(held);
    }
  };
  /** Reports held events, and the tables held inside them, in order. */
  const replay = (held: WalkEvent[]): void => {
    const lists: WalkEvent[][] = [held];
    const at: number[] = [0];
    while (lists.length > 0) {
      const top = lists.length - 1;
      const list = lists[top];
      if (at[top] >= list.length) {
        lists.pop();
        at.pop();
        continue;
      }
      const event = list[at[top]++];
      if (event[0] === 3) {
        lists.push(event[1]);
        at.push(0);
      } else emit(-1, event);
    }
  };
  const popTo = (index: number) => {
    while (stack.length > index) pop();
  };
  /** The innermost boundary of a scope search: a SCOPE element or an integration point. */
  const scopeBoundary = (): number => Math.max(last(scopeAt), last(pointAt));
  /** Index of the innermost open HTML element of `name` in scope (`extra` adds boundaries), or -1. */
  const inScope = (name: NameRecord | undefined, extra?: NameRecord): number => {
    const at = last(name?.html);
    if (at < 0) return -1;
    const boundary = extra === undefined
      ? scopeBoundary()
      : Math.max(scopeBoundary(), last(extra.html));
    return at >= boundary ? at : -1;
  };
  const headingInScope = (): number => {
    const at = last(headingAt);
    return at > scopeBoundary() ? at : -1;
  };

  /** The implied-end rule of a name, its names as records (made once per walk). */
  const ruleOf = (name: string): ImpliedRecords | undefined => {
    const record = recordOf(name);
    if (record.rule === undefined) {
      const rule = IMPLIED_MAP.get(name);
      record.rule = rule
        ? { boundary: [...rule.boundary].map(recordOf), closes: [...rule.closes].map(recordOf) }
        : null;
    }
    return record.rule ?? undefined;
  };
  /** Closes what the start tag `name` (of kind `kind`) closes. */
  const closeImplied = (name: string, kind: number) => {
    if (openP > 0 && (kind & K_CLOSES_P) !== 0) {
      const at = inScope(P, BUTTON);
      if (at >= 0) popTo(at);
    }
    const rule = (kind & K_IMPLIED) !== 0 ? ruleOf(name) : undefined;
    if (rule) {
      // The innermost element the rule closes, unless a boundary or foreign content comes first.
      let boundary = last(anyForeignAt);
      for (const b of rule.boundary) boundary = Math.max(boundary, last(b.html));
      let at = -1;
      for (const c of rule.closes) at = Math.max(at, last(c.html));
      if (at > boundary) popTo(at);
    }
    if ((kind & K_HEADING) !== 0 && stack.length > 0 && HEADINGS.has(stack[stack.length - 1])) {
      if (ns[stack.length - 1] === HTML) pop();
    }
  };

  /** Records the element at `index` (its name's record `record`) in the lists above. */
  const mark = (record: NameRecord, space: number, index: number, point: boolean): void => {
    const kind = record.kind;
    if (space === HTML) {
      (record.html ??= []).push(index);
      anyHtmlAt.push(index);
      if ((kind & K_SCOPE) !== 0) scopeAt.push(index);
      if ((kind & K_SPECIAL) !== 0) specialAt.push(index);
      if ((kind & K_HEADING) !== 0) headingAt.push(index);
      if ((kind & K_TABLE_CONTEXT) !== 0) tablePartAt.push(index);
      if ((kind & K_CELL) !== 0) cellAt.push(index);
    } else {
      (record.foreign ??= []).push(index);
      anyForeignAt.push(index);
      if (point) pointAt.push(index);
    }
  };
  /** Takes the element at `index` (the innermost) out of the lists above. */
  const unmark = (record: NameRecord, space: number, index: number): void => {
    const drop = (list: number[] | undefined) => {
      if (list !== undefined && list.length > 0 && list[list.length - 1] === index) list.pop();
    };
    if (space === HTML) {
      drop(record.html);
      drop(anyHtmlAt);
      drop(scopeAt);
      drop(specialAt);
      drop(headingAt);
      drop(tablePartAt);
      drop(cellAt);
    } else {
      drop(record.foreign);
      drop(anyForeignAt);
      drop(pointAt);
    }
  };

  const push = (
    name: string,
    known: NameRecord | undefined,
    space: number,
    attrs: Record<string, string>,
    into: number,
    home: number,
  ): void => {
    // A name's record is made when an element of it opens (not for one flattened away).
    const record = known ?? recordOf(name);
    stack.push(name);
    recs.push(record);
    ns.push(space);
    targets.push(into);
    homes.push(home);
    let point = false;
    if (space === SVG) point = SVG_INTEGRATION.has(name);
    else if (space === MATHML) {
      point = MATHML_TEXT.has(name) ||
        (name === "annotation-xml" &&
          /^(text\/html|application\/xhtml\+xml)$/i.test(attrs.encoding ?? ""));
    }
    points.push(point);
    mark(record, space, stack.length - 1, point);
    if (space !== HTML) foreign++;
    else if (name === "p") openP++;
  };

  /** Opens an element (`kind` of its name, its record if made); false when it was flattened away. */
  const open = (
    name: string,
    kind: number,
    record: NameRecord | undefined,
    space: number,
    attrs: Record<string, string>,
    selfClosing: boolean,
  ): boolean => {
    const home = tables > 0 && inTableContext() && !IN_TABLE.has(name) ? fosterTarget() : target();
    if (stack.length >= MAX_DEPTH && !(space === HTML && (kind & K_VOID) !== 0)) {
      flattened++;
      return false;
    }
    if (name === "table" && space === HTML && !selfClosing) {
      tables++;
      buffers.push([[0, name, attrs]]);
      push(name, record, space, attrs, buffers.length - 1, home);
      return true;
    }
    emitOpen(home, name, attrs);
    if ((space === HTML && (kind & K_VOID) !== 0) || (selfClosing && space !== HTML)) {
      emitClose(home, name);
      return false;
    }
    push(name, record, space, attrs, home, home);
    return true;
  };

  /** Whether the current node is SVG or MathML content (not an integration point). */
  const inForeign = (): boolean => {
    const top = stack.length - 1;
    return top >= 0 && ns[top] !== HTML && !points[top];
  };

  const startTag = (
    rawName: string,
    attrs: Record<string, string>,
    selfClosing: boolean,
  ): TextMode => {
    let name = rawName;
    if (frameset) {
      if (name !== "noframes") return TextMode.Data;
    } else if (framesetOk && foreign === 0) {
      if (name === "frameset") {
        popTo(0);
        frameset = true;
        return TextMode.Data;
      }
      if (!FRAMESET_NEUTRAL.has(name)) framesetOk = false;
    }
    if (foreign > 0) {
      const top = stack.length - 1;
      const space = ns[top];
      if (space !== HTML) {
        const point = points[top];
        const mathText = point && space === MATHML && name !== "mglyph" && name !== "malignmark";
        const svgInAnnotation = space === MATHML && stack[top] === "annotation-xml" &&
          name === "svg";
        if (!(point && (space === SVG || mathText)) && !svgInAnnotation) {
          if (
            BREAKOUT.has(name) ||
            (name === "font" &&
              (attrs.color !== undefined || attrs.face !== undefined || attrs.size !== undefined))
          ) {
            // HTML inside SVG or MathML: leave the foreign content first.
            while (stack.length > 0 && inForeign()) pop();
          } else {
            const known = records.get(name);
            open(name, kindIn(known, name), known, space, attrs, selfClosing);
            return TextMode.Data;
          }
        }
      }
    }
    if (name === "image") name = "img";
    const record = records.get(name);
    const kind = kindIn(record, name);
    if (tables > 0) {
      const top = stack.length - 1;
      if (stack[top] === "colgroup" && ns[top] === HTML && name !== "col" && name !== "template") {
        pop();
      }
      const context = TABLE_START.has(name) ? tableMode() : -1;
      if (context >= 0) {
        // Table parts go into the table, whatever was moved out of it meanwhile.
        popTo(context + 1);
        if (name === "table") {
          // A table cannot hold a table outside a cell: the open one ends.
          const table = last(TABLE.html);
          if (table >= 0) popTo(table);
        } else if ((name === "td" || name === "th") && stack[stack.length - 1] !== "tr") {
          open("tr", TR.kind, TR, HTML, {}, false);
        }
      }
    }
    if (name === "svg" || name === "math") {
      closeImplied(name, kind);
      open(name, kind, record, name === "svg" ? SVG : MATHML, attrs, selfClosing);
      return TextMode.Data;
    }
    closeImplied(name, kind);
    open(name, kind, record, HTML, attrs, selfClosing);
    return (kind & K_RAW) !== 0 ? modeOf(name) : TextMode.Data;
  };

  const endTag = (name: string): void => {
    if (frameset && name !== "noframes") return;
    if (flattened > 0) {
      flattened--;
      return;
    }
    // The name's record, if an element of that name was opened (an end tag alone makes none).
    const record = records.get(name);
    if (foreign > 0 && ns[stack.length - 1] !== HTML) {
      if (name === "p" || name === "br") {
        while (stack.length > 0 && inForeign()) pop();
      } else {
        // An end tag in SVG or MathML closes its match up to the first HTML element.
        const at = last(record?.foreign);
        if (at > last(anyHtmlAt)) {
          popTo(at);
          return;
        }
      }
    }
    if (name === "br") {
      emit(target(), [0, "br", {}]);
      emit(target(), [1, "br"]);
      return;
    }
    if (name === "p") {
      const at = openP > 0 ? inScope(P, BUTTON) : -1;
      if (at >= 0) popTo(at);
      else {
        // "</p>" without an open paragraph acts like "<p></p>".
        closeImplied("p", P.kind);
        emit(target(), [0, "p", {}]);
        emit(target(), [1, "p"]);
      }
      return;
    }
    const kind = kindIn(record, name);
    if ((kind & K_HEADING) !== 0) {
      const at = headingInScope();
      if (at >= 0) popTo(at);
      return;
    }
    if (name === "li") {
      const at = inScope(LI);
      const list = Math.max(last(OL.html), last(UL.html), last(OL.foreign), last(UL.foreign));
      if (at >= 0 && list < at) popTo(at);
      return;
    }
    if (name === "body" || name === "html") return;
    if (name === "template") {
      // A template ends with everything opened inside it.
      const at = last(TEMPLATE.html);
      if (at >= 0) popTo(at);
      return;
    }
    if ((kind & K_SCOPED_END) !== 0) {
      const at = inScope(record);
      if (at >= 0) popTo(at);
      return;
    }
    if ((kind & K_TABLE_PARTS) !== 0) {
      const at = last(record?.html);
      const table = last(TABLE.html);
      if (at >= 0 && at >= table) {
        popTo(at);
        return;
      }
      // Browsers give every row a tbody: "</tbody>" closes the rows of the table.
      if (
        table >= 0 && name === "tbody" && stack[table + 1] !== "thead" &&
        stack[table + 1] !== "tfoot"
      ) {
        popTo(table + 1);
      }
      return;
    }
    if ((kind & K_FORMATTING) !== 0) {
      const at = inScope(record);
      if (at < 0) return;
      // With a block inside it (<b><p>x</b>y), browsers keep what follows in the block
      // (the adoption agency): leave the element open rather than close the block.
      if (last(specialAt) > at) return;
      popTo(at);
      return;
    }
    // Any other end tag: its match, unless a special element comes first.
    const at = last(record?.html);
    if (at >= 0 && at >= Math.max(last(specialAt), last(pointAt))) popTo(at);
  };

  const wanted = attributes && new Set([...attributes, ...BUILDER_ATTRIBUTES]);
  // Text holds a NUL only where the page does (a character reference never decodes to one): a
  // page without any spares the search of every piece of text (and the tokenizer its own search).
  const mayHoldNul = html.indexOf("\u0000") !== -1;
  tokenize(
    html,
    {
      startTag,
      endTag,
      text(text) {
        if (framesetOk || frameset) {
          if (VISIBLE.test(text)) {
            if (frameset && stack.length === 0) return; // only <noframes> holds text there
            framesetOk = false;
          }
        }
        // NUL is dropped from HTML text and stands for U+FFFD in SVG and MathML.
        if (mayHoldNul && text.indexOf("\u0000") !== -1) {
          text = inForeign() ? noNul(text) : text.replace(NUL, "");
          if (!text) return;
        }
        if (tables > 0) {
          const top = stack.length - 1;
          if (stack[top] === "colgroup" && ns[top] === HTML && NOT_SPACE.test(text)) pop();
          if (inTableContext() && NOT_SPACE.test(text)) {
            emit(fosterTarget(), [2, text]);
            return;
          }
        }
        const into = target();
        if (into < 0) handler.text(text);
        else buffers[into].push([2, text]);
      },
      cdata: () => inForeign(),
    },
    wanted,
    {},
    { record, holdsNul: mayHoldNul },
  );
  popTo(0);
}

function modeOf(name: string): TextMode {
  if (name === "title" || name === "textarea") return TextMode.Rcdata;
  if (name === "script") return TextMode.Script;
  if (name === "plaintext") return TextMode.Plaintext;
  return TextMode.Rawtext;
}
