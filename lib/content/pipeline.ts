/**
 * From a response to a Document, by content type.
 *
 * | served as                                   | becomes                               |
 * |---------------------------------------------|---------------------------------------|
 * | text/html, application/xhtml+xml            | Markdown by `convert/html.ts`, furniture gone |
 * | text/markdown (or a .md URL served as text) | itself                                |
 * | text/plain                                  | itself, lines that look like headings escaped |
 * | application/json, +json                     | pretty-printed in a json code block   |
 * | application/xml, text/xml, +xml (RSS, Atom) | an xml code block                     |
 * | application/pdf                             | text per page, one section per page   |
 *
 * Anything else is refused with an error naming these types. A response
 * without a type is sniffed.
 *
 * @module
 */
import { Document, type DocumentKind } from "./document/document.ts";
import { codeDocument } from "./code/files.ts";
import { isSourcePath } from "./code/languages.ts";
import { AnchorTable } from "./document/anchors.ts";
import {
  type ConvertedFields,
  convertInWorker,
  tooSlow,
  WORKER_MIN_CHARS,
} from "./workers/pool.ts";
import { convertDeadlineMs } from "../config.ts";
import { ConversionDeadline, withinDeadline } from "../runtime/cancel.ts";
import type { IndexParts } from "./workers/messages.ts";
import { convertHtml, type HtmlOptions } from "./convert/html.ts";
import { COLLECT_MIN_CHARS, PageHtml } from "./html/page_html.ts";
import { adoptQueryIndex, hasQueryIndex, QueryIndex } from "./question/extract.ts";
import { SearchIndex } from "./search/bm25.ts";
import { currentProgress } from "../runtime/progress.ts";
import { freeArrays, prepareCollector, wholeBuffer } from "../runtime/memory.ts";
import { ContentError } from "../errors.ts";

/** The types accepted, for messages. */
export const SUPPORTED_TYPES =
  "HTML, XHTML, Markdown, plain text, JSON, XML (including RSS and Atom) and PDF";

/** A fetched or read resource. */
export interface Resource {
  /** Where it came from. */
  url: string;
  /** Media type without parameters ("" if unknown). */
  contentType: string;
  /** Raw bytes. */
  bytes: Uint8Array;
  /** The bytes as text, decoded with the right charset. */
  text(): string;
  /** Served through a proxy. */
  degraded?: boolean;
  /**
   * The charset {@link Resource.text} decodes with, found without decoding
   * (so a worker can decode a large page itself).
   */
  encoding?(): string;
}

// Control characters that do not occur in text.
// deno-lint-ignore no-control-regex
const BINARY = /[\u0000-\u0008\u000e-\u001a]/;

/** Which kind of document a media type (and URL, and first bytes) gives. */
export function kindOf(
  contentType: string,
  url: string,
  bytes: Uint8Array,
): Exclude<DocumentKind, "record"> | undefined {
  const t = contentType.toLowerCase();
  const path = (() => {
    try {
      return new URL(url).pathname.toLowerCase();
    } catch {
      return url.toLowerCase();
    }
  })();
  if (t === "text/html" || t === "application/xhtml+xml") return "html";
  if (t === "text/markdown" || t === "text/x-markdown") return "markdown";
  if (t === "application/json" || t === "text/json" || t.endsWith("+json")) return "json";
  if (t === "application/xml" || t === "text/xml" || t.endsWith("+xml")) return "xml";
  if (t === "application/pdf") return "pdf";
  if (t === "text/plain") return /\.(md|markdown|mdown|mkd)$/.test(path) ? "markdown" : "text";
  if (t === "" || t === "application/octet-stream" || t === "binary/octet-stream") {
    const head = new TextDecoder().decode(bytes.subarray(0, 512)).trimStart();
    if (head.startsWith("%PDF-")) return "pdf";
    if (/^<(!doctype html|html|head|body|meta|title)/i.test(head)) return "html";
    if (/^<\?xml/i.test(head)) return "xml";
    if (/^[{[]/.test(head)) return "json";
    if (/\.(md|markdown)$/.test(path)) return "markdown";
    if (/\.(html?|xhtml)$/.test(path)) return "html";
    if (/\.pdf$/.test(path)) return "pdf";
    if (t === "" && !BINARY.test(head)) return "text";
  }
  return undefined;
}

/**
 * Whether a resource is a source file read as code (outline or line
 * chunks): a known code extension served as text, as octet-stream without
 * binary bytes, or under a code media type.
 */
function isSourceFile(resource: Resource, kind: DocumentKind | undefined): boolean {
  let path: string;
  try {
    path = decodeURIComponent(new URL(resource.url).pathname);
  } catch {
    return false;
  }
  if (!isSourcePath(path)) return false;
  if (kind === "text") return true;
  const t = resource.contentType.toLowerCase();
  const code =
    /^(?:text\/x-|application\/x-(?:sh|python|ruby|php|httpd-php)$|(?:text|application)\/(?:javascript|ecmascript|typescript|x-javascript|x-typescript)$)/;
  if (kind === undefined && (code.test(t) || /octet-stream$/.test(t))) {
    return !BINARY.test(new TextDecoder().decode(resource.bytes.subarray(0, 4096)));
  }
  return false;
}

function fileTitle(url: string): string {
  try {
    const u = new URL(url);
    const last = decodeURIComponent(u.pathname.split("/").filter(Boolean).pop() ?? "");
    return last || u.hostname;
  } catch {
    return url;
  }
}

function fenced(lang: string, body: string): string {
  let fence = "```";
  while (body.includes(fence)) fence += "`";
  return `${fence}${lang}\n${body}\n${fence}`;
}

/** Lines of plain text that Markdown would read as structure are escaped. */
function escapePlain(text: string): string {
  return text.replace(/^(#{1,6}[ \t]|```|~~~)/gm, "\\$1");
}

async function pdfDocument(resource: Resource): Promise<Document> {
  const { getDocumentProxy, extractText, getMeta } = await import("unpdf");
  let pdf;
  try {
    pdf = await getDocumentProxy(new Uint8Array(resource.bytes));
  } catch (error) {
    throw new ContentError(
      `the PDF at ${resource.url} could not be read (${(error as Error).message})`,
    );
  }
  const { totalPages, text } = await extractText(pdf, { mergePages: false });
  let title = "";
  try {
    const meta = await getMeta(pdf);
    const info = meta.info as Record<string, unknown> | undefined;
    if (typeof info?.Title === "string") title = info.Title.trim();
  } catch { /* no metadata */ }
  const pages = (text as string[]).map((page, i) =>
    `## Page ${i + 1}\n\n${
      escapePlain(page.replace(/[ \t]+\n/g, "\n").trim()) || "(no text on this page)"
    }`
  );
  return new Document({
    url: resource.url,
    kind: "pdf",
    title: title || fileTitle(resource.url),
    markdown: pages.join("\n\n"),
    contentType: "application/pdf",
    pages: totalPages,
    degraded: resource.degraded,
  });
}

/**
 * Builds a Document on this thread within the conversion deadline `ms` (a
 * page of HTML converted here, or a page of text, Markdown, JSON or XML:
 * the walks look at the clock every few thousand lines); past it, a
 * `too_slow` ContentError naming the page, its `bytes` and `what` it is
 * made of.
 */
function buildWithin(
  url: string,
  bytes: number,
  what: string,
  ms: number,
  build: () => Document,
): Document {
  try {
    return withinDeadline(ms, build);
  } catch (error) {
    if (error instanceof ConversionDeadline) throw tooSlow(url, bytes, ms, what);
    throw error;
  }
}

/**
 * Converts a resource to a Document, or throws a {@link ContentError}.
 * `deadlineMs` replaces the conversion deadline ({@link convertDeadlineMs})
 * of a page that is not HTML (HTML's is the conversion pool's, see
 * `workers/pool.ts`, or {@link convertHere}'s).
 */
export async function toDocument(
  resource: Resource,
  options: { fullPage?: boolean; signal?: AbortSignal; deadlineMs?: number } = {},
): Promise<Document> {
  const kind = kindOf(resource.contentType, resource.url, resource.bytes);
  if (isSourceFile(resource, kind)) {
    const path = new URL(resource.url).pathname;
    const text = resource.text();
    return await codeDocument({ url: resource.url, path, text, title: fileTitle(resource.url) });
  }
  if (kind === undefined) {
    throw new ContentError(
      `${resource.url} is ${
        resource.contentType || "of an unknown type"
      }, which cannot be read as text; supported: ${SUPPORTED_TYPES}`,
      { kind: "unsupported_type" },
    );
  }
  const base = {
    url: resource.url,
    contentType: resource.contentType,
    degraded: resource.degraded,
  };
  if (kind === "pdf") return await pdfDocument(resource);
  if (kind === "html") {
    return await htmlDocumentOffThread(resource, resource.url, {
      contentType: resource.contentType,
      degraded: resource.degraded,
      fullPage: options.fullPage,
    }, options.signal);
  }
  return buildWithin(
    resource.url,
    resource.bytes.length,
    "text",
    options.deadlineMs ?? convertDeadlineMs(),
    () => textDocument(resource, kind, base),
  );
}

/** The Document of a page of text that is not HTML. */
function textDocument(
  resource: Resource,
  kind: "markdown" | "text" | "json" | "xml",
  base: { url: string; contentType: string; degraded?: boolean },
): Document {
  switch (kind) {
    case "markdown":
      return new Document({
        ...base,
        kind,
        title: /^#\s+(.+)$/m.exec(resource.text())?.[1]?.trim() ?? fileTitle(resource.url),
        markdown: resource.text().replace(/\r\n?/g, "\n"),
      });
    case "text":
      return new Document({
        ...base,
        kind,
        title: fileTitle(resource.url),
        markdown: escapePlain(resource.text().replace(/\r\n?/g, "\n")),
      });
    case "json": {
      const raw = resource.text();
      let body = raw;
      try {
        body = JSON.stringify(JSON.parse(raw), null, 2);
      } catch { /* not valid JSON: show it as served */ }
      return new Document({
        ...base,
        kind,
        title: fileTitle(resource.url),
        markdown: fenced("json", body),
      });
    }
    case "xml":
      return new Document({
        ...base,
        kind,
        title: /<title[^>]*>([^<]{1,300})<\/title>/i.exec(resource.text())?.[1]?.trim() ??
          fileTitle(resource.url),
        markdown: fenced("xml", resource.text().trim()),
      });
  }
}

export type { HtmlOptions };

/** An HTML page to a Document, on this thread. */
export function htmlDocument(html: string, url: string, options: HtmlOptions = {}): Document {
  return new Document(convertHtml(html, url, options));
}

let workersWanted = true;

/**
 * For a process that reads one page and exits (the CLI's `fetch` and
 * `sections`): large pages convert on this thread. A worker keeps a
 * server's main thread free for other calls; with nothing else to serve it
 * only adds its start, its module graph and its own heap (0.23 s and
 * 94 MiB for WHATWG HTML), and the indexes it would build after the answer
 * are built here on first use instead, only when the view reads them.
 */
export function convertOnThisThread(): void {
  workersWanted = false;
}

/**
 * An HTML page to a Document; a large page converts in a worker when the
 * process can run one (see `workers/pool.ts`) and wants one (see
 * {@link convertOnThisThread}), so the main thread stays free
 * and `signal` lets go of the page at once (see the pool's notes on what
 * terminating a busy worker does and does not do). The worker
 * gets the raw bytes and decodes them itself when the page says how
 * (`encoding`), which spares the main thread the decoding and the copy of
 * a long string; the bytes are moved to it, not copied, so `page.bytes` is
 * empty afterwards when the page went to a worker. A page of that size
 * converted on this thread gives its bytes up too, once decoded (see
 * {@link pageText}).
 */
export async function htmlDocumentOffThread(
  page: Pick<Resource, "text" | "bytes" | "encoding"> | string,
  url: string,
  options: HtmlOptions = {},
  signal?: AbortSignal,
): Promise<Document> {
  const source = typeof page === "string"
    ? { text: () => page, bytes: undefined, encoding: undefined }
    : page;
  const size = source.bytes?.length ?? source.text().length;
  const progress = currentProgress();
  progress?.report("convert", 0, undefined, `converting ${size} bytes of HTML`);
  let converted: ConvertedFields | undefined;
  if (workersWanted && size >= WORKER_MIN_CHARS) {
    // The bytes are given up: a page read through a worker is never decoded here again.
    const input = source.bytes && source.encoding
      ? { bytes: source.bytes, encoding: source.encoding(), give: true }
      : { html: source.text() };
    converted = await convertInWorker(input, url, options, signal);
  }
  signal?.throwIfAborted();
  // A large page converted here collects between its stages (see collectBetweenStages).
  if (!converted && size >= COLLECT_MIN_CHARS) await prepareCollector();
  const doc = converted
    ? adopt(converted)
    : convertHere(pageText(source, size >= WORKER_MIN_CHARS), url, options);
  progress?.report("convert", 1, 1, `converted: ${doc.sections.length} sections`);
  return doc;
}

/**
 * The text of a page converted on this thread. A large page (`give`, the
 * size that would have gone to a worker: the one-shot CLI's, see
 * {@link convertOnThisThread}) gives its bytes up as it would to a worker:
 * decoded here with the charset it names (`encoding`, as a worker decodes),
 * then freed at once, so the caller's array is empty afterwards; kept, they
 * sat beside their decoded copy through the whole conversion (15.6 MB of
 * WHATWG HTML's peak). Its text comes in a holder, which the conversion
 * empties after its walk (see `PageHtml`). A page that names no charset
 * decodes itself and keeps its bytes (and its text).
 */
function pageText(
  source: { text(): string; bytes?: Uint8Array; encoding?: () => string },
  give: boolean,
): string | PageHtml {
  if (!give || !source.bytes || !source.encoding || !wholeBuffer(source.bytes)) {
    return source.text();
  }
  const page = PageHtml.decode(source.bytes, source.encoding());
  freeArrays([source.bytes]);
  return page;
}

/**
 * A page converted on this thread (a small page, or where workers cannot
 * run), within the conversion deadline: past it, a `too_slow` ContentError.
 */
function convertHere(html: string | PageHtml, url: string, options: HtmlOptions): Document {
  return buildWithin(
    url,
    html.length,
    "HTML",
    convertDeadlineMs(),
    () => new Document(convertHtml(html, url, options)),
  );
}

/** Lets the event loop run (timers, I/O, other calls) before going on. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * The Document of a page a worker converted: its parts are taken as they
 * came (the anchors' table is the worker's, moved), nothing is rebuilt.
 */
function adopt(converted: ConvertedFields): Document {
  const anchors = AnchorTable.fromParts(converted.anchors);
  const doc = new Document({ ...converted.init, anchors }, {
    sections: converted.sections,
    tokens: converted.tokens,
    sectionFeatures: converted.sectionFeatures,
  });
  doc.buildingIndexes(adoptIndexes(doc, converted.indexes));
  return doc;
}

/**
 * Adopts the indexes the worker builds after the page (see convert_worker.ts)
 * into `doc`, in pieces of a few milliseconds; a search or question that
 * comes meanwhile waits for them (`Document.ready`). Nothing is adopted when
 * the worker gave up, or when `doc` built them itself first.
 */
async function adoptIndexes(doc: Document, coming: Promise<IndexParts | undefined>): Promise<void> {
  const parts = await coming;
  if (!parts) return;
  await nextTurn();
  if (!doc.indexed) {
    const index = SearchIndex.fromParts(parts.search, (i) => doc.sliceText(i));
    doc.adoptIndex(parts.slices, index);
  }
  if (!hasQueryIndex(doc)) adoptQueryIndex(new QueryIndex(doc, parts.query));
}
