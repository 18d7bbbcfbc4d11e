/**
 * Main-content extraction quality on the article-extraction development
 * split (shared data, never committed): converts every page with the
 * product's pipeline, writes predictions, and scores them with the
 * benchmark's scorer (`tools/extraction_score.py`).
 *
 * ```sh
 * PARKOUR_SHARED_DIR=../shared deno run -A bench/extraction_eval.ts [--full-page] [--out preds.json]
 * ```
 */
import { htmlDocument } from "../lib/content/pipeline.ts";
import { decodeText } from "../lib/net/charset.ts";
import { sharedDir } from "../tests/support/shared.ts";

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
const fullPage = Deno.args.includes("--full-page");
const outAt = Deno.args.indexOf("--out");
const out = outAt >= 0 ? Deno.args[outAt + 1] : await Deno.makeTempFile({ suffix: ".json" });

const predictions: Record<string, string> = {};
let bytes = 0;
let millis = 0;
for (const [key, { url }] of Object.entries(truth)) {
  const gz = await Deno.readFile(`${dataset}/html/${key}.html.gz`);
  const raw = new Uint8Array(
    await new Response(new Blob([gz]).stream().pipeThrough(new DecompressionStream("gzip")))
      .arrayBuffer(),
  );
  const html = decodeText(raw, "text/html").text;
  const t = performance.now();
  const doc = htmlDocument(html, url, { fullPage });
  millis += performance.now() - t;
  bytes += raw.length;
  predictions[key] = doc.markdown;
}
await Deno.writeTextFile(out, JSON.stringify(predictions));
const score = await new Deno.Command("python3", {
  args: [`${SHARED}/tools/extraction_score.py`, `${dataset}/ground-truth.json`, out],
  stdout: "piped",
}).output();
console.log(new TextDecoder().decode(score.stdout).trim());
console.log(
  `${Object.keys(predictions).length} pages, ${(bytes / 1048576).toFixed(1)} MB, ${
    (millis / (bytes / 1048576)).toFixed(0)
  } ms per MB`,
);
