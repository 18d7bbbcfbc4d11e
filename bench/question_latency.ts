/**
 * Question latency on a cached page: a runnable script (not a `deno bench`
 * file), timing `web_fetch_incisive` with `query=` through its handler on a
 * Document already in the page cache, for every question of the
 * development set written over that page.
 *
 * ```sh
 * deno run -A bench/question_latency.ts [--page whatwg_html] [--rounds 3] [--root DIR]
 * ```
 *
 * `--root` runs another checkout's modules (the same script, so the figures
 * of two commits sit side by side). Prints the first question's time (which
 * builds the question index) and p50 / p95 / max of the rest. Needs
 * PARKOUR_SHARED_DIR (the shared captures).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { ROOT_DIR } from "../tests/support/process.ts";
import { gunzipFile, sharedDir } from "../tests/support/shared.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    page: { type: "string", default: "whatwg_html" },
    rounds: { type: "string", default: "3" },
    root: { type: "string", default: ROOT_DIR },
  },
});
const root = values.root!;
const shared = sharedDir();
if (!shared) {
  console.log("SKIPPED: set PARKOUR_SHARED_DIR to the shared folder");
  Deno.exit(0);
}
const URLS: Record<string, string> = {
  whatwg_html: "https://html.spec.whatwg.org/",
  ecma262: "https://tc39.es/ecma262/",
  pep_8: "https://peps.python.org/pep-0008/",
};
const url = URLS[values.page!];

const { htmlDocument } = await import(`${root}/lib/content/pipeline.ts`);
const { decodeText } = await import(`${root}/lib/net/charset.ts`);
const { runIncisive } = await import(`${root}/lib/tools/web_fetch_incisive.ts`);
const { ToolRegistry, toolContext } = await import(`${root}/lib/tools/registry.ts`);
const { TOOLS } = await import(`${root}/lib/tools/catalog.ts`);
const { pageCache } = await import(`${root}/lib/sources/router.ts`);
const { envelopeReady } = await import(`${root}/lib/envelope/frontmatter.ts`);

await envelopeReady();
const raw = await gunzipFile(`${shared}/fixtures/real/${values.page}.html.gz`);
const doc = htmlDocument(decodeText(raw, "text/html").text, url);
pageCache().set(url, doc);
const ctx = toolContext({
  registry: new ToolRegistry(TOOLS, "desktop"),
  defaultOutput: "markdown",
  signal: new AbortController().signal,
});
const questions = (JSON.parse(
  await Deno.readTextFile(`${ROOT_DIR}/bench/questions/dev.json`),
) as { page: string; question: string }[]).filter((q) => q.page === `real:${values.page}`);

const ask = async (question: string) => {
  const t = performance.now();
  const result = await runIncisive({ url, query: question }, ctx);
  if (result.isError) throw new Error(result.content[0].text);
  return performance.now() - t;
};
const first = await ask(questions[0].question);
const times: number[] = [];
for (let r = 0; r < Number(values.rounds); r++) {
  for (const q of questions) times.push(await ask(q.question));
}
times.sort((a, b) => a - b);
const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))];
console.log(
  `${values.page} (${
    root === ROOT_DIR ? "this checkout" : root
  }): ${questions.length} questions × ${values.rounds}; first ${
    first.toFixed(0)
  } ms (builds the index); then p50 ${at(0.5).toFixed(1)} ms, p95 ${at(0.95).toFixed(1)} ms, max ${
    times.at(-1)!.toFixed(1)
  } ms`,
);
