/**
 * A Document as bytes, for the shared page cache: what it was built from
 * (the Markdown, anchors, metadata, facts, citation) as gzip-compressed
 * JSON. Everything derived (sections, slices, the search index, memos) is
 * rebuilt on the reading side, on first use as always, so an entry is
 * about a third of the Markdown's size.
 *
 * Trusted frontmatter values keep their type through the store: they are
 * written tagged and re-made through a Trusted constructor, which checks
 * their shape again, so a tampered entry cannot put a line break or a
 * control character into frontmatter.
 *
 * @module
 */
import { gunzipSync, gzipSync } from "node:zlib";
import { type FrontmatterScalar, type FrontmatterValue, Trusted, trusted } from "../../trust.ts";
import { Document, type DocumentFact, type DocumentInit } from "./document.ts";

/** Format version; an entry of another version reads as a miss. */
const VERSION = 1;

/** Largest decompressed entry read back (a guard against a corrupted store). */
const MAX_DECODED_BYTES = 256 * 1024 * 1024;

type Scalar = number | boolean | { t: string };

function scalar(value: FrontmatterScalar): Scalar {
  return value instanceof Trusted ? { t: value.toString() } : value;
}

function value(v: FrontmatterValue): Scalar | Scalar[] | null {
  if (v === null || v === undefined) return null;
  if (Array.isArray(v)) return v.map(scalar);
  return scalar(v as FrontmatterScalar);
}

const ANY_LINE = /^[^\n]*$/;

function unscalar(v: unknown): FrontmatterScalar {
  if (typeof v === "number" || typeof v === "boolean") return v;
  if (v && typeof v === "object" && typeof (v as { t?: unknown }).t === "string") {
    return trusted.matching((v as { t: string }).t, ANY_LINE);
  }
  throw new TypeError("not a frontmatter value");
}

function unvalue(v: unknown): FrontmatterValue {
  if (v === null) return null;
  return Array.isArray(v) ? v.map(unscalar) : unscalar(v);
}

/** The bytes of `doc`. */
export function encodeDocument(doc: Document): Uint8Array {
  const init = {
    v: VERSION,
    url: doc.url,
    kind: doc.kind,
    title: doc.title,
    markdown: doc.markdown,
    anchors: [...doc.anchors],
    canonicalUrl: doc.canonicalUrl,
    contentType: doc.contentType,
    description: doc.description,
    lang: doc.lang,
    jsShell: doc.jsShell,
    droppedShare: doc.droppedShare,
    pages: doc.pages,
    degraded: doc.degraded,
    facts: doc.facts.map((f) => ({ ...f, value: value(f.value) })),
    citation: doc.citation,
    source: doc.source,
  };
  return gzipSync(new TextEncoder().encode(JSON.stringify(init)), { level: 6 });
}

/** The Document in `bytes`, or undefined when they are not an entry of this version. */
export function decodeDocument(bytes: Uint8Array): Document | undefined {
  let parsed: Record<string, unknown>;
  try {
    const raw = gunzipSync(bytes, { maxOutputLength: MAX_DECODED_BYTES });
    parsed = JSON.parse(new TextDecoder().decode(raw));
  } catch {
    return undefined;
  }
  if (
    parsed?.v !== VERSION || typeof parsed.url !== "string" || typeof parsed.markdown !== "string"
  ) {
    return undefined;
  }
  try {
    const facts = (parsed.facts as (DocumentFact & { value: unknown })[] ?? []).map((f) => ({
      ...f,
      value: unvalue(f.value),
    }));
    const init = {
      ...parsed,
      anchors: new Map(parsed.anchors as [string, number][]),
      facts,
    } as unknown as DocumentInit;
    return new Document(init);
  } catch {
    return undefined;
  }
}
