/**
 * Query-scoped extraction quality: a question set over the shared real pages
 * and article pages (shared data, never committed), scored by answer hit
 * rate (an answer string found verbatim in what is returned) and returned
 * tokens, side by side with PullMD's published algorithm run on the same
 * Documents' Markdown.
 *
 * What is scored is what the user receives: the body of the `query` view
 * (the one view function every face calls, with the request parsed by the
 * one request schema and the o200k tokenizer loaded, as the MCP tool, the
 * HTTP API, the CLI and `Page.read` do), and its `returned_tokens` (real
 * o200k tokens, the page title line every face shows included).
 *
 * ```sh
 * PARKOUR_SHARED_DIR=/path/to/shared \
 * PULLMD_DIR=/path/to/a/pullmd/checkout \
 *   deno run -A bench/query_eval.ts [--set bench/questions/dev.json] [--budget 600] [--misses]
 * ```
 *
 * `--set` may be given more than once (`--set bench/questions/heldout.json`
 * is the held-out set, written before tuning and scored only at the end).
 * `--baseline DIR` adds a column for another checkout of this project (for
 * instance `git worktree add /tmp/base <commit>`), which converts each page
 * with its own pipeline and answers with its own view, so a method and the
 * one it replaces are scored side by side on the same questions
 * (`--baseline-name` labels it).
 *
 * ```sh
 * ```
 *
 * PullMD is run, not copied: `PULLMD_DIR` names a checkout of its
 * repository (github.com/resonact0/pullmd); its `lib/query-extract.js` is
 * imported from there. Without it only our figures are printed.
 *
 * Returned tokens are real o200k tokens for both methods (PullMD's own
 * estimate is characters / 4), so the two columns compare. Latency is the
 * median and 95th percentile over questions after one warm-up pass, with
 * each page's index already built (the cached case): a shared 2-core
 * machine, so compare the ratio.
 */
import { QUERY_DEFAULT_TOKENS } from "../lib/content/question/extract.ts";
import { bestCount, tokenizerReady } from "../lib/content/tokens/count.ts";
import { pageRequestSchema, parseWith } from "../lib/views/request.ts";
import { view } from "../lib/views/view.ts";
import { sharedDir } from "../tests/support/shared.ts";
import { pageSource, type Question, questionPage, readQuestions } from "./question_pages.ts";

if (!sharedDir()) {
  console.error("query extraction evaluation SKIPPED: set PARKOUR_SHARED_DIR to the shared folder");
  Deno.exit(0);
}
const arg = (name: string) => {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Deno.args[i + 1] : undefined;
};
const sets = Deno.args.flatMap((a, i) => a === "--set" ? [Deno.args[i + 1]] : []);
const setPaths = sets.length ? sets : [new URL("./questions/dev.json", import.meta.url).pathname];
const budget = Number(arg("--budget") ?? QUERY_DEFAULT_TOKENS);
const showMisses = Deno.args.includes("--misses");
const questions = (await Promise.all(setPaths.map(readQuestions))).flat();
await tokenizerReady();

type Extract = (markdown: string, doc: Awaited<ReturnType<typeof questionPage>>, q: string) => {
  text: string;
  extracted: boolean;
  tokens: number;
};

const methods: { name: string; run: Extract }[] = [{
  name: "parkour",
  run: (_md, doc, q) => {
    const r = view(
      doc,
      parseWith(pageRequestSchema, { url: doc.url, query: q, max_tokens: budget }),
    );
    return { text: r.body, extracted: r.extract?.extracted ?? false, tokens: r.returnedTokens };
  },
}];
// Another checkout of this project, run side by side: its own pipeline converts each page and
// its own view answers (the Documents of two versions are not interchangeable).
const baselineDir = arg("--baseline");
if (baselineDir) {
  const root = `file://${await Deno.realPath(baselineDir)}`;
  const first = async (paths: string[]) => {
    for (const path of paths) {
      try {
        await Deno.stat(new URL(`${root}/${path}`));
        return await import(`${root}/${path}`);
      } catch (e) {
        if (!(e instanceof Deno.errors.NotFound)) throw e;
      }
    }
    throw new Error(`${baselineDir} has none of ${paths.join(", ")}`);
  };
  const pipeline = await first(["lib/content/pipeline.ts"]);
  const baseView = await first(["lib/views/view.ts"]);
  const request = await first(["lib/views/request.ts"]);
  const tokens = await first(["lib/content/tokens/count.ts", "lib/content/tokens.ts"]);
  await tokens.tokenizerReady();
  const baseDocs = new Map<string, unknown>();
  const label = arg("--baseline-name") ?? `baseline (${baselineDir})`;
  methods.push({
    name: label,
    run: (_md, doc, q) => {
      const base = baseDocs.get(doc.url);
      const r = baseView.view(
        base,
        request.parseWith(request.pageRequestSchema, {
          url: doc.url,
          query: q,
          max_tokens: budget,
        }),
      );
      return { text: r.body, extracted: r.extract?.extracted ?? false, tokens: r.returnedTokens };
    },
  });
  for (const q of questions) {
    const { html, url } = await pageSource(q.page);
    if (!baseDocs.has(url)) baseDocs.set(url, pipeline.htmlDocument(html, url));
  }
}
const pullmdDir = Deno.env.get("PULLMD_DIR");
if (pullmdDir) {
  const mod = await import(`file://${pullmdDir}/lib/query-extract.js`);
  methods.push({
    name: "PullMD",
    run: (md, _doc, q) => {
      const r = mod.queryExtract(md, q, { maxTokens: budget });
      return { text: r.markdown, extracted: r.extracted, tokens: bestCount(r.markdown) };
    },
  });
} else console.error("PullMD column SKIPPED: set PULLMD_DIR to a checkout of its repository");

const groups = (q: Question) => q.page.startsWith("article:") ? "articles" : q.page.slice(5);
const docs = new Map<string, Awaited<ReturnType<typeof questionPage>>>();
for (const q of questions) {
  if (!docs.has(q.page)) docs.set(q.page, await questionPage(q.page));
}
// Questions whose answers are not on the page are a broken set, not a miss.
for (const q of questions) {
  const md = docs.get(q.page)!.markdown;
  if (!q.answers.some((a) => md.includes(a))) throw new Error(`answer not on page: ${q.question}`);
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(s.length * q))] : 0;
}
const median = (xs: number[]) => quantile(xs, 0.5);

console.log(
  `${questions.length} questions over ${docs.size} pages, budget ${budget} tokens (${
    setPaths.join(", ")
  })`,
);
console.log(
  "| method | set | questions | hit rate | extracted | hit rate when extracted | median tokens returned | mean tokens returned | max tokens returned | median ms | p95 ms |",
);
console.log("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const method of methods) {
  for (const q of questions) method.run(docs.get(q.page)!.markdown, docs.get(q.page)!, q.question);
  const rows = new Map<
    string,
    { hit: number; n: number; ext: number; extHit: number; tokens: number[]; ms: number[] }
  >();
  const misses: string[] = [];
  for (const q of questions) {
    const doc = docs.get(q.page)!;
    const t = performance.now();
    const r = method.run(doc.markdown, doc, q.question);
    const ms = performance.now() - t;
    const hit = q.answers.some((a) => r.text.includes(a));
    if (!hit) misses.push(`${q.page.slice(0, 24)} | ${q.question}`);
    for (const key of ["all", groups(q)]) {
      let row = rows.get(key);
      if (!row) rows.set(key, row = { hit: 0, n: 0, ext: 0, extHit: 0, tokens: [], ms: [] });
      row.n++;
      if (hit) row.hit++;
      if (r.extracted) {
        row.ext++;
        if (hit) row.extHit++;
      }
      row.tokens.push(r.tokens);
      row.ms.push(ms);
    }
  }
  for (
    const [key, row] of [...rows].sort((
      a,
      b,
    ) => (a[0] === "all" ? -1 : b[0] === "all" ? 1 : a[0].localeCompare(b[0])))
  ) {
    const pct = (x: number, n: number) => n ? `${(100 * x / n).toFixed(1)}%` : "-";
    const mean = row.tokens.reduce((a, b) => a + b, 0) / row.n;
    console.log(
      `| ${method.name} | ${key} | ${row.n} | ${pct(row.hit, row.n)} | ${row.ext} | ${
        pct(row.extHit, row.ext)
      } | ${median(row.tokens)} | ${mean.toFixed(0)} | ${Math.max(...row.tokens)} | ${
        median(row.ms).toFixed(2)
      } | ${quantile(row.ms, 0.95).toFixed(2)} |`,
    );
  }
  if (showMisses) {
    console.log(`\n${method.name} misses:`);
    for (const m of misses) console.log("  " + m);
    console.log();
  }
}
