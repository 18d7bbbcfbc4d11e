/**
 * Reading the RFC Editor's BibXML (`bib.ietf.org/public/rfc/bibxml9/`): a
 * subseries (STD, BCP, FYI) as a `<referencegroup>` of `<reference>`s.
 *
 * The XML is read by the shared safe reader (`lib/content/html/xml.ts`): no DTD
 * is processed (a plain DOCTYPE is skipped, an internal subset refused), no
 * entity is expanded beyond the five predefined ones and numeric character
 * references (`&foo;` stays as written), and markup that does not nest is
 * refused.
 *
 * @module
 */
import {
  childrenNamed,
  LENIENT_XML,
  parseXml as parseSharedXml,
  textOf,
  type XmlElement as SharedXmlElement,
  XmlError,
} from "../../content/html/xml.ts";

/** An XML element as this module's {@link parseXml} gives it: names as written. */
export interface XmlElement {
  /** Tag name as written. */
  name: string;
  /** Attributes, decoded. */
  attrs: Record<string, string>;
  /** Child elements and text, in order. */
  children: (XmlElement | string)[];
}

export { childrenNamed, decodeXmlText, textOf, XmlError } from "../../content/html/xml.ts";

/** Parses `xml` into its root element (names as written); throws {@link XmlError} on malformed input. */
export function parseXml(xml: string): XmlElement {
  const plain = (e: SharedXmlElement): XmlElement => ({
    name: e.name,
    attrs: e.attrs,
    children: e.children.map((c) => typeof c === "string" ? c : plain(c)),
  });
  return plain(parseSharedXml(xml, LENIENT_XML));
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
  const root = parseSharedXml(xml, LENIENT_XML);
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
