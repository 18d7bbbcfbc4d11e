/**
 * The pipeline report: per page, the median of 5 runs (after at least 3 warm-ups and 1 s of them)
 * of each stage from HTML bytes to a searchable Document, turndown on the
 * same HTML as baseline, follow-up latencies on the cached WHATWG
 * Document, and peak RSS of one conversion (read after the first run).
 * Each page runs in its own process so its peak memory is its own.
 *
 * ```sh
 * PARKOUR_SHARED_DIR=/path/to/shared deno run -A --config deno.dev.json bench/pipeline_report.ts
 * ```
 */
import { Document } from "../lib/content/document/document.ts";
import { htmlDocument } from "../lib/content/pipeline.ts";
import { findSections } from "../lib/content/document/views.ts";
import { pageBytes, type PageName, PAGES, SHARED, turndownBaseline } from "./pages.ts";

const RUNS = 5;
/**
 * Warm-up before timing, so the JIT has compiled the hot code (a server is
 * warm): at least this many runs, and at least {@link WARMUP_MS} of them, so
 * a small page (PEP 8 converts in milliseconds) warms as much as a big one.
 */
const WARMUP = 3;
const WARMUP_MS = 1000;

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
}

function peakRss(): number {
  const status = Deno.readTextFileSync("/proc/self/status");
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

interface StageTimes {
  decode: number;
  convert: number;
  sections: number;
  slices: number;
  index: number;
  total: number;
}

/** Runs one page in this process and prints a JSON line. */
async function measure(name: PageName, withBaseline: boolean): Promise<void> {
  const page = PAGES.find((p) => p.name === name)!;
  const bytes = await pageBytes(name);
  const runs: StageTimes[] = [];
  let doc: Document | undefined;
  let peakAfterFirst = 0;
  const warmupStart = performance.now();
  let warmups = Infinity;
  for (let i = 0; i < warmups + RUNS; i++) {
    if (warmups === Infinity && i >= WARMUP && performance.now() - warmupStart >= WARMUP_MS) {
      warmups = i;
    }
    doc = undefined;
    const t0 = performance.now();
    const html = new TextDecoder().decode(bytes);
    const t1 = performance.now();
    // The converter builds the section tree in the Document constructor; time it apart.
    const converted = htmlDocument(html, page.url);
    const t2 = performance.now();
    const sectionsStart = performance.now();
    doc = new Document({
      url: page.url,
      kind: "html",
      title: converted.title,
      markdown: converted.markdown,
      anchors: converted.anchors,
    });
    const t3 = performance.now();
    void doc.slices;
    const t4 = performance.now();
    void doc.index;
    const t5 = performance.now();
    const sections = t3 - sectionsStart;
    // Peak memory of one conversion: read after the first (cold) run, before garbage piles up.
    if (i === 0) peakAfterFirst = peakRss();
    if (i >= warmups) {
      runs.push({
        decode: t1 - t0,
        convert: t2 - t1 - sections,
        sections,
        slices: t4 - t3,
        index: t5 - t4,
        total: t1 - t0 + (t2 - t1) + (t4 - t3) + (t5 - t4),
      });
    }
  }
  const stage = (k: keyof StageTimes) => median(runs.map((r) => r[k]));
  const result: Record<string, unknown> = {
    name,
    label: page.label,
    markdownChars: doc!.markdown.length,
    sections: doc!.sections.length,
    slices: doc!.slices.length,
    decode: stage("decode"),
    convert: stage("convert"),
    sectionTree: stage("sections"),
    slicing: stage("slices"),
    index: stage("index"),
    total: stage("total"),
    peakRssMb: peakAfterFirst,
  };
  if (name === "whatwg_html") {
    // Follow-ups on the cached Document.
    const section = [];
    const search = [];
    const slices = [];
    const queries = [
      "img alt",
      '"tree construction"',
      "+canvas +context",
      "atribute~",
      "(audio OR video) +autoplay",
      "parser -script",
    ];
    const names = [
      "the-img-element",
      "4.8.3 The img element",
      "Tree construction",
      "dom-img-alt",
      "the-canvas-element",
    ];
    for (let k = 0; k < 20; k++) {
      for (const n of names) {
        const t = performance.now();
        const [hit] = findSections(doc!, [n]);
        doc!.sectionText(hit.index!);
        section.push(performance.now() - t);
      }
      for (const q of queries) {
        const t = performance.now();
        doc!.index.search(q);
        search.push(performance.now() - t);
      }
      const t = performance.now();
      for (const i of [10, 500, 2000]) doc!.sliceText(i);
      slices.push(performance.now() - t);
    }
    result.followUp = {
      sectionP50: percentile(section, 0.5),
      searchP50: percentile(search, 0.5),
      searchP95: percentile(search, 0.95),
      slicesP50: percentile(slices, 0.5),
    };
  }
  if (withBaseline) {
    const turndown = turndownBaseline();
    const times: number[] = [];
    const baselineRuns = name === "pep_8" ? RUNS : 3;
    for (let i = 0; i <= baselineRuns; i++) {
      const t = performance.now();
      turndown(new TextDecoder().decode(bytes));
      if (i > 0) times.push(performance.now() - t);
    }
    result.turndown = median(times);
  }
  console.log(JSON.stringify(result));
}

if (Deno.args[0] === "--page") {
  await measure(Deno.args[1] as PageName, Deno.args.includes("--baseline"));
  Deno.exit(0);
}

if (!SHARED) {
  console.error("pipeline report SKIPPED: set PARKOUR_SHARED_DIR to the shared folder");
  Deno.exit(0);
}

const rows: Record<string, unknown>[] = [];
for (const page of PAGES) {
  for (const baseline of [false, true]) {
    // Peak memory is measured without the baseline running in the same process.
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        // bench/pages.ts imports the turndown baseline, a development package.
        "--config",
        new URL("../deno.dev.json", import.meta.url).pathname,
        import.meta.filename!,
        "--page",
        page.name,
        ...(baseline ? ["--baseline"] : []),
      ],
      stderr: "inherit",
    }).output();
    const line = new TextDecoder().decode(out.stdout).trim().split("\n").pop()!;
    const data = JSON.parse(line);
    if (!baseline) rows.push(data);
    else rows[rows.length - 1].turndown = data.turndown;
  }
}

const ms = (v: unknown) => `${Math.round(Number(v))}`;
console.log(
  `\nHTML bytes → searchable Document, median of ${RUNS} runs after at least ${WARMUP} warm-ups and ${WARMUP_MS} ms of them, ms (this machine)\n`,
);
console.log(
  "| page | decode | convert | sections | slices | index | total | turndown (convert only) | turndown ÷ parkour | peak RSS MB |",
);
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const r of rows) {
  console.log(
    `| ${r.label} | ${ms(r.decode)} | ${ms(r.convert)} | ${ms(r.sectionTree)} | ${
      ms(r.slicing)
    } | ${ms(r.index)} | ${ms(r.total)} | ${ms(r.turndown)} | ${
      (Number(r.turndown) / Number(r.total)).toFixed(1)
    }× | ${ms(r.peakRssMb)} |`,
  );
}
const w = rows.find((r) => r.name === "whatwg_html")!.followUp as Record<string, number>;
console.log(
  `\nFollow-ups on the cached WHATWG Document (p50 over 20 rounds): section ${
    w.sectionP50.toFixed(2)
  } ms, search ${w.searchP50.toFixed(2)} ms (p95 ${w.searchP95.toFixed(2)} ms), slices ${
    w.slicesP50.toFixed(3)
  } ms`,
);
