/**
 * Reading the RFC Editor's BibXML (`bib.ietf.org/public/rfc/bibxml9/`): a
 * subseries (STD, BCP, FYI) as a `<referencegroup>` of `<reference>`s.
 *
 * The XML is read by a small parser written for this shape, and safely: no
 * DTD is processed, no entity is expanded beyond the five predefined ones
 * and numeric character references (`&foo;` stays as written), and markup
 * that does not nest is refused.
 *
 * @module
 */

/** An XML element. */
export interface XmlElement {
  /** Tag name as written. */
  name: string;
  /** Attributes, decoded. */
  attrs: Record<string, string>;
  /** Child elements and text, in order. */
  children: (XmlElement | string)[];
}

/** Thrown when the text is not well-formed XML of the shape this parser reads. */
export class XmlError extends Error {
  /** Creates the error. */
  constructor(message: string) {
    super(message);
    this.name = "XmlError";
  }
}

const PREDEFINED: Record<string, string> = {
  lt: "<",
  gt: ">",
  amp: "&",
  quot: '"',
  apos: "'",
};

/** Decodes the predefined entities and character references; other references stay as written. */
export function decodeXmlText(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]{2,4});/g, (whole, ref: string) => {
    if (ref.startsWith("#")) {
      const code = ref[1] === "x" ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      if (code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff)) {
        return String.fromCodePoint(code);
      }
      return whole;
    }
    return PREDEFINED[ref] ?? whole;
  });
}

// Sticky patterns, matched in place (no copies of the rest of the document).
const NAME = /[A-Za-z_][\w.:-]*/y;
const ATTR = /\s+([A-Za-z_][\w.:-]*)\s*=\s*(?:"([^"<]*)"|'([^'<]*)')/y;

function matchAt(pattern: RegExp, text: string, at: number): RegExpExecArray | null {
  pattern.lastIndex = at;
  return pattern.exec(text);
}

/** Parses `xml` into its root element; throws {@link XmlError} on malformed input. */
export function parseXml(xml: string): XmlElement {
  const root: XmlElement = { name: "#root", attrs: {}, children: [] };
  const stack: XmlElement[] = [root];
  let i = 0;
  const text = (s: string) => {
    if (s) stack.at(-1)!.children.push(decodeXmlText(s));
  };
  while (i < xml.length) {
    const lt = xml.indexOf("<", i);
    if (lt < 0) {
      text(xml.slice(i));
      break;
    }
    text(xml.slice(i, lt));
    if (xml.startsWith("<!--", lt)) {
      const end = xml.indexOf("-->", lt + 4);
      if (end < 0) throw new XmlError("unterminated comment");
      i = end + 3;
    } else if (xml.startsWith("<![CDATA[", lt)) {
      const end = xml.indexOf("]]>", lt + 9);
      if (end < 0) throw new XmlError("unterminated CDATA section");
      stack.at(-1)!.children.push(xml.slice(lt + 9, end));
      i = end + 3;
    } else if (xml.startsWith("<?", lt)) {
      const end = xml.indexOf("?>", lt + 2);
      if (end < 0) throw new XmlError("unterminated processing instruction");
      i = end + 2;
    } else if (xml.startsWith("<!", lt)) {
      // A DOCTYPE: skipped, never processed (an internal subset is refused outright).
      const end = xml.indexOf(">", lt + 2);
      if (end < 0) throw new XmlError("unterminated declaration");
      if (xml.slice(lt, end).includes("[")) {
        throw new XmlError("documents with an internal DTD subset are refused");
      }
      i = end + 1;
    } else if (xml[lt + 1] === "/") {
      const m = matchAt(NAME, xml, lt + 2);
      const close = xml.indexOf(">", lt + 2);
      if (!m || close < 0 || xml.slice(lt + 2 + m[0].length, close).trim() !== "") {
        throw new XmlError("malformed end tag");
      }
      const open = stack.pop();
      if (!open || open === root || open.name !== m[0]) {
        throw new XmlError(`end tag </${m[0]}> does not match the open element`);
      }
      i = close + 1;
    } else {
      const m = matchAt(NAME, xml, lt + 1);
      if (!m) throw new XmlError("malformed start tag");
      const element: XmlElement = { name: m[0], attrs: {}, children: [] };
      let j = lt + 1 + m[0].length;
      for (;;) {
        const a = matchAt(ATTR, xml, j);
        if (!a) break;
        element.attrs[a[1]] = decodeXmlText(a[2] ?? a[3] ?? "");
        j += a[0].length;
      }
      while (/\s/.test(xml[j] ?? "")) j++;
      const selfClosing = xml.startsWith("/>", j);
      if (!selfClosing && xml[j] !== ">") throw new XmlError(`malformed start tag <${m[0]}>`);
      stack.at(-1)!.children.push(element);
      if (!selfClosing) stack.push(element);
      i = j + (selfClosing ? 2 : 1);
    }
  }
  if (stack.length !== 1) throw new XmlError(`element <${stack.at(-1)!.name}> is never closed`);
  const top = root.children.filter((c): c is XmlElement => typeof c !== "string");
  if (top.length !== 1) throw new XmlError("an XML document has exactly one root element");
  if (root.children.some((c) => typeof c === "string" && c.trim() !== "")) {
    throw new XmlError("text outside the root element");
  }
  return top[0];
}

/** Child elements named `name`. */
export function childrenNamed(element: XmlElement, name: string): XmlElement[] {
  return element.children.filter((c): c is XmlElement => typeof c !== "string" && c.name === name);
}

/** The text content of an element, whitespace collapsed. */
export function textOf(element: XmlElement | undefined): string {
  if (!element) return "";
  const parts: string[] = [];
  const walk = (e: XmlElement) => {
    for (const c of e.children) typeof c === "string" ? parts.push(c) : walk(c);
  };
  walk(element);
  return parts.join(" ").replace(/\s+/g, " ").trim();
}

/** One member of a subseries, as BibXML describes it. */
export interface SubseriesMember {
  /** RFC number. */
  rfc: number;
  /** Title (upstream text). */
  title: string;
  /** Author full names (upstream text). */
  authors: string[];
  /** Month and year as written ("March 1997"). */
  date: string;
}

/**
 * The members of a subseries document (`<referencegroup>` of
 * `<reference>`s, or a single `<reference>`). Members without a valid RFC
 * number are skipped. Throws {@link XmlError} when the document is not
 * BibXML.
 */
export function readSubseries(xml: string): SubseriesMember[] {
  const root = parseXml(xml);
  const references = root.name === "referencegroup"
    ? childrenNamed(root, "reference")
    : root.name === "reference"
    ? [root]
    : undefined;
  if (!references) {
    throw new XmlError(`expected a <referencegroup> or <reference>, found <${root.name}>`);
  }
  const members: SubseriesMember[] = [];
  for (const ref of references) {
    const front = childrenNamed(ref, "front")[0];
    const series = [
      ...childrenNamed(ref, "seriesInfo"),
      ...(front ? childrenNamed(front, "seriesInfo") : []),
    ];
    const rfcValue = series.find((s) => s.attrs.name === "RFC")?.attrs.value ??
      /^RFC(\d+)$/.exec(ref.attrs.anchor ?? "")?.[1];
    if (!rfcValue || !/^\d{1,5}$/.test(rfcValue.trim()) || Number(rfcValue) < 1) continue;
    const date = front ? childrenNamed(front, "date")[0] : undefined;
    members.push({
      rfc: Number(rfcValue),
      title: textOf(front ? childrenNamed(front, "title")[0] : undefined),
      authors: (front ? childrenNamed(front, "author") : []).map((a) =>
        (a.attrs.fullname ?? a.attrs.surname ?? textOf(childrenNamed(a, "organization")[0])).trim()
      ).filter(Boolean),
      date: [date?.attrs.month, date?.attrs.year].filter(Boolean).join(" "),
    });
  }
  return members;
}
