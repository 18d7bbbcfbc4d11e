/**
 * HTML bytes to a searchable Document (decode, convert, sections, slices,
 * index) on the three real pages, against turndown converting the same
 * HTML to Markdown (conversion only, no sections, slices or index). Run with
 * `deno task bench`; needs PARKOUR_SHARED_DIR. `bench/pipeline_report.ts`
 * prints the per-stage table, follow-up latencies and peak memory.
 */
import { htmlDocument } from "../lib/content/pipeline.ts";
import { pageBytes, PAGES, SHARED, turndownBaseline } from "./pages.ts";

if (!SHARED) {
  console.error("pipeline benchmarks SKIPPED: set PARKOUR_SHARED_DIR to the shared folder");
}

for (const page of PAGES) {
  const bytes = SHARED ? await pageBytes(page.name) : new Uint8Array();
  // turndown takes about 1 s per MB here: fewer runs on the large pages.
  const runs = page.name === "pep_8" ? 20 : 3;
  Deno.bench({
    name: `parkour: ${page.label} → searchable Document`,
    group: page.name,
    ignore: !SHARED,
    n: runs,
    warmup: 1,
    fn() {
      const doc = htmlDocument(new TextDecoder().decode(bytes), page.url);
      void doc.index;
    },
  });
  const turndown = turndownBaseline();
  Deno.bench({
    name: `turndown + gfm: ${page.label} → Markdown`,
    group: page.name,
    baseline: true,
    ignore: !SHARED,
    // turndown needs minutes on WHATWG: one run is enough to see the ratio.
    n: page.name === "pep_8" ? runs : 1,
    warmup: page.name === "pep_8" ? 1 : 0,
    fn() {
      turndown(new TextDecoder().decode(bytes));
    },
  });
}
