/**
 * How close the token estimate is to real tokens (o200k), per script and
 * page kind, before and after the per-script estimate, and what the views
 * return for a budget. Medians over pages (each page's Markdown, as the
 * views cut it), with the worst page; then, for budgets of 600 and 5,000,
 * the most real tokens the page view returned (the CLI's `fetch --max-tokens
 * N`, in process) and the least, as a share of N, on pages longer than N.
 * Ends with the cost of the exact count: loading the tables, counting a
 * 5,000-token answer, and what `main.ts --version` costs (it must not load
 * the tables: its peak memory stays far below a process that does).
 *
 *     PARKOUR_SHARED_DIR=/work/shared deno run -A bench/token_estimate.ts [--articles 94]
 */
import {
  countTokens,
  estimateTokens,
  fitToBudget,
  tokenizerReady,
} from "../lib/content/tokens/count.ts";
import { evaluationPages } from "./token_corpus.ts";
import { runIncisive } from "../lib/tools/web_fetch_incisive.ts";
import { toolContext, ToolRegistry } from "../lib/tools/registry.ts";
import { TOOLS } from "../lib/tools/catalog.ts";
import { envelopeReady, parseFrontmatter } from "../lib/envelope/frontmatter.ts";
import { parseFences } from "../lib/envelope/fence.ts";
import type { Document } from "../lib/content/document/document.ts";

/** The estimate before this change (ASCII / 4, one token per other code point): the baseline. */
function oldEstimate(text: string): number {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) ascii++;
    else if (c >= 0xdc00 && c <= 0xdfff) continue;
    else other++;
  }
  return Math.ceil(ascii / 4 + other);
}

const articlesFlag = Deno.args.indexOf("--articles");
const articles = articlesFlag >= 0 ? Number(Deno.args[articlesFlag + 1]) : 30;

const t0 = performance.now();
await tokenizerReady();
const loadMs = performance.now() - t0;

const pages = await evaluationPages({ articles });
const median = (v: number[]) => {
  const s = [...v].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)];
};
const worst = (v: number[]) => v.reduce((w, x) => (Math.abs(x - 1) > Math.abs(w - 1) ? x : w), 1);

const groups = new Map<string, { before: number[]; after: number[] }>();
for (const p of pages) {
  const real = await countTokens(p.markdown);
  if (real === 0) continue;
  const g = groups.get(p.group) ?? { before: [], after: [] };
  g.before.push(oldEstimate(p.markdown) / real);
  g.after.push(estimateTokens(p.markdown) / real);
  groups.set(p.group, g);
}
console.log("estimate / real o200k tokens, median over pages (worst page)");
console.log("group              pages   before            after");
for (const [group, g] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
  const cell = (v: number[]) => `${median(v).toFixed(2)} (${worst(v).toFixed(2)})`.padEnd(18);
  console.log(
    `${group.padEnd(18)} ${String(g.before.length).padStart(5)}   ${cell(g.before)}${
      cell(g.after)
    }`,
  );
}

// What the page view returns, through the tool handler the CLI calls.
await envelopeReady();
const registry = new ToolRegistry(TOOLS, "desktop");
const ctx = toolContext({
  registry,
  defaultOutput: "markdown",
  signal: new AbortController().signal,
});
async function viewText(doc: Document, n: number): Promise<{ text: string; fm: number }> {
  const result = await runIncisive(
    { url: "file:///bench/page.html", max_tokens: n },
    ctx,
    () => Promise.resolve({ doc, cached: false }),
  );
  const text = result.content[0].text;
  const meta = parseFrontmatter(text) ?? {};
  const fences = meta.fence ? parseFences(text, String(meta.fence)) : [];
  return {
    text: fences.map((f) => f.lines.join("\n")).join("\n\n"),
    fm: Number(meta.returned_tokens ?? NaN),
  };
}
console.log("\nthe page view at max_tokens N: real tokens returned / N (pages longer than N)");
console.log("group              N       max      min    returned_tokens >= real (of pages)");
for (const n of [600, 5000]) {
  const byGroup = new Map<string, { max: number; min: number; honest: number; count: number }>();
  for (const p of pages) {
    if (!p.doc) continue;
    const real = await countTokens(p.markdown);
    if (real <= n * 1.25) continue;
    const out = await viewText(p.doc, n);
    const got = await countTokens(out.text);
    const g = byGroup.get(p.group) ?? { max: 0, min: Infinity, honest: 0, count: 0 };
    g.max = Math.max(g.max, got / n);
    g.min = Math.min(g.min, got / n);
    g.count++;
    g.honest += out.fm >= got ? 1 : 0;
    byGroup.set(p.group, g);
  }
  for (const [group, g] of [...byGroup].sort(([a], [b]) => a.localeCompare(b))) {
    console.log(
      `${group.padEnd(18)} ${String(n).padEnd(7)} ${g.max.toFixed(3).padEnd(8)} ${
        g.min.toFixed(3).padEnd(6)
      } ${g.honest}/${g.count}`,
    );
  }
}

// Cost of the exact check on a 5,000-token answer.
const sample = pages.find((p) => p.group === "spec")?.markdown ?? pages[0].markdown;
const answer = (await fitToBudget(sample, 5000)).text;
const runs: number[] = [];
for (let i = 0; i < 20; i++) {
  const t = performance.now();
  await fitToBudget(answer + " ".repeat(i % 2), 5000);
  runs.push(performance.now() - t);
}
const estRuns: number[] = [];
for (let i = 0; i < 20; i++) {
  const t = performance.now();
  estimateTokens(answer + " ".repeat(i % 2));
  estRuns.push(performance.now() - t);
}
console.log(
  `\nexact count: tables loaded in ${loadMs.toFixed(0)} ms; a 5,000-token answer counted in ${
    median(runs).toFixed(1)
  } ms (median of 20), estimated in ${median(estRuns).toFixed(2)} ms`,
);

// Cold start: `main.ts --version` never loads the tables.
async function peak(args: string[]): Promise<{ ms: number; rssMb: number }> {
  const runs: { ms: number; rssMb: number }[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const out = await new Deno.Command("/usr/bin/time", {
      args: ["-f", "%M", Deno.execPath(), "run", "--no-prompt", ...args],
      stdout: "null",
      stderr: "piped",
    }).output();
    const lines = new TextDecoder().decode(out.stderr).trim().split("\n");
    runs.push({ ms: performance.now() - t, rssMb: Number(lines[lines.length - 1]) / 1024 });
  }
  runs.sort((a, b) => a.ms - b.ms);
  return runs[2];
}
const main = decodeURIComponent(new URL("../main.ts", import.meta.url).pathname);
const tokens = decodeURIComponent(
  new URL("../lib/content/tokens/count.ts", import.meta.url).pathname,
);
const probe = await Deno.makeTempFile({ suffix: ".ts" });
await Deno.writeTextFile(
  probe,
  `import { countTokens } from ${JSON.stringify(tokens)};\nawait countTokens("x");\n`,
);
try {
  const version = await peak(["--allow-all", main, "--version"]);
  const loaded = await peak([
    "--allow-all",
    `--config=${main.replace(/main\.ts$/, "deno.json")}`,
    probe,
  ]);
  console.log(
    `main.ts --version: ${version.ms.toFixed(0)} ms, peak ${
      version.rssMb.toFixed(0)
    } MB; a process that loads the tables: ${loaded.ms.toFixed(0)} ms, peak ${
      loaded.rssMb.toFixed(0)
    } MB (medians of 5)`,
  );
} finally {
  await Deno.remove(probe);
}
