/**
 * Main-content extraction quality on the article-extraction development
 * split (shared data, never committed), side by side with readability.js:
 * converts every page with the product's pipeline (with extraction, and
 * whole), and with Mozilla's Readability on a linkedom document (its text,
 * as the benchmark scores it), scores each set of predictions with the
 * benchmark's own scorer (`tools/extraction_score.py`) and prints F1,
 * precision, recall and the cost per MB of HTML.
 *
 * ```sh
 * PARKOUR_SHARED_DIR=/path/to/shared deno run -A bench/extraction_eval.ts [--no-baseline] [--out DIR]
 * ```
 *
 * Timing covers the conversion only (decoding is shared), each page once,
 * after one warm-up pass over the whole set; this machine is shared and
 * noisy, so compare the ratio, not the absolute figures.
 */
import { htmlDocument } from "../lib/content/pipeline.ts";
import { decodeText } from "../lib/net/charset.ts";
import { gunzipFile, sharedDir } from "../tests/support/shared.ts";
import { DOMParser } from "linkedom";
import { Readability } from "@mozilla/readability";

const SHARED = sharedDir();
if (!SHARED) {
  console.error("extraction evaluation SKIPPED: set PARKOUR_SHARED_DIR to the shared folder");
  Deno.exit(0);
}
const dataset = `${SHARED}/datasets/article-extraction`;
const truth = JSON.parse(await Deno.readTextFile(`${dataset}/ground-truth.json`)) as Record<
  string,
  { url: string }
>;
const outAt = Deno.args.indexOf("--out");
const outDir = outAt >= 0 ? Deno.args[outAt + 1] : await Deno.makeTempDir();
await Deno.mkdir(outDir, { recursive: true });
const withBaseline = !Deno.args.includes("--no-baseline");

interface Page {
  key: string;
  url: string;
  html: string;
  bytes: number;
}

const pages: Page[] = [];
for (const [key, { url }] of Object.entries(truth)) {
  const raw = await gunzipFile(`${dataset}/html/${key}.html.gz`);
  pages.push({ key, url, html: decodeText(raw, "text/html").text, bytes: raw.length });
}
const megabytes = pages.reduce((n, p) => n + p.bytes, 0) / 1048576;

/** Readability's text of a page ("" when it finds no article). */
function readability(html: string, url: string): string {
  const document = new DOMParser().parseFromString(html, "text/html");
  // linkedom has no documentURI from a string parse; Readability resolves links against it.
  Object.defineProperty(document, "documentURI", { value: url });
  // deno-lint-ignore no-explicit-any
  const article = new Readability(document as any).parse();
  return article?.textContent ?? "";
}

const METHODS: { name: string; run: (p: Page) => string }[] = [
  { name: "parkour (main content)", run: (p) => htmlDocument(p.html, p.url).markdown },
  {
    name: "parkour full_page=true",
    run: (p) => htmlDocument(p.html, p.url, { fullPage: true }).markdown,
  },
];
if (withBaseline) {
  METHODS.push({
    name: "readability.js text",
    run: (p) => readability(p.html, p.url),
  });
}

const rows: string[] = [];
for (const method of METHODS) {
  for (const p of pages) method.run(p); // warm-up
  const predictions: Record<string, string> = {};
  let millis = 0;
  for (const p of pages) {
    const t = performance.now();
    predictions[p.key] = method.run(p);
    millis += performance.now() - t;
  }
  const file = `${outDir}/${method.name.replace(/\W+/g, "_")}.json`;
  await Deno.writeTextFile(file, JSON.stringify(predictions));
  const score = await new Deno.Command("python3", {
    args: [`${SHARED}/tools/extraction_score.py`, `${dataset}/ground-truth.json`, file],
    stdout: "piped",
  }).output();
  const line = new TextDecoder().decode(score.stdout).trim();
  const m = /F1=([\d.]+) precision=([\d.]+) recall=([\d.]+)/.exec(line);
  const [f1, precision, recall] = m ? [m[1], m[2], m[3]] : ["?", "?", "?"];
  rows.push(
    `| ${method.name} | ${f1} | ${precision} | ${recall} | ${(millis / megabytes).toFixed(0)} |`,
  );
}
console.log(`${pages.length} pages, ${megabytes.toFixed(1)} MB of HTML; predictions in ${outDir}`);
console.log("| method | F1 | precision | recall | ms per MB |");
console.log("| --- | ---: | ---: | ---: | ---: |");
for (const r of rows) console.log(r);
