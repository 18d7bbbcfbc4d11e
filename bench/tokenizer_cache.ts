/**
 * The o200k encoder's merge cache: a runnable script (not a `deno bench`
 * file) that encodes real pages with the cache gpt-tokenizer keeps by
 * default (100,000 words) and with the one lib/content/tokens/count.ts sets
 * (MERGE_CACHE_WORDS), each in a fresh process, and prints the median time
 * to encode the pages and the median full collection afterwards (the pause
 * every forced collection of a server costs, with the pages' Documents and
 * the encoder's tables on the heap).
 *
 * ```sh
 * PARKOUR_SHARED_DIR=/work/shared deno run -A bench/tokenizer_cache.ts [--rounds 5]
 * ```
 *
 * It reads PEP 8, ECMA-262 and WHATWG HTML from the shared captures (9 MB of Markdown),
 * or made-up pages of every size without them.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { MERGE_CACHE_WORDS } from "../lib/content/tokens/count.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    rounds: { type: "string", default: "5" },
    child: { type: "string" },
  },
});

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

if (values.child !== undefined) {
  // One process, one cache size: encode the pages three times, then time full collections.
  const size = Number(values.child);
  const m = await import("gpt-tokenizer/encoding/o200k_base");
  const { collectNow } = await import("../lib/runtime/memory.ts");
  const { htmlDocument } = await import("../lib/content/pipeline.ts");
  const { sharedDir, realPageHtml } = await import("../tests/support/shared.ts");
  const { sizedPage } = await import("../tests/support/sized_pages.ts");
  m.setMergeCacheSize(size);
  const pages = sharedDir()
    ? await Promise.all(["pep_8", "ecma262", "whatwg_html"].map((n) => realPageHtml(n)))
    : [10e3, 200e3, 1e6, 4e6].map((b) => sizedPage(b, b));
  const docs = pages.map((html, i) => htmlDocument(html, `https://bench.test/${i}`));
  const encodes: number[] = [];
  for (let r = 0; r < 3; r++) {
    const start = performance.now();
    for (const d of docs) m.encode(d.markdown, { disallowedSpecial: new Set() });
    encodes.push(performance.now() - start);
  }
  const collections: number[] = [];
  for (let r = 0; r < 5; r++) {
    const start = performance.now();
    await collectNow();
    collections.push(performance.now() - start);
  }
  console.log(JSON.stringify({ encode: median(encodes), collect: median(collections) }));
  Deno.exit(0);
}

const rounds = Number(values.rounds);
const figures = new Map<number, { encode: number[]; collect: number[] }>();
for (let r = 0; r < rounds; r++) {
  for (const size of [100_000, MERGE_CACHE_WORDS]) {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", import.meta.filename!, "--child", String(size)],
      stderr: "inherit",
    }).output();
    const got = JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!);
    const f = figures.get(size) ?? { encode: [], collect: [] };
    f.encode.push(got.encode);
    f.collect.push(got.collect);
    figures.set(size, f);
  }
}
const base = figures.get(100_000)!;
const ours = figures.get(MERGE_CACHE_WORDS)!;
console.log(`| merge cache | encode the pages, median (ms) | full collection after, median (ms) |`);
console.log(`|---|---|---|`);
console.log(
  `| 100,000 words (gpt-tokenizer's default) | ${median(base.encode).toFixed(0)} | ${
    median(base.collect).toFixed(1)
  } |`,
);
console.log(
  `| ${MERGE_CACHE_WORDS.toLocaleString("en")} words (ours) | ${median(ours.encode).toFixed(0)} | ${
    median(ours.collect).toFixed(1)
  } |`,
);
console.log(
  `ratios ours / default over ${rounds} rounds: encode ${
    (median(ours.encode) / median(base.encode)).toFixed(2)
  }, collection ${(median(ours.collect) / median(base.collect)).toFixed(2)}`,
);
