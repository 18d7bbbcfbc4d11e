/**
 * The server's resident memory under a filled page cache: a runnable script
 * (not a `deno bench` file).
 *
 * ```sh
 * deno run -A bench/cache_rss.ts [--cache-mb 64] [--rounds 2] [--root DIR]
 * ```
 *
 * It starts `main.ts serve --http` (of this checkout, or of `--root`, to
 * compare with another commit) with `PARKOUR_CACHE_MB`, serves made-up pages
 * of every size (10 KB to 4 MB, tests/support/sized_pages.ts) and the shared
 * real pages (PEP 8, ECMA-262, WHATWG HTML, when PARKOUR_SHARED_DIR is set)
 * from 127.0.0.1, and fills the cache: each page under several distinct URLs,
 * each read with an outline, a search and a question so its indexes are
 * built (a Document at its largest). It prints the server's RSS when idle,
 * after each page, and at the end (and after 5 s idle), its peak (VmHWM), and
 * the budget: the cache bound plus a fixed overhead (the peak of converting
 * the largest page alone, idle RSS included, measured first in a fresh
 * process: the median of three) plus the garbage left to V8's own schedule (96 MiB:
 * RECLAIM_SLACK_BYTES in lib/runtime/memory.ts). `PARKOUR_CONVERT_WORKERS=0` in its environment runs the
 * server with every page converted on its main thread. `--only NAME --copies N` reads one page under N URLs
 * (`--only synthetic-4000k --copies 40 --cache-mb 256`: the issue's case).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { RECLAIM_SLACK_BYTES } from "../lib/runtime/memory.ts";
import { HttpServerProcess, ROOT_DIR } from "../tests/support/process.ts";
import { sizedPage } from "../tests/support/sized_pages.ts";
import { gunzipFile, sharedDir } from "../tests/support/shared.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    "cache-mb": { type: "string", default: "64" },
    rounds: { type: "string", default: "2" },
    root: { type: "string", default: ROOT_DIR },
    only: { type: "string" },
    copies: { type: "string" },
  },
});
const cacheMb = Number(values["cache-mb"]);
const rounds = Number(values.rounds);
const MIB = 1024 * 1024;
/** Fresh processes that read the largest page alone, for the budget's fixed overhead. */
const ALONE_RUNS = 3;

function status(pid: number, field: "VmRSS" | "VmHWM"): number {
  const text = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text)![1]) * 1024;
}

// Pages: made-up ones of every size, and the shared captures.
const pages: { name: string; html: string }[] = [10e3, 50e3, 200e3, 1e6, 4e6].map((b) => ({
  name: `synthetic-${b / 1000}k`,
  html: sizedPage(b, b),
}));
const shared = sharedDir();
if (values.only) {
  // One page under many URLs (the case: 40 distinct 4 MB pages).
  pages.splice(0, pages.length, ...pages.filter((p) => p.name === values.only));
} else if (shared) {
  for (const name of ["pep_8", "ecma262", "whatwg_html"]) {
    const bytes = await gunzipFile(`${shared}/fixtures/real/${name}.html.gz`);
    pages.push({ name, html: new TextDecoder().decode(bytes) });
  }
} else console.log("PARKOUR_SHARED_DIR not set: made-up pages only");

const upstream = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
  const name = new URL(req.url).pathname.slice(1);
  const page = pages.find((p) => p.name === name);
  return page
    ? new Response(page.html, { headers: { "content-type": "text/html; charset=utf-8" } })
    : new Response("no", { status: 404 });
});
const origin = `http://127.0.0.1:${upstream.addr.port}`;

function startServer(): Promise<HttpServerProcess> {
  return HttpServerProcess.start(`${values.root}/main.ts`, [], {
    MCP_ALLOW_PRIVATE_IPS: "1",
    PARKOUR_CACHE_MB: String(cacheMb),
    PARKOUR_MAX_PAGE_MB: "64",
    PARKOUR_CONVERT_WORKERS: Deno.env.get("PARKOUR_CONVERT_WORKERS") ?? "",
  });
}

async function read(api: string, url: string): Promise<void> {
  for (
    const params of [
      { path: "/sections", q: {} },
      { path: "", q: { search: "chapter OR element" } },
      { path: "", q: { query: "what does the first chapter say about the default value" } },
    ]
  ) {
    const u = new URL(api + params.path);
    u.searchParams.set("url", url);
    for (const [k, v] of Object.entries(params.q)) u.searchParams.set(k, v as string);
    const res = await fetch(u);
    await res.body?.cancel();
    if (res.status !== 200 && res.status !== 404) throw new Error(`${res.status} for ${u}`);
  }
}

const mb = (n: number) => (n / MIB).toFixed(0);

// The fixed overhead: idle, then the largest page converted and indexed alone, in a fresh
// process each time; the median of three (one process's peak moves by 10-30 MiB from run to run).
const largest = pages.reduce((a, b) => (a.html.length >= b.html.length ? a : b));
const alone: { idle: number; peak: number }[] = [];
for (let i = 0; i < ALONE_RUNS; i++) {
  const fresh = await startServer();
  const idle = status(fresh.pid, "VmRSS");
  await read(fresh.api, `${origin}/${largest.name}?alone`);
  alone.push({ idle, peak: status(fresh.pid, "VmHWM") });
  await fresh.stop();
}
alone.sort((a, b) => a.peak - b.peak);
const { idle, peak: alonePeak } = alone[Math.floor(alone.length / 2)];
// The budget: the largest page's conversion (idle included), the cache bound, and the garbage
// left to V8's own schedule before a collection is asked for (RECLAIM_SLACK_BYTES).
const budget = alonePeak + cacheMb * MIB + RECLAIM_SLACK_BYTES;

const server = await startServer();
console.log(
  `cache bound ${cacheMb} MiB; idle RSS ${mb(idle)} MiB; ${largest.name} alone peaks at ${
    mb(alonePeak)
  } MiB (median of ${alone.map((a) => mb(a.peak)).join(", ")}); budget (that peak + bound + ${
    mb(RECLAIM_SLACK_BYTES)
  } MiB slack) ${mb(budget)} MiB`,
);
console.log("| step | page | RSS MiB | peak MiB |\n|---:|---|---:|---:|");
let step = 0;
let worst = 0;
for (let r = 0; r < rounds; r++) {
  for (const p of pages) {
    // Small pages under many URLs, so they fill the cache too.
    const copies = values.copies
      ? Number(values.copies)
      : p.html.length < 100e3
      ? 12
      : p.html.length < 1.5e6
      ? 4
      : 1;
    for (let c = 0; c < copies; c++) await read(server.api, `${origin}/${p.name}?r=${r}&c=${c}`);
    const rss = status(server.pid, "VmRSS");
    worst = Math.max(worst, rss);
    console.log(
      `| ${++step} | ${p.name} ×${copies} | ${mb(rss)} | ${mb(status(server.pid, "VmHWM"))} |`,
    );
  }
}
await new Promise((r) => setTimeout(r, 5000));
const settled = status(server.pid, "VmRSS");
const peak = status(server.pid, "VmHWM");
console.log(
  `\nafter filling: RSS ${mb(worst)} MiB at worst, ${mb(settled)} MiB after 5 s idle; peak ${
    mb(peak)
  } MiB; budget ${mb(budget)} MiB: ${peak <= budget ? "within" : "OVER"} (peak / budget ${
    (peak / budget).toFixed(2)
  })`,
);
await server.stop();
await upstream.shutdown();
