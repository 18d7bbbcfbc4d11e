/**
 * A small, safe XML reader: elements, attributes, text and CDATA, with
 * namespaces resolved. No DTD is ever processed: a DOCTYPE is refused, or
 * (when asked) a plain one is skipped while an internal subset is refused.
 * Only the five predefined entities and numeric character references are
 * decoded; markup that does not nest, and nesting deeper than a limit, is
 * refused.
 *
 * @module
 */

/** An XML element. */
export interface XmlElement {
  /** Tag name as written (qualified: "prefix:local"). */
  name: string;
  /** Namespace URI ("" when none). */
  ns: string;
  /** Local name (the tag name without its prefix). */
  local: string;
  /** Attributes by qualified name as written, decoded. */
  attrs: Record<string, string>;
  /** Child elements and text, in order. */
  children: (XmlElement | string)[];
}

/** What was wrong with the text; callers may word each kind their own way. */
export type XmlFault =
  | "unterminated-comment"
  | "unterminated-cdata"
  | "misplaced-cdata"
  | "unterminated-pi"
  | "unterminated-declaration"
  | "doctype"
  | "internal-subset"
  | "malformed-end-tag"
  | "mismatched-end-tag"
  | "malformed-start-tag"
  | "multiple-roots"
  | "no-root"
  | "too-deep"
  | "unclosed"
  | "text-outside-root"
  | "bare-ampersand"
  | "invalid-char-ref"
  | "undeclared-entity"
  | "undeclared-prefix"
  | "other";

/** Thrown when the text is not well-formed XML of the shape this parser reads. */
export class XmlError extends Error {
  /** The kind of fault. */
  readonly fault: XmlFault;
  /** The name the fault is about (tag, entity or prefix), "" when none. */
  readonly detail: string;
  /** Creates the error. */
  constructor(message: string, fault: XmlFault = "other", detail = "") {
    super(message);
    this.name = "XmlError";
    this.fault = fault;
    this.detail = detail;
  }
}

/** How {@link parseXml} treats DOCTYPEs, entities and namespace prefixes. */
export interface XmlOptions {
  /** "refuse" (default): any DOCTYPE or declaration; "skip-plain": skip one without an internal subset. */
  doctype?: "refuse" | "skip-plain";
  /** "refuse" (default): a bare '&', a bad character reference or an undeclared entity; "keep": leave them as written. */
  unknownEntities?: "refuse" | "keep";
  /** "refuse" (default): an undeclared namespace prefix; "allow": its element gets namespace "". */
  undeclaredPrefixes?: "refuse" | "allow";
  /**
   * "eager" (default): text or a second element outside the root is refused
   * where it stands; "at-end": they are noted and refused once the whole
   * text has been read (after unclosed elements).
   */
  rootChecks?: "eager" | "at-end";
  /** Most elements open at once (default 64). */
  maxDepth?: number;
}

/**
 * Settings for documents read by tag name (BibXML, a plain Atom feed): a
 * plain DOCTYPE skipped, unknown entities kept as written, undeclared
 * prefixes allowed.
 */
export const LENIENT_XML: Readonly<XmlOptions> = {
  doctype: "skip-plain",
  unknownEntities: "keep",
  undeclaredPrefixes: "allow",
  rootChecks: "at-end",
};

/** The default nesting limit. */
export const MAX_XML_DEPTH = 64;

const PREDEFINED: Record<string, string> = {
  lt: "<",
  gt: ">",
  amp: "&",
  quot: '"',
  apos: "'",
};

/**
 * Decodes the predefined entities and numeric character references. Other
 * references stay as written (`unknown: "keep"`, the default) or throw
 * {@link XmlError} (`unknown: "refuse"`).
 */
export function decodeXmlText(text: string, unknown: "refuse" | "keep" = "keep"): string {
  const refuse = unknown === "refuse";
  return text.replace(/&([^;&\s]{0,12});?/g, (whole, ref: string) => {
    if (!whole.endsWith(";")) {
      if (refuse) throw new XmlError("a bare '&' in the XML", "bare-ampersand");
      return whole;
    }
    if (Object.hasOwn(PREDEFINED, ref)) return PREDEFINED[ref];
    const m = /^#(?:x([0-9a-fA-F]{1,6})|(\d{1,7}))$/.exec(ref);
    if (m) {
      const code = m[1] ? parseInt(m[1], 16) : Number(m[2]);
      if (code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff)) {
        return String.fromCodePoint(code);
      }
      if (refuse) {
        throw new XmlError("an invalid character reference in the XML", "invalid-char-ref");
      }
      return whole;
    }
    if (refuse) {
      throw new XmlError(`an undeclared entity &${ref}; in the XML`, "undeclared-entity", ref);
    }
    return whole;
  });
}

// Sticky patterns, matched in place (no copies of the rest of the document).
const NAME = /[A-Za-z_][\w.:-]*/y;
const ATTR = /\s+([^\s=\/>]+)\s*=\s*(?:"([^"<]*)"|'([^'<]*)')/y;
const XML_NS = "http://www.w3.org/XML/1998/namespace";

function matchAt(pattern: RegExp, text: string, at: number): RegExpExecArray | null {
  pattern.lastIndex = at;
  return pattern.exec(text);
}

interface Open {
  el: XmlElement;
  scope: Record<string, string>;
}

/** Parses `xml` into its root element; throws {@link XmlError} on malformed or refused input. */
export function parseXml(xml: string, options: XmlOptions = {}): XmlElement {
  const entities = options.unknownEntities ?? "refuse";
  const maxDepth = options.maxDepth ?? MAX_XML_DEPTH;
  const eager = options.rootChecks !== "at-end";
  let roots = 0;
  let strayText = false;
  const outside = (text: string) => {
    if (!text.trim()) return;
    if (eager) throw new XmlError("text outside the root element", "text-outside-root");
    strayText = true;
  };
  const stack: Open[] = [];
  let root: XmlElement | undefined;
  let i = xml.charCodeAt(0) === 0xfeff ? 1 : 0;
  while (i < xml.length) {
    const lt = xml.indexOf("<", i);
    const chunk = lt < 0 ? xml.slice(i) : xml.slice(i, lt);
    if (chunk) {
      if (stack.length > 0) stack.at(-1)!.el.children.push(decodeXmlText(chunk, entities));
      else outside(chunk);
    }
    if (lt < 0) break;
    if (xml.startsWith("<!--", lt)) {
      const end = xml.indexOf("-->", lt + 4);
      if (end < 0) throw new XmlError("unterminated comment", "unterminated-comment");
      i = end + 3;
    } else if (xml.startsWith("<![CDATA[", lt)) {
      const end = xml.indexOf("]]>", lt + 9);
      if (end < 0) throw new XmlError("unterminated CDATA section", "unterminated-cdata");
      const data = xml.slice(lt + 9, end);
      if (stack.length > 0) stack.at(-1)!.el.children.push(data);
      else if (eager) throw new XmlError("a misplaced CDATA section", "misplaced-cdata");
      else outside(data);
      i = end + 3;
    } else if (xml.startsWith("<?", lt)) {
      const end = xml.indexOf("?>", lt + 2);
      if (end < 0) throw new XmlError("unterminated processing instruction", "unterminated-pi");
      i = end + 2;
    } else if (xml.startsWith("<!", lt)) {
      if (options.doctype !== "skip-plain") {
        throw new XmlError(
          "a DOCTYPE or declaration, which is refused (no entity expansion)",
          "doctype",
        );
      }
      const end = xml.indexOf(">", lt + 2);
      if (end < 0) throw new XmlError("unterminated declaration", "unterminated-declaration");
      if (xml.slice(lt, end).includes("[")) {
        throw new XmlError("documents with an internal DTD subset are refused", "internal-subset");
      }
      i = end + 1;
    } else if (xml[lt + 1] === "/") {
      const m = matchAt(NAME, xml, lt + 2);
      const close = xml.indexOf(">", lt + 2);
      if (!m || close < 0 || xml.slice(lt + 2 + m[0].length, close).trim() !== "") {
        throw new XmlError("malformed end tag", "malformed-end-tag");
      }
      const open = stack.pop();
      if (!open || open.el.name !== m[0]) {
        throw new XmlError(
          `end tag </${m[0]}> does not match the open element`,
          "mismatched-end-tag",
          m[0],
        );
      }
      i = close + 1;
    } else {
      const m = matchAt(NAME, xml, lt + 1);
      if (!m) throw new XmlError("malformed start tag", "malformed-start-tag");
      const name = m[0];
      const raw: [string, string][] = [];
      let j = lt + 1 + name.length;
      for (let a = matchAt(ATTR, xml, j); a; a = matchAt(ATTR, xml, j)) {
        raw.push([a[1], a[2] ?? a[3] ?? ""]);
        j += a[0].length;
      }
      while (/\s/.test(xml[j] ?? "")) j++;
      const selfClosing = xml.startsWith("/>", j);
      if (!selfClosing && xml[j] !== ">") {
        throw new XmlError(`malformed start tag <${name}>`, "malformed-start-tag", name);
      }
      if (root && stack.length === 0 && eager) {
        throw new XmlError("an XML document has exactly one root element", "multiple-roots");
      }
      if (stack.length >= maxDepth) throw new XmlError("elements nested too deeply", "too-deep");
      const attrs: Record<string, string> = {};
      for (const [k, v] of raw) attrs[k] = decodeXmlText(v, entities);
      const parentScope = stack.at(-1)?.scope ?? { xml: XML_NS };
      let scope = parentScope;
      for (const [k, v] of Object.entries(attrs)) {
        if (k === "xmlns" || k.startsWith("xmlns:")) {
          if (scope === parentScope) scope = { ...parentScope };
          scope[k === "xmlns" ? "" : k.slice(6)] = v;
        }
      }
      const colon = name.indexOf(":");
      const prefix = colon < 0 ? "" : name.slice(0, colon);
      const ns = Object.hasOwn(scope, prefix) ? scope[prefix] : undefined;
      if (ns === undefined && prefix !== "" && options.undeclaredPrefixes !== "allow") {
        throw new XmlError(
          `the XML uses an undeclared namespace prefix '${prefix}'`,
          "undeclared-prefix",
          prefix,
        );
      }
      const el: XmlElement = {
        name,
        ns: ns ?? "",
        local: colon < 0 ? name : name.slice(colon + 1),
        attrs,
        children: [],
      };
      if (stack.length > 0) stack.at(-1)!.el.children.push(el);
      else {
        root ??= el;
        roots++;
      }
      if (!selfClosing) stack.push({ el, scope });
      i = j + (selfClosing ? 2 : 1);
    }
  }
  if (stack.length > 0) {
    throw new XmlError(
      `element <${stack.at(-1)!.el.name}> is never closed`,
      "unclosed",
      stack.at(-1)!.el.name,
    );
  }
  if (!root) throw new XmlError("an XML document has exactly one root element", "no-root");
  if (roots > 1) {
    throw new XmlError("an XML document has exactly one root element", "multiple-roots");
  }
  if (strayText) throw new XmlError("text outside the root element", "text-outside-root");
  return root;
}

/** What the name-based helpers read of an element. */
export interface XmlNamed {
  /** Tag name as written. */
  name: string;
  /** Child elements and text, in order. */
  children: (XmlNamed | string)[];
}

/** Child elements whose tag name, as written, is `name`. */
export function childrenNamed<E extends XmlNamed>(element: E, name: string): E[] {
  return element.children.filter((c) => typeof c !== "string" && c.name === name) as E[];
}

/** Child elements in namespace `ns` with local name `local`. */
export function childrenNs(element: XmlElement, ns: string, local: string): XmlElement[] {
  return element.children.filter((c): c is XmlElement =>
    typeof c !== "string" && c.ns === ns && c.local === local
  );
}

/** All the text inside an element, concatenated as is ("" for none). */
export function textContent(element: XmlNamed | undefined): string {
  if (!element) return "";
  return element.children.map((c) => typeof c === "string" ? c : textContent(c)).join("");
}

/** The text content of an element, its pieces joined by spaces and whitespace collapsed. */
export function textOf(element: XmlNamed | undefined): string {
  if (!element) return "";
  const parts: string[] = [];
  const walk = (e: XmlNamed) => {
    for (const c of e.children) typeof c === "string" ? parts.push(c) : walk(c);
  };
  walk(element);
  return parts.join(" ").replace(/\s+/g, " ").trim();
}
