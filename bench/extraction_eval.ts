/**
 * Main-content extraction quality on the article-extraction development
 * split (shared data, never committed), measured on what the user receives:
 * every page is read by the CLI (`fetch FILE --format markdown`, the view's
 * body, the same text the MCP tool fences, the REST API returns and the
 * library's `read()` gives), and, beside it, the whole envelope the MCP and
 * CLI faces print (frontmatter and fence markers are not counted by the
 * scorer; the fence label with the page title is). For comparison: the
 * Document's Markdown taken inside the process (the figure reported before
 * the benchmark measured the returned text), the page read whole
 * (`full_page`), and Mozilla's Readability on a linkedom document (its
 * text, as the benchmark scores it). Each set of predictions is scored with
 * the benchmark's own scorer (`tools/extraction_score.py`).
 *
 * ```sh
 * PARKOUR_SHARED_DIR=/path/to/shared deno run -A --config deno.dev.json bench/extraction_eval.ts \
 *   [--no-baseline] [--no-cli] [--out DIR]
 * ```
 *
 * `--no-cli` skips the two CLI runs (one process per page, a few minutes on
 * a shared machine) for a quick look at the in-process figures; the figure
 * to report is the CLI's. Timing covers the in-process conversion only
 * (decoding is shared), each page once, after one warm-up pass over the
 * whole set; this machine is shared and noisy, so compare the ratio, not the
 * absolute figures. Predictions (one JSON file per method) are kept in
 * `--out DIR` for a closer look (`bench/extraction_kinds.ts` reads other
 * kinds of pages).
 */
import { htmlDocument } from "../lib/content/pipeline.ts";
import { sharedDir } from "../tests/support/shared.ts";
import {
  type BenchPage,
  cliFetch,
  eachPage,
  loadPages,
  readabilityText,
  shingleScore,
} from "./extraction_common.ts";

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
const withCli = !Deno.args.includes("--no-cli");

const { pages, pagesDir } = await loadPages(dataset, truth);
const megabytes = pages.reduce((n, p) => n + p.bytes, 0) / 1048576;

interface Method {
  name: string;
  /** In-process and timed. */
  run?: (p: BenchPage) => string;
  /** Through a process per page, not timed. */
  predict?: () => Promise<Record<string, string>>;
}

const METHODS: Method[] = [];
if (withCli) {
  METHODS.push(
    {
      name: "returned: CLI fetch --format markdown",
      predict: () => eachPage(pages, (p) => cliFetch(p, "markdown")),
    },
    {
      name: "returned: CLI fetch (envelope, as MCP)",
      predict: () => eachPage(pages, (p) => cliFetch(p)),
    },
  );
}
METHODS.push(
  {
    name: "Document Markdown (old internal figure)",
    run: (p) => htmlDocument(p.html, p.url).markdown,
  },
  {
    name: "Document Markdown, full_page=true",
    run: (p) => htmlDocument(p.html, p.url, { fullPage: true }).markdown,
  },
);
if (withBaseline) {
  METHODS.push({ name: "readability.js text", run: (p) => readabilityText(p.html, p.url) });
}

const rows: string[] = [];
for (const method of METHODS) {
  let predictions: Record<string, string> = {};
  let cost = "";
  if (method.run) {
    for (const p of pages) method.run(p); // warm-up
    let millis = 0;
    for (const p of pages) {
      const t = performance.now();
      predictions[p.key] = method.run(p);
      millis += performance.now() - t;
    }
    cost = (millis / megabytes).toFixed(0);
  } else predictions = await method.predict!();
  const file = `${outDir}/${method.name.replace(/\W+/g, "_")}.json`;
  await Deno.writeTextFile(file, JSON.stringify(predictions));
  const { f1, precision, recall } = await shingleScore(
    `${SHARED}/tools/extraction_score.py`,
    `${dataset}/ground-truth.json`,
    file,
  );
  rows.push(`| ${method.name} | ${f1} | ${precision} | ${recall} | ${cost || "–"} |`);
}
await Deno.remove(pagesDir, { recursive: true });
console.log(`${pages.length} pages, ${megabytes.toFixed(1)} MB of HTML; predictions in ${outDir}`);
console.log("| method | F1 | precision | recall | ms per MB |");
console.log("| --- | ---: | ---: | ---: | ---: |");
for (const r of rows) console.log(r);
