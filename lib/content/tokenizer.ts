/**
 * A fast HTML tokenizer and tree walker for conversion.
 *
 * It scans with `indexOf` and sticky regular expressions instead of a
 * character state machine, which is what lets a 15 MB page through in a few
 * hundred milliseconds. It is not a full HTML5 parser; it implements what
 * conversion needs, the way browsers do it:
 *
 * - comments, doctype, processing instructions and CDATA are skipped;
 * - `script`, `style`, `xmp`, `iframe`, `noembed`, `noframes` and `noscript`
 *   are raw text, `title` and `textarea` raw text with character references;
 * - tag and attribute names are lowercased, attribute values and text are
 *   entity-decoded (all named references, numeric references, legacy forms);
 * - every open element gets exactly one close callback: void elements close
 *   at once, a self-closing tag closes at once inside SVG and MathML, the
 *   usual implied end tags apply (`p` before blocks, `li`, `dt`/`dd`, table
 *   parts, `option`), an end tag closes everything opened after its match,
 *   unmatched end tags are ignored, and the rest is closed at the end;
 * - nesting is capped (10,000 levels): deeper elements are flattened, so a
 *   hostile page cannot exhaust the stack.
 *
 * @module
 */
import { decodeHTML, decodeHTMLAttribute } from "entities";

/** Callbacks of {@link walkHtml}; open and close calls always balance. */
export interface HtmlHandler {
  /** An element opens. */
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

// A <p> is not closed across these (its search stops there).
const P_SCOPE = new Set([
  "button",
  "table",
  "td",
  "th",
  "caption",
  "html",
  "object",
  "marquee",
  "applet",
  "template",
]);

/** Deepest nesting kept; deeper elements are flattened into their parent. */
export const MAX_DEPTH = 10_000;

// deno-lint-ignore no-control-regex
const TAG_NAME = /[a-zA-Z][^\s/>\u0000]*/y;

const RAW_END = new Map<string, RegExp>();

function decodeText(s: string): string {
  return s.indexOf("&") === -1 ? s : decodeHTML(s);
}

function decodeAttr(s: string): string {
  return s.indexOf("&") === -1 ? s : decodeHTMLAttribute(s);
}

/**
 * Tokenizes `html` and reports balanced elements and text to `handler`.
 * With `attributes`, only those attributes are decoded and reported (the
 * rest are skipped, which saves most of the attribute work on large pages).
 */
export function walkHtml(
  html: string,
  handler: HtmlHandler,
  attributes?: ReadonlySet<string>,
): void {
  const stack: string[] = [];
  let foreign = 0; // depth inside svg/math, where self-closing counts
  let openP = 0; // open <p> elements: the p-closing search runs only when there is one
  let flattened = 0; // elements opened beyond MAX_DEPTH

  const pop = (): string => {
    const closed = stack.pop()!;
    if (closed === "p") openP--;
    else if (closed === "svg" || closed === "math") foreign = Math.max(0, foreign - 1);
    handler.close(closed);
    return closed;
  };
  const popTo = (index: number) => {
    while (stack.length > index) pop();
  };

  const closeImplied = (name: string) => {
    if (openP > 0 && CLOSES_P.has(name)) {
      for (let i = stack.length - 1; i >= 0; i--) {
        const open = stack[i];
        if (open === "p") {
          popTo(i);
          break;
        }
        if (P_SCOPE.has(open)) break;
      }
    }
    const rule = IMPLIED_MAP.get(name);
    if (rule) {
      for (let i = stack.length - 1; i >= 0; i--) {
        const open = stack[i];
        if (rule.boundary.has(open)) break;
        if (rule.closes.has(open)) {
          popTo(i);
          break;
        }
      }
    }
  };

  const openElement = (name: string, attrs: Record<string, string>, selfClosing: boolean) => {
    if (foreign === 0) closeImplied(name);
    if (stack.length >= MAX_DEPTH && !VOID.has(name)) {
      flattened++;
      return;
    }
    handler.open(name, attrs);
    if (VOID.has(name) || (selfClosing && foreign > 0)) {
      handler.close(name);
      return;
    }
    stack.push(name);
    if (name === "p") openP++;
    else if (name === "svg" || name === "math") foreign++;
  };

  const closeElement = (name: string) => {
    if (flattened > 0) {
      flattened--;
      return;
    }
    for (let i = stack.length - 1; i >= 0; i--) {
      if (stack[i] === name) {
        popTo(i);
        return;
      }
      // An end tag does not reach past the element it would have to close.
      if (
        foreign === 0 &&
        (stack[i] === "table" && name !== "table" &&
          !/^(td|th|tr|tbody|thead|tfoot|caption)$/.test(name))
      ) return;
    }
    // </p> and </br> without an open element behave like <p></p> and <br>.
    if (name === "br") {
      handler.open("br", {});
      handler.close("br");
    }
  };

  const n = html.length;
  let i = 0;
  while (i < n) {
    const lt = html.indexOf("<", i);
    const end = lt === -1 ? n : lt;
    if (end > i) handler.text(decodeText(html.slice(i, end)));
    if (lt === -1) break;
    i = lt;
    const c = html.charCodeAt(i + 1);
    if (c === 33) { // "!"
      if (html.startsWith("<!--", i)) {
        const close = html.indexOf("-->", i + 4);
        i = close === -1 ? n : close + 3;
      } else if (html.startsWith("<![CDATA[", i)) {
        const close = html.indexOf("]]>", i + 9);
        const stop = close === -1 ? n : close;
        if (foreign > 0) handler.text(html.slice(i + 9, stop));
        i = close === -1 ? n : close + 3;
      } else {
        const close = html.indexOf(">", i + 2);
        i = close === -1 ? n : close + 1;
      }
      continue;
    }
    if (c === 63) { // "?"
      const close = html.indexOf(">", i + 2);
      i = close === -1 ? n : close + 1;
      continue;
    }
    if (c === 47) { // "/"
      TAG_NAME.lastIndex = i + 2;
      const m = TAG_NAME.exec(html);
      const close = html.indexOf(">", i + 2);
      if (!m) {
        // "</>" or "</ " is not a tag: a bogus comment up to ">".
        i = close === -1 ? n : close + 1;
        continue;
      }
      closeElement(m[0].toLowerCase());
      i = close === -1 ? n : close + 1;
      continue;
    }
    if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 122))) {
      // A "<" that does not start a tag is text.
      handler.text("<");
      i++;
      continue;
    }
    // Tag name: up to whitespace, "/", ">".
    let p = i + 1;
    let upper = false;
    for (; p < n; p++) {
      const ch = html.charCodeAt(p);
      if (ch === 62 || ch === 47 || ch === 32 || ch === 10 || ch === 9 || ch === 13 || ch === 12) {
        break;
      }
      if (ch >= 65 && ch <= 90) upper = true;
    }
    const rawName = html.slice(i + 1, p);
    const name = upper ? rawName.toLowerCase() : rawName;
    const attrs: Record<string, string> = {};
    let selfClosing = false;
    // Attributes.
    while (p < n) {
      let ch = html.charCodeAt(p);
      while (ch === 32 || ch === 10 || ch === 9 || ch === 13 || ch === 12) {
        ch = html.charCodeAt(++p);
      }
      if (ch === 62) { // ">"
        p++;
        break;
      }
      if (p >= n) break;
      if (ch === 47) { // "/"
        if (html.charCodeAt(p + 1) === 62) {
          selfClosing = true;
          p += 2;
          break;
        }
        p++;
        continue;
      }
      // Attribute name.
      const nameStart = p;
      let attrUpper = false;
      for (p++; p < n; p++) {
        ch = html.charCodeAt(p);
        if (
          ch === 61 || ch === 62 || ch === 47 || ch === 32 || ch === 10 || ch === 9 || ch === 13 ||
          ch === 12
        ) break;
        if (ch >= 65 && ch <= 90) attrUpper = true;
      }
      let attrName = html.slice(nameStart, p);
      if (attrUpper || html.charCodeAt(nameStart) <= 90) attrName = attrName.toLowerCase();
      const keep = attributes === undefined || attributes.has(attrName);
      while (ch === 32 || ch === 10 || ch === 9 || ch === 13 || ch === 12) {
        ch = html.charCodeAt(++p);
      }
      let value = "";
      if (ch === 61) { // "="
        ch = html.charCodeAt(++p);
        while (ch === 32 || ch === 10 || ch === 9 || ch === 13 || ch === 12) {
          ch = html.charCodeAt(++p);
        }
        if (ch === 34 || ch === 39) {
          const close = html.indexOf(ch === 34 ? '"' : "'", p + 1);
          const stop = close === -1 ? n : close;
          if (keep) value = decodeAttr(html.slice(p + 1, stop));
          p = close === -1 ? n : close + 1;
        } else {
          const start = p;
          for (; p < n; p++) {
            ch = html.charCodeAt(p);
            if (ch === 62 || ch === 32 || ch === 10 || ch === 9 || ch === 13 || ch === 12) break;
          }
          if (keep) value = decodeAttr(html.slice(start, p));
        }
      }
      if (keep && attrs[attrName] === undefined) attrs[attrName] = value;
    }
    i = p;
    openElement(name, attrs, selfClosing);
    if (RAW_TEXT.has(name) || ESCAPABLE_RAW.has(name)) {
      if (selfClosing && foreign > 0) continue;
      if (name === "plaintext") {
        handler.text(html.slice(i));
        i = n;
        break;
      }
      // Raw text runs to the matching end tag, whatever its case.
      let re = RAW_END.get(name);
      if (!re) RAW_END.set(name, re = new RegExp(`</${name}[\\s/>]`, "ig"));
      re.lastIndex = i;
      const m = re.exec(html);
      const stop = m ? m.index : n;
      const body = html.slice(i, stop);
      if (body) handler.text(ESCAPABLE_RAW.has(name) ? decodeText(body) : body);
      i = stop;
      if (m) {
        const close = html.indexOf(">", stop);
        i = close === -1 ? n : close + 1;
        closeElement(name);
      }
    }
  }
  popTo(0);
}
