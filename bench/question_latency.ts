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
 * `--collect` runs a full collection (the checkout's `collectNow`, Deno's
 * run-time collector) before each timed question, untimed: what a server
 * does between an agent's follow-ups when it goes idle (V8's memory reducer,
 * the page cache's reclaim), and what cold code and caches it leaves the
 * next answer.
 *
 * ```sh
 * deno run -A bench/question_latency.ts --collect [--root DIR]
 * ```
 *
 * `--cold N` measures a cold page through the MCP surface instead: a server
 * (`main.ts serve --http`, started from the checkout so its conversion
 * workers load) reads WHATWG from a local upstream under a new URL each
 * round, and the SDK v2 client times the first answer (the outline), then at
 * once the first keyword search on the page (a new URL) or the first
 * question (another), and the pings sent every 20 ms between the outline's
 * answer and two seconds after it (while the page's indexes are built in
 * the background, where they are), then the first question and the first
 * search on that page (an agent reads the outline before it asks). Prints
 * medians over N rounds.
 *
 * ```sh
 * deno run -A bench/question_latency.ts --cold 5
 * ```
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
    cold: { type: "string" },
    collect: { type: "boolean", default: false },
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
if (values.cold) {
  await cold(Number(values.cold));
  Deno.exit(0);
}

const { htmlDocument } = await import(`${root}/lib/content/pipeline.ts`);
const { decodeText } = await import(`${root}/lib/net/charset.ts`);
const { runIncisive } = await import(`${root}/lib/tools/web_fetch_incisive.ts`);
const { ToolRegistry, toolContext } = await import(`${root}/lib/tools/registry.ts`);
const { TOOLS } = await import(`${root}/lib/tools/catalog.ts`);
const { cacheKey, pageCache } = await import(`${root}/lib/sources/router.ts`);
const { envelopeReady } = await import(`${root}/lib/envelope/frontmatter.ts`);
const { collectNow } = await import(`${root}/lib/runtime/memory.ts`);

await envelopeReady();
const raw = await gunzipFile(`${shared}/fixtures/real/${values.page}.html.gz`);
const doc = htmlDocument(decodeText(raw, "text/html").text, url);
pageCache().set(cacheKey(url), doc);
const ctx = toolContext({
  registry: new ToolRegistry(TOOLS, "desktop"),
  defaultOutput: "markdown",
  signal: new AbortController().signal,
});
const questions = (JSON.parse(
  await Deno.readTextFile(`${ROOT_DIR}/bench/questions/dev.json`),
) as { page: string; question: string }[]).filter((q) => q.page === `real:${values.page}`);

const ask = async (question: string) => {
  if (values.collect) await collectNow();
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
  `${values.page} (${root === ROOT_DIR ? "this checkout" : root}${
    values.collect ? ", a full collection before each" : ""
  }): ${questions.length} questions × ${values.rounds}; first ${
    first.toFixed(0)
  } ms (builds the index); then p50 ${at(0.5).toFixed(1)} ms, p95 ${at(0.95).toFixed(1)} ms, max ${
    times.at(-1)!.toFixed(1)
  } ms`,
);

/** The cold-page figures (see the module notes). */
async function cold(rounds: number): Promise<void> {
  const { Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
  const { HttpServerProcess, MAIN } = await import("../tests/support/process.ts");
  const page = await gunzipFile(`${shared}/fixtures/real/${values.page}.html.gz`);
  const upstream = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () =>
      new Response(page as BodyInit, {
        headers: { "content-type": "text/html; charset=utf-8" },
      }),
  );
  Deno.chdir(ROOT_DIR);
  const server = await HttpServerProcess.start(MAIN, [], { MCP_ALLOW_PRIVATE_IPS: "1" }, [
    `--allow-read=${ROOT_DIR}`,
  ]);
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  const base = `http://127.0.0.1:${upstream.addr.port}/${values.page}`;
  const call = async (args: Record<string, unknown>, name = "web_fetch_incisive") => {
    const t = performance.now();
    const r = await client.callTool({ name, arguments: args }, { timeout: 120_000 });
    if (r.isError) throw new Error(JSON.stringify(r.content).slice(0, 300));
    return performance.now() - t;
  };
  const question =
    "how does the tree builder handle a table start tag in the in body insertion mode?";
  const figures: Record<string, number[]> = {
    outline: [],
    search: [],
    question: [],
    ping: [],
    laterQuestion: [],
    laterSearch: [],
    pingAsking: [],
  };
  try {
    // Warm-up: modules, the worker, the tokenizer.
    await call({ url: `${base}?warm` }, "web_fetch_sections");
    await call({ url: `${base}?warm`, query: question });
    for (let r = 0; r < rounds; r++) {
      const a = `${base}?s${r}-${Date.now()}`;
      figures.outline.push(await call({ url: a }, "web_fetch_sections"));
      figures.search.push(await call({ url: a, search: "insertion mode table" }));
      const b = `${base}?q${r}-${Date.now()}`;
      figures.outline.push(await call({ url: b }, "web_fetch_sections"));
      figures.question.push(await call({ url: b, query: question }));
      // Pings after an outline, while the background build (if any) runs.
      const c = `${base}?p${r}-${Date.now()}`;
      await call({ url: c }, "web_fetch_sections");
      const end = performance.now() + 2000;
      while (performance.now() < end) {
        const t = performance.now();
        await client.ping();
        figures.ping.push(performance.now() - t);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // Pings while that first question is answered: on the main thread or not.
      let answering = true;
      const asked = call({ url: c, query: question }).finally(() => answering = false);
      while (answering) {
        const t = performance.now();
        await client.ping();
        figures.pingAsking.push(performance.now() - t);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      figures.laterQuestion.push(await asked);
      figures.laterSearch.push(await call({ url: c, search: "insertion mode table" }));
    }
  } finally {
    await client.close().catch(() => {});
    await server.stop();
    await upstream.shutdown();
  }
  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const med = (xs: number[]) => sorted(xs)[Math.floor(xs.length / 2)];
  const p99 = (xs: number[]) =>
    sorted(xs)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.99) - 1)];
  const f = (n: number) => n.toFixed(0);
  console.log(
    `${values.page} cold, ${rounds} rounds: outline ${f(med(figures.outline))} ms; ` +
      `first search right after it ${f(med(figures.search))} ms; ` +
      `first question right after it ${f(med(figures.question))} ms; ` +
      `2 s after it: first question ${f(med(figures.laterQuestion))} ms, then first search ${
        f(med(figures.laterSearch))
      } ms; ` +
      `pings in the 2 s after an outline p50 ${med(figures.ping).toFixed(1)} / p99 ${
        p99(figures.ping).toFixed(1)
      } / max ${Math.max(...figures.ping).toFixed(1)} ms (n=${figures.ping.length}); ` +
      `slowest ping while that first question was answered ${
        Math.max(...figures.pingAsking).toFixed(1)
      } ms`,
  );
}
