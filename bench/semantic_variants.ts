/**
 * Semantic signals beside BM25, side by side through the query view: each
 * method adds weighted expansion terms to a question's own (see
 * `ExtractOptions.expand` in lib/content/question/extract.ts), and what is
 * scored is what the user receives, as in bench/query_eval.ts: the body of
 * the `query` view (the request parsed by the one request schema, the o200k
 * tokenizer loaded, so the answer is measured and asked again), an answer
 * string found verbatim in it, and its `returned_tokens`.
 *
 * The methods:
 *
 * - **today**: no expansion.
 * - **glove**: for each content word of the question, its nearest
 *   neighbours among the page's own words (alphabetic, not function words,
 *   whose stem the page's index holds) by the cosine of their GloVe vectors
 *   (int8), at least `cos`, the best `k` stems, at weight `w`.
 * - **wordnet**: the WordNet synonyms of each content word (its base forms
 *   found by WordNet's detachment rules), those whose stem the page holds,
 *   the first `k` by sense order, at weight `w`.
 * - **prf** (pseudo-relevance feedback): the `m` terms of the 3 best units
 *   by BM25 with the highest summed term frequency × unit IDF, at weight `w`.
 *
 * An expansion is worked out once per question asked (the view may ask the
 * extraction again to fill the budget; those calls reuse it). The GloVe
 * method also needs each page's vocabulary matched to the table, built once
 * per page and kept (like the question index), and reported apart.
 *
 * ```sh
 * deno run -A bench/semantic_data.ts      # once: the tables, into a cache folder outside the repo
 * PARKOUR_SHARED_DIR=/path/to/shared deno run -A --v8-flags=--expose-gc bench/semantic_variants.ts \
 *   --set bench/questions/dev.json --set bench/questions/heldout.json \
 *   --set bench/questions/tune_specs.json [--budget 600] [--sweep] [--passages] [--flips] [--expansions]
 * ```
 *
 * `--sweep` adds weight and threshold variants of each method, and GloVe and
 * WordNet for only the question's words the page lacks; `--passages` adds
 * each method with its terms weighing in the choice of passages only, the
 * sections ranked by the question's own words (`expandPassagesOnly`); `--flips`
 * lists the questions each method wins or loses against today's;
 * `--expansions` prints every question's expansion terms. Without the
 * shared folder or the tables it prints one line and exits 0.
 *
 * Latency is the median and 95th percentile of one view call per question
 * after a warm-up pass (the page's indexes built: the cached case), the
 * methods interleaved question by question so the load of a shared machine
 * falls on all of them alike; compare ratios. Memory is the resident set
 * (and V8 heap) before and after loading each table, after a full
 * collection when `--v8-flags=--expose-gc` is given.
 *
 * @module
 */
import { parseArgs } from "node:util";
import {
  QUERY_DEFAULT_TOKENS,
  queryIndex,
  rankForQuery,
  type WeightedTerm,
} from "../lib/content/question/extract.ts";
import { asksForCode, isStopWord, stem } from "../lib/content/question/terms.ts";
import { scan } from "../lib/content/search/words.ts";
import type { Document } from "../lib/content/document/document.ts";
import { tokenizerReady } from "../lib/content/tokens/count.ts";
import { pageRequestSchema, parseWith } from "../lib/views/request.ts";
import { view } from "../lib/views/view.ts";
import { sharedDir } from "../tests/support/shared.ts";
import { type Question, questionPage, readQuestions } from "./question_pages.ts";
import {
  exists,
  gloveFile,
  GloveTable,
  loadWordnet,
  semanticCacheDir,
  wordnetFile,
} from "./semantic_tables.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    set: { type: "string", multiple: true },
    budget: { type: "string", default: String(QUERY_DEFAULT_TOKENS) },
    sweep: { type: "boolean", default: false },
    flips: { type: "boolean", default: false },
    expansions: { type: "boolean", default: false },
    passages: { type: "boolean", default: false },
  },
});

if (!sharedDir()) {
  console.error("semantic variants SKIPPED: set PARKOUR_SHARED_DIR to the shared folder");
  Deno.exit(0);
}
if (!(await exists(gloveFile())) || !(await exists(wordnetFile()))) {
  console.error(
    `semantic variants SKIPPED: no word tables in ${semanticCacheDir()} (make them with: deno run -A bench/semantic_data.ts)`,
  );
  Deno.exit(0);
}

const budget = Number(values.budget);
const setPaths = values.set?.length
  ? values.set
  : [new URL("./questions/dev.json", import.meta.url).pathname];

// --- Memory the tables add -------------------------------------------------------------------

const gc = (globalThis as { gc?: () => void }).gc;
function memory(): { rss: number; heap: number } {
  gc?.();
  const m = Deno.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed };
}
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
const costs: string[] = [];
async function loaded<T>(name: string, path: string, load: () => Promise<T>): Promise<T> {
  const before = memory();
  const t = performance.now();
  const value = await load();
  const ms = performance.now() - t;
  const after = memory();
  costs.push(
    `| ${name} | ${mb((await Deno.stat(path)).size)} | ${ms.toFixed(0)} | ${
      mb(after.rss - before.rss)
    } | ${mb(after.heap - before.heap)} |`,
  );
  return value;
}
const glove = await loaded("GloVe int8", gloveFile(), () => GloveTable.load(gloveFile()));
const wordnet = await loaded("WordNet synonyms", wordnetFile(), () => loadWordnet(wordnetFile()));

// --- The methods ----------------------------------------------------------------------------

type Expand = (terms: readonly string[], doc: Document, query: string) => WeightedTerm[];

/**
 * The question's content words whose stem is among its terms (the words,
 * not the stems); with `absent`, only those whose stem the page lacks.
 */
function contentWords(
  query: string,
  terms: readonly string[],
  doc: Document,
  absent: boolean,
): string[] {
  const out = new Set<string>();
  scan(query, (w) => {
    if (isStopWord(w) || !terms.includes(stem(w))) return;
    if (!absent || !onPage(doc, stem(w))) out.add(w);
  });
  return [...out];
}

/** Whether the page's question index holds `term`. */
const onPage = (doc: Document, term: string) => queryIndex(doc).postings.get(term) !== undefined;

/** A page's words matched to the GloVe table: table rows and their stems. */
interface PageVocabulary {
  rows: Int32Array;
  stems: string[];
  ms: number;
}
const vocabularies = new WeakMap<Document, PageVocabulary>();
const LINK_TARGET = /\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+"[^"]*")?\)/g;

function pageVocabulary(doc: Document): PageVocabulary {
  let v = vocabularies.get(doc);
  if (v) return v;
  const t = performance.now();
  const seen = new Set<string>();
  scan(doc.markdown.replace(LINK_TARGET, "]"), (w) => seen.add(w));
  const rows: number[] = [];
  const stems: string[] = [];
  for (const w of seen) {
    if (w.length < 3 || !/^[a-z]+$/.test(w) || isStopWord(w)) continue;
    const row = glove.id(w);
    const s = stem(w);
    if (row < 0 || !onPage(doc, s)) continue;
    rows.push(row);
    stems.push(s);
  }
  v = { rows: Int32Array.from(rows), stems, ms: performance.now() - t };
  vocabularies.set(doc, v);
  return v;
}

function gloveExpand(minCos: number, k: number, weight: number, absent = false): Expand {
  return (terms, doc, query) => {
    const vocab = pageVocabulary(doc);
    const own = new Set(terms);
    const out = new Map<string, number>();
    for (const word of contentWords(query, terms, doc, absent)) {
      const q = glove.id(word);
      if (q < 0) continue;
      const best = new Map<string, number>(); // stem → best cosine
      for (let i = 0; i < vocab.rows.length; i++) {
        const s = vocab.stems[i];
        if (own.has(s)) continue;
        const c = glove.cos(q, vocab.rows[i]);
        if (c >= minCos && c > (best.get(s) ?? -1)) best.set(s, c);
      }
      for (const [s] of [...best].sort((a, b) => b[1] - a[1]).slice(0, k)) out.set(s, weight);
    }
    return [...out].map(([term, w]) => ({ term, weight: w }));
  };
}

/** WordNet's detachment rules (morphy): base forms `word` may be an inflection of. */
const DETACH: [string, string][] = [
  ["ses", "s"],
  ["xes", "x"],
  ["zes", "z"],
  ["ches", "ch"],
  ["shes", "sh"],
  ["men", "man"],
  ["ies", "y"],
  ["s", ""],
  ["es", "e"],
  ["es", ""],
  ["ed", "e"],
  ["ed", ""],
  ["ing", "e"],
  ["ing", ""],
  ["er", ""],
  ["est", ""],
  ["er", "e"],
  ["est", "e"],
];

function baseForms(word: string): string[] {
  const out = [word];
  for (const [end, base] of DETACH) {
    if (word.length > end.length + 2 && word.endsWith(end)) {
      out.push(word.slice(0, -end.length) + base);
    }
  }
  return out;
}

function wordnetExpand(k: number, weight: number, absent = false): Expand {
  return (terms, doc, query) => {
    const own = new Set(terms);
    const out = new Map<string, number>();
    for (const word of contentWords(query, terms, doc, absent)) {
      const found = new Set<string>();
      for (const base of baseForms(word)) {
        for (const syn of wordnet.get(base) ?? []) {
          if (found.size >= k) break;
          const s = stem(syn);
          if (isStopWord(syn) || own.has(s) || found.has(s) || !onPage(doc, s)) continue;
          found.add(s);
        }
      }
      for (const s of found) out.set(s, weight);
    }
    return [...out].map(([term, w]) => ({ term, weight: w }));
  };
}

/** Pseudo-relevance feedback: the best terms of the `passages` best units by BM25. */
function prfExpand(passages: number, m: number, weight: number): Expand {
  return (terms, doc, query) => {
    const ranking = rankForQuery(doc, terms, asksForCode(query));
    const top = [...ranking.unitScore].sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, passages).map(([u]) => u);
    const index = queryIndex(doc);
    const n = index.units.length;
    const own = new Set(terms);
    const tf = new Map<string, number>();
    for (const u of top) {
      const unit = index.units.at(u);
      scan(doc.markdown.slice(unit.start, unit.end).replace(LINK_TARGET, "]"), (w) => {
        if (w.length < 3 || !/[a-z]/.test(w) || isStopWord(w)) return;
        const s = stem(w);
        if (!own.has(s)) tf.set(s, (tf.get(s) ?? 0) + 1);
      });
    }
    const scored = [...tf].map(([s, f]) => {
      const df = (index.postings.get(s)?.length ?? 0) / 2;
      return [s, df > 0 ? f * Math.log(1 + (n - df + 0.5) / (df + 0.5)) : 0] as const;
    }).filter(([, score]) => score > 0);
    scored.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    return scored.slice(0, m).map(([term]) => ({ term, weight }));
  };
}

const methods: { name: string; expand?: Expand; passagesOnly?: boolean }[] = [
  { name: "today" },
  { name: "glove k3 cos.65 w.3", expand: gloveExpand(0.65, 3, 0.3) },
  { name: "wordnet k3 w.3", expand: wordnetExpand(3, 0.3) },
  { name: "prf 3x5 w.25", expand: prfExpand(3, 5, 0.25) },
];
if (values.passages) {
  methods.push(
    {
      name: "glove k3 cos.65 w.3, passages only",
      expand: gloveExpand(0.65, 3, 0.3),
      passagesOnly: true,
    },
    {
      name: "glove k3 cos.6 w.5, passages only",
      expand: gloveExpand(0.6, 3, 0.5),
      passagesOnly: true,
    },
    {
      name: "glove k5 cos.55 w.5, passages only",
      expand: gloveExpand(0.55, 5, 0.5),
      passagesOnly: true,
    },
    { name: "wordnet k3 w.4, passages only", expand: wordnetExpand(3, 0.4), passagesOnly: true },
    { name: "prf 3x5 w.3, passages only", expand: prfExpand(3, 5, 0.3), passagesOnly: true },
  );
}
if (values.sweep) {
  methods.push(
    { name: "glove k3 cos.65 w.2", expand: gloveExpand(0.65, 3, 0.2) },
    { name: "glove k3 cos.65 w.4", expand: gloveExpand(0.65, 3, 0.4) },
    { name: "glove k2 cos.7 w.3", expand: gloveExpand(0.7, 2, 0.3) },
    { name: "wordnet k3 w.2", expand: wordnetExpand(3, 0.2) },
    { name: "wordnet k3 w.4", expand: wordnetExpand(3, 0.4) },
    { name: "prf 3x5 w.2", expand: prfExpand(3, 5, 0.2) },
    { name: "prf 3x3 w.3", expand: prfExpand(3, 3, 0.3) },
    { name: "glove absent-only k3 cos.65 w.4", expand: gloveExpand(0.65, 3, 0.4, true) },
    { name: "wordnet absent-only k3 w.4", expand: wordnetExpand(3, 0.4, true) },
  );
}

// --- The questions ----------------------------------------------------------------------------

const setName = (path: string) => path.replace(/^.*\//, "").replace(/\.json$/, "");
const questions: (Question & { set: string })[] = [];
for (const path of setPaths) {
  for (const q of await readQuestions(path)) questions.push({ ...q, set: setName(path) });
}
await tokenizerReady();
const docs = new Map<string, Document>();
for (const q of questions) if (!docs.has(q.page)) docs.set(q.page, await questionPage(q.page));
for (const q of questions) {
  const md = docs.get(q.page)!.markdown;
  if (!q.answers.some((a) => md.includes(a))) throw new Error(`answer not on page: ${q.question}`);
}
const group = (q: Question) => q.page.startsWith("article:") ? "articles" : q.page.slice(5);

interface Outcome {
  hit: boolean;
  tokens: number;
  body: string;
  ms: number;
  expandMs: number;
  terms: WeightedTerm[];
}

/** One question through the query view, with a method's expansion worked out once. */
function ask(method: { expand?: Expand; passagesOnly?: boolean }, q: Question): Outcome {
  const doc = docs.get(q.page)!;
  let terms: WeightedTerm[] = [];
  let expandMs = 0;
  let done = false;
  const once: Expand = (t, d, query) => {
    if (!done) {
      const s = performance.now();
      terms = method.expand!(t, d, query);
      expandMs = performance.now() - s;
      done = true;
    }
    return terms;
  };
  const request = parseWith(pageRequestSchema, {
    url: doc.url,
    query: q.question,
    max_tokens: budget,
  });
  const t = performance.now();
  const r = method.expand
    ? view(doc, request, { extract: { expand: once, expandPassagesOnly: method.passagesOnly } })
    : view(doc, request);
  const ms = performance.now() - t;
  const hit = q.answers.some((a) => r.body.includes(a));
  return { hit, tokens: r.returnedTokens, body: r.body, ms, expandMs, terms };
}

const load = () => Deno.loadavg().map((x) => x.toFixed(1)).join(" ");
const loadBefore = load();
// Warm-up: every page's indexes (and GloVe vocabulary) built, every method run once.
for (const m of methods) for (const q of questions) ask(m, q);
const outcomes = methods.map(() => new Array<Outcome>(questions.length));
for (const [i, q] of questions.entries()) {
  for (let k = 0; k < methods.length; k++) {
    const m = (i + k) % methods.length; // a different method first each question
    outcomes[m][i] = ask(methods[m], q);
  }
}

// --- Report -----------------------------------------------------------------------------------

function quantile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(s.length * p))] : 0;
}
const median = (xs: number[]) => quantile(xs, 0.5);

console.log(
  `${questions.length} questions over ${docs.size} pages, budget ${budget} tokens (${
    setPaths.join(", ")
  }); load average before ${loadBefore}, after ${load()}${
    gc ? "" : "; no --expose-gc, memory figures without a collection"
  }`,
);
console.log("\nWhat the tables cost (loaded once per process):\n");
console.log("| table | file MiB | load ms | RSS added MiB | heap added MiB |");
console.log("| --- | ---: | ---: | ---: | ---: |");
for (const row of costs) console.log(row);
const vocab = [...docs.values()].map(pageVocabulary);
const biggest = vocab.reduce((a, b) => a.rows.length > b.rows.length ? a : b);
console.log(
  `\nGloVe page vocabularies (built once per page, kept): ${
    median(vocab.map((v) => v.rows.length))
  } words median, ${biggest.rows.length} at most (${biggest.ms.toFixed(0)} ms to build, about ${
    mb(biggest.rows.length * 4 + biggest.stems.length * 8)
  } MiB)`,
);

const keys = ["all", ...new Set(questions.map((q) => q.set))];
keys.push(...[...new Set(questions.map(group))].sort());
console.log("\nHit rate (answer verbatim in the view's body):\n");
console.log(`| questions | n | ${methods.map((m) => m.name).join(" | ")} |`);
console.log(`| --- | ---: | ${methods.map(() => "---:").join(" | ")} |`);
for (const key of keys) {
  const idx = questions.flatMap((q, i) =>
    key === "all" || q.set === key || group(q) === key ? [i] : []
  );
  const cells = outcomes.map((o) => {
    const hits = idx.filter((i) => o[i].hit).length;
    return `${hits} (${(100 * hits / idx.length).toFixed(1)} %)`;
  });
  const label = key === "all" || questions.some((q) => q.set === key) ? `**${key}**` : key;
  console.log(`| ${label} | ${idx.length} | ${cells.join(" | ")} |`);
}

console.log("\nAgainst today's method, tokens and latency (all questions):\n");
console.log(
  "| method | won | lost | body changed | expansion terms (mean) | median tokens | mean tokens | median ms | p95 ms | expansion median ms | expansion p95 ms |",
);
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
const base = outcomes[0];
for (const [m, o] of outcomes.entries()) {
  const won = o.filter((x, i) => x.hit && !base[i].hit).length;
  const lost = o.filter((x, i) => !x.hit && base[i].hit).length;
  const changed = o.filter((x, i) => x.body !== base[i].body).length;
  const tokens = o.map((x) => x.tokens);
  const ms = o.map((x) => x.ms);
  const ems = o.map((x) => x.expandMs);
  const meanTerms = o.reduce((a, x) => a + x.terms.length, 0) / o.length;
  console.log(
    `| ${methods[m].name} | ${won} | ${lost} | ${changed} | ${meanTerms.toFixed(1)} | ${
      median(tokens)
    } | ${(tokens.reduce((a, b) => a + b, 0) / tokens.length).toFixed(0)} | ${
      median(ms).toFixed(2)
    } | ${quantile(ms, 0.95).toFixed(2)} | ${median(ems).toFixed(2)} | ${
      quantile(ems, 0.95).toFixed(2)
    } |`,
  );
}

const label = (q: Question) => `${q.page.slice(0, 24)} | ${q.question}`;
const show = (terms: WeightedTerm[]) => terms.map((t) => t.term).join(" ");
if (values.flips) {
  for (const [m, o] of outcomes.entries()) {
    if (m === 0) continue;
    console.log(`\n${methods[m].name}:`);
    for (const [i, q] of questions.entries()) {
      if (o[i].hit === base[i].hit) continue;
      console.log(`  ${o[i].hit ? "won " : "lost"} ${label(q)}  [+ ${show(o[i].terms)}]`);
    }
  }
}
if (values.expansions) {
  for (const [i, q] of questions.entries()) {
    console.log(`\n${label(q)}`);
    for (const [m, o] of outcomes.entries()) {
      if (m > 0) console.log(`  ${methods[m].name}: ${show(o[i].terms)}`);
    }
  }
}
