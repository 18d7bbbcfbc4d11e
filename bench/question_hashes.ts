/**
 * Answers that must not change: the query view's body for every question
 * of the tuning and held-out sets at 150, 600 and 2,000 tokens, hashed
 * (SHA-256), so a change meant to be faster can be shown to answer the same.
 *
 * ```sh
 * PARKOUR_SHARED_DIR=/path/to/shared deno run -A bench/question_hashes.ts --out /tmp/after.json
 * PARKOUR_SHARED_DIR=/path/to/shared deno run -A bench/question_hashes.ts \
 *   --root /tmp/some-checkout --out /tmp/before.json
 * deno run -A bench/question_hashes.ts --compare /tmp/before.json /tmp/after.json
 * ```
 *
 * `--root DIR` answers with another checkout's pipeline and view (each
 * converts the pages itself); the question sets are this checkout's
 * `bench/questions/dev.json`, `heldout.json` and `tune_specs.json` (never
 * `heldout2.json`, a held-out set scored once elsewhere). What is hashed is
 * what every face shows as the text: the view's body, as the request model
 * parses the request, with the o200k tokenizer loaded. The file also keeps
 * each answer's returned tokens, and the run prints the view's time per
 * question (p50, p95 in this process, after a warm-up pass).
 *
 * `--skip-missing` leaves out the questions over a page the shared folder
 * lacks (the `spec:` pages are built locally, see `bench/spec_pages_data.ts`)
 * and says how many; without it a missing page stops the run.
 *
 * `--compare A B` prints the keys whose hashes differ (exit code 1 when any
 * does).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { compareHashFiles } from "./hash_compare.ts";
import { ROOT_DIR } from "../tests/support/process.ts";
import { sharedDir } from "../tests/support/shared.ts";
import { pageSource, type Question, readQuestions } from "./question_pages.ts";

const { values, positionals } = parseArgs({
  args: Deno.args,
  allowPositionals: true,
  options: {
    root: { type: "string", default: ROOT_DIR },
    out: { type: "string" },
    compare: { type: "boolean", default: false },
    "skip-missing": { type: "boolean", default: false },
  },
});

type Hashes = Record<string, { sha256: string; tokens: number }>;

if (values.compare) {
  await compareHashFiles<Hashes[string]>(positionals, (h) => h?.sha256, "answers");
}

if (!sharedDir()) {
  console.log("SKIPPED: set PARKOUR_SHARED_DIR to the shared folder");
  Deno.exit(0);
}

const root = `file://${await Deno.realPath(values.root!)}`;
const pipeline = await import(`${root}/lib/content/pipeline.ts`);
const views = await import(`${root}/lib/views/view.ts`);
const request = await import(`${root}/lib/views/request.ts`);
const tokens = await import(`${root}/lib/content/tokens/count.ts`);
await tokens.tokenizerReady();

const SETS = ["dev", "heldout", "tune_specs"];
const BUDGETS = [150, 600, 2000];
const questions: (Question & { set: string; n: number })[] = [];
for (const set of SETS) {
  const list = await readQuestions(`${ROOT_DIR}/bench/questions/${set}.json`);
  list.forEach((q, n) => questions.push({ ...q, set, n }));
}
const docs = new Map<string, unknown>();
const missing = new Set<string>();
for (const q of questions) {
  if (docs.has(q.page) || missing.has(q.page)) continue;
  let source: { html: string; url: string };
  try {
    source = await pageSource(q.page);
  } catch (e) {
    if (!values["skip-missing"] || !/missing/.test(String(e))) throw e;
    missing.add(q.page);
    continue;
  }
  docs.set(q.page, pipeline.htmlDocument(source.html, source.url));
}
if (missing.size > 0) {
  const left = questions.filter((q) => missing.has(q.page)).length;
  console.log(
    `left out ${left} questions over ${missing.size} missing pages: ${[...missing].join(", ")}`,
  );
  questions.splice(0, questions.length, ...questions.filter((q) => !missing.has(q.page)));
}

const ask = (q: Question, budget: number) => {
  const doc = docs.get(q.page) as { url: string };
  const req = request.parseWith(request.pageRequestSchema, {
    url: doc.url,
    query: q.question,
    max_tokens: budget,
  });
  return views.view(doc, req) as { body: string; returnedTokens: number };
};

// A warm-up pass builds every page's question index.
for (const q of questions) ask(q, 600);
const out: Hashes = {};
const times: number[] = [];
for (const budget of BUDGETS) {
  for (const q of questions) {
    const t = performance.now();
    const r = ask(q, budget);
    times.push(performance.now() - t);
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(r.body));
    const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
    out[`${q.set}#${q.n}@${budget}`] = { sha256: hex, tokens: r.returnedTokens };
  }
}
times.sort((a, b) => a - b);
const at = (p: number) => times[Math.min(times.length - 1, Math.ceil(p * times.length) - 1)];
console.log(
  `${Object.keys(out).length} answers (${questions.length} questions × ${
    BUDGETS.join(", ")
  } tokens) from ${values.root}; the view's time per question p50 ${at(0.5).toFixed(2)} ms, p95 ${
    at(0.95).toFixed(2)
  } ms, max ${times.at(-1)!.toFixed(1)} ms`,
);
if (values.out) await Deno.writeTextFile(values.out, JSON.stringify(out, null, 1));
