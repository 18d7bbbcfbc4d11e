/**
 * Main-content extraction on pages its rules were never tuned on (shared
 * data, never committed; `bench/extraction_untuned_data.ts` builds it from
 * public repositories), measured as `bench/extraction_eval.ts` measures the
 * development split: on what the user receives, the CLI's
 * `fetch FILE --format markdown`, with the Document's Markdown taken inside
 * the process and Mozilla's Readability (its text, on a linkedom document)
 * beside it. The CLI is asked for the largest answer (`--max-tokens 25000`):
 * some of these pages (Wikipedia articles, an RFC, manuals) are longer than
 * the default 5,000 tokens, which the view cuts to their first part and an
 * outline, a budget and not an extraction choice.
 *
 * - `trafilatura-eval`: 990 pages with hand-chosen snippets of their main
 *   text ("with") and of their boilerplate ("without"), scored as
 *   trafilatura scores them: a snippet is found when it is a substring of
 *   the extraction (whitespace collapsed); precision, recall and F1 over the
 *   snippet counts of all pages. The Markdown is read as text first (link
 *   targets, image marks, line-leading list markers and escapes removed),
 *   and the characters Markdown writes as markup (`* _ [ ] # | > \``) are
 *   removed from both the text and the snippets, so formatting costs
 *   nothing and a literal asterisk ("Kund*innen") still matches.
 * - `readability-pages`: Readability's 130 test pages with the text of its
 *   expected output as the reference, scored with the article-extraction
 *   benchmark's scorer (4-token shingles, per-page precision and recall
 *   averaged). Readability scores itself near 1 there, by construction.
 *
 * Every set is also scored on its two halves by key (even and odd position
 * in key order), so that one half can be read for a last round of fixes
 * while the other stays unseen.
 *
 * ```sh
 * PARKOUR_SHARED_DIR=/path/to/shared deno run -A bench/extraction_untuned.ts \
 *   [--set trafilatura|readability] [--no-baseline] [--no-cli] [--out DIR]
 * ```
 *
 * A set whose folder is missing is reported as SKIPPED (and the run exits 0).
 * Predictions (one JSON file per set and method) and per-page snippet
 * results are kept in `--out DIR`.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { htmlDocument } from "../lib/content/pipeline.ts";
import {
  type BenchPage,
  cliFetch,
  eachPage,
  loadPages,
  readabilityText,
  shingleScore,
} from "./extraction_common.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    set: { type: "string" },
    "no-baseline": { type: "boolean", default: false },
    "no-cli": { type: "boolean", default: false },
    out: { type: "string" },
  },
});
// The shared folder of this project's data (the sets live in its datasets/).
const SHARED = Deno.env.get("PARKOUR_SHARED_DIR");
const outDir = values.out ?? await Deno.makeTempDir({ prefix: "extraction_untuned_" });
await Deno.mkdir(outDir, { recursive: true });

interface SnippetTruth {
  url: string;
  with: string[];
  without: string[];
}

/** Markdown as text for substring matching (see the module notes). */
function matchText(text: string, markdown: boolean): string {
  let t = text;
  if (markdown) {
    t = t
      .replace(/!\[[^\]]*\]\([^)]*\)/g, " ")
      .replace(/\[Image: [^\]\n]*\]/g, " ")
      .replace(/\]\((?:<[^>]*>|[^)\s]*)(?:\s+"[^"]*")?\)/g, "]")
      .replace(/^\s*(?:[-+*]|\d+[.)])\s+(?:\[[ xX]\]\s+)?/gm, "")
      .replace(/^\s*\|?\s*:?-{3,}.*$/gm, " ")
      .replace(/<br>/g, " ")
      .replace(/\\([!-/:-@[-`{-~])/g, "$1");
  }
  return t.replace(/[*_[\]#|>`]/g, "").replace(/\s+/g, " ").trim();
}

/** Snippet counts of one page (true and false positives, false and true negatives). */
function countPage(item: SnippetTruth, text: string, markdown: boolean) {
  const have = matchText(text, markdown);
  const found = (s: string) => have.includes(matchText(s, false));
  const tp = item.with.filter(found).length;
  const fp = item.without.filter(found).length;
  return { tp, fp, fn: item.with.length - tp, tn: item.without.length - fp };
}

function snippetScores(counts: { tp: number; fp: number; fn: number }[]) {
  const tp = counts.reduce((n, c) => n + c.tp, 0);
  const fp = counts.reduce((n, c) => n + c.fp, 0);
  const fn = counts.reduce((n, c) => n + c.fn, 0);
  const precision = tp / (tp + fp);
  const recall = tp / (tp + fn);
  return {
    f1: (2 * tp / (2 * tp + fp + fn)).toFixed(3),
    precision: precision.toFixed(3),
    recall: recall.toFixed(3),
  };
}

interface Method {
  name: string;
  markdown: boolean;
  predict: (pages: BenchPage[]) => Promise<Record<string, string>>;
}

const METHODS: Method[] = [];
if (!values["no-cli"]) {
  METHODS.push({
    name: "returned: CLI fetch --format markdown --max-tokens 25000",
    markdown: true,
    predict: (pages) => eachPage(pages, (p) => cliFetch(p, "markdown", "--max-tokens", "25000")),
  });
}
METHODS.push({
  name: "Document Markdown",
  markdown: true,
  predict: (pages) =>
    Promise.resolve(
      Object.fromEntries(pages.map((p) => [p.key, htmlDocument(p.html, p.url).markdown])),
    ),
});
if (!values["no-baseline"]) {
  METHODS.push({
    name: "readability.js text",
    markdown: false,
    predict: (pages) =>
      Promise.resolve(
        Object.fromEntries(pages.map((p) => [p.key, readabilityText(p.html, p.url)])),
      ),
  });
}

/** Keys in order, split into halves by position. */
function halves(keys: string[]): { even: Set<string>; odd: Set<string> } {
  const sorted = [...keys].sort();
  return {
    even: new Set(sorted.filter((_, i) => i % 2 === 0)),
    odd: new Set(sorted.filter((_, i) => i % 2 === 1)),
  };
}

const SETS = ["trafilatura", "readability"].filter((s) => !values.set || values.set === s);
if (!SHARED) {
  console.error(
    "untuned extraction evaluation SKIPPED: set PARKOUR_SHARED_DIR to the shared folder",
  );
  Deno.exit(0);
}

for (const set of SETS) {
  const dataset = `${SHARED}/datasets/${
    set === "trafilatura" ? "trafilatura-eval" : "readability-pages"
  }`;
  let truthText: string;
  try {
    truthText = await Deno.readTextFile(`${dataset}/ground-truth.json`);
  } catch {
    console.log(
      `${set}: SKIPPED, no ${dataset}/ground-truth.json (build it with bench/extraction_untuned_data.ts)`,
    );
    continue;
  }
  const truth = JSON.parse(truthText) as Record<string, SnippetTruth & { articleBody?: string }>;
  const { pages, pagesDir } = await loadPages(dataset, truth);
  const { even, odd } = halves(Object.keys(truth));
  const rows: string[] = [];
  for (const method of METHODS) {
    const predictions = await method.predict(pages);
    const base = `${outDir}/${set}_${method.name.replace(/\W+/g, "_")}`;
    await Deno.writeTextFile(`${base}.json`, JSON.stringify(predictions));
    const cells: string[] = [];
    if (set === "trafilatura") {
      const perPage: Record<string, ReturnType<typeof countPage>> = {};
      for (const p of pages) {
        perPage[p.key] = countPage(truth[p.key], predictions[p.key] ?? "", method.markdown);
      }
      await Deno.writeTextFile(`${base}_counts.json`, JSON.stringify(perPage));
      for (const part of [undefined, even, odd]) {
        const s = snippetScores(
          Object.entries(perPage).filter(([k]) => !part || part.has(k)).map(([, c]) => c),
        );
        cells.push(`${s.f1} / ${s.precision} / ${s.recall}`);
      }
    } else {
      const scorer = `${SHARED}/tools/extraction_score.py`;
      const whole = await shingleScore(scorer, `${dataset}/ground-truth.json`, `${base}.json`);
      cells.push(`${whole.f1} / ${whole.precision} / ${whole.recall}`);
      for (const part of [even, odd]) {
        const keys = `${base}_keys.txt`;
        await Deno.writeTextFile(keys, [...part].join("\n"));
        const s = await shingleScore(scorer, `${dataset}/ground-truth.json`, `${base}.json`, keys);
        cells.push(`${s.f1} / ${s.precision} / ${s.recall}`);
      }
    }
    rows.push(`| ${method.name} | ${cells.join(" | ")} |`);
  }
  await Deno.remove(pagesDir, { recursive: true });
  const metric = set === "trafilatura"
    ? "snippets (trafilatura's scoring)"
    : "4-token shingles (the benchmark's scorer)";
  console.log(`\n${set}: ${pages.length} pages, ${metric}; F1 / precision / recall`);
  console.log(`| method | all | even half | odd half |`);
  console.log("| --- | ---: | ---: | ---: |");
  for (const r of rows) console.log(r);
}
console.log(`\npredictions in ${outDir}`);
