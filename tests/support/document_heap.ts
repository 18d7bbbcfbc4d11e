/**
 * Measures the heap a Document retains, for tests/content/document_memory_test.ts
 * and bench/document_memory.ts: run with `--v8-flags=--expose-gc`; prints one
 * JSON line per page with the retained bytes (after full collections) beside
 * `approxBytes()`, with every index built.
 *
 * Arguments: `synthetic:<bytes>` (a page from sized_pages.ts), `padded:<bytes>`
 * (a small article inside a large script block, whose headings have long ids),
 * or a path to an HTML file (optionally .gz).
 *
 * Each page is measured over at least two copies: the process keeps the last
 * source it converted (one string, whoever holds it), which is not a cached
 * Document's and would otherwise be charged to the one measured.
 */
import { htmlDocument } from "../../lib/content/pipeline.ts";
import { queryIndex } from "../../lib/content/question/extract.ts";
import { decodeText } from "../../lib/net/charset.ts";
import { gunzipFile } from "./shared.ts";
import { sizedPage } from "./sized_pages.ts";

const gc = (globalThis as unknown as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --v8-flags=--expose-gc");

/**
 * The heap and the typed arrays' backing stores (held outside the heap, in
 * `external`). V8 frees dead backing stores on a background thread after a
 * collection, later on a busy machine: the reading waits until `external`
 * stops falling.
 */
async function heap(): Promise<number> {
  let external = Infinity;
  for (let i = 0; i < 20; i++) {
    gc!();
    await new Promise((r) => setTimeout(r, 10));
    const now = Deno.memoryUsage().external;
    if (now >= external) break;
    external = now;
  }
  const usage = Deno.memoryUsage();
  return usage.heapUsed + usage.external;
}

/** A small article inside a large inline script, its headings with long ids. */
function paddedPage(bytes: number): string {
  const headings = Array.from(
    { length: 40 },
    (_, i) =>
      `<h2 id="a-rather-long-heading-identifier-number-${i}">Part ${i}</h2><p>Text of part ${i}.</p>`,
  ).join("\n");
  return `<html><head><title>A title long enough to be a view of its parent</title>` +
    `<script>var data = "${"x".repeat(bytes)}";</script></head>` +
    `<body><article>${headings}</article></body></html>`;
}

async function source(arg: string): Promise<string> {
  const [kind, value] = [arg.slice(0, arg.indexOf(":")), arg.slice(arg.indexOf(":") + 1)];
  if (kind === "synthetic") return sizedPage(Number(value), Number(value));
  if (kind === "padded") return paddedPage(Number(value));
  const bytes = arg.endsWith(".gz") ? await gunzipFile(arg) : await Deno.readFile(arg);
  return decodeText(bytes, "text/html").text;
}

// The first conversion compiles the converter and fills module tables: not the Document's.
const warm = htmlDocument(sizedPage(100_000, 7), "https://warm.test/");
warm.index.search("chapter");
queryIndex(warm);

const kept: unknown[] = [];
for (const arg of Deno.args) {
  const html = await source(arg);
  // Small pages are measured as the mean of several copies, above the heap's noise.
  const copies = html.length < 50_000 ? 32 : html.length < 200_000 ? 8 : 2;
  // Each copy from its own flat source string, as each fetch is; the sources are dropped
  // before the second reading, so a Document that still points into its source is charged it.
  const sources = Array.from({ length: copies }, (_, i) => html + " ".repeat(i + 1));
  for (const s of sources) /~{9}/.test(s); // flattens
  const before = await heap();
  const docs = [];
  for (let i = 0; i < copies; i++) {
    const d = htmlDocument(sources[i], `https://page.test/${i}`);
    d.index.search("chapter");
    queryIndex(d);
    docs.push(d);
  }
  sources.length = 0;
  // The last regular expression's subject is kept by the engine (RegExp.input): not a Document's.
  /x/.test("x");
  const retained = (await heap() - before + copies * html.length) / copies;
  kept.push(docs);
  console.log(JSON.stringify({
    page: arg,
    htmlBytes: html.length,
    markdownChars: docs[0].markdown.length,
    retained: Math.round(retained),
    approx: docs[0].approxBytes(),
  }));
}
