/**
 * Follow-up latency over HTTP: a section, a search and a question on a
 * cached specification, timed by a client over the HTTP API (`/api`, the
 * way a program asks) and, with `--mcp`, as MCP tool calls over Streamable
 * HTTP, for this checkout and, with `--baseline DIR`, another checkout of
 * this project side by side.
 *
 * ```sh
 * git worktree add /tmp/followup-base-$$ d5d207c
 * PARKOUR_SHARED_DIR=/path/to/shared \
 *   deno run -A bench/followup_latency.ts --baseline /tmp/followup-base-$$ [--rounds 5] [--settle 5] [--mcp]
 * ```
 *
 * Each checkout runs as its own server process (`main.ts serve --http`,
 * the start task's flags, started in its own folder so its own import map
 * and conversion workers load); a local upstream on 127.0.0.1 serves the
 * page (WHATWG HTML by default, `--page ecma262`). Each server reads it
 * once and builds its indexes, then answers a warm-up set of requests of
 * every kind (the JIT) before anything is timed. The timed rounds alternate
 * between the servers (this one first in even rounds, the baseline first in
 * odd ones); each round asks requests no earlier round or warm-up asked (an
 * agent's follow-ups are new questions: nothing is timed twice), the same
 * ones of both servers, one at a time:
 *
 * - sections: 40 sections spread over the outline, by address, whole (the
 *   HTTP API returns a section whole without `max_tokens`);
 * - searches: 12 keyword searches made of the two longest words of a
 *   section title, at the default budget (5,000 tokens);
 * - questions: 12 of the question sets' questions on the page
 *   (`bench/questions/dev.json`, `heldout.json`, `tune_specs.json`), at
 *   the default budget (600).
 *
 * The time is from the request to the last byte of the answer, and the
 * server's CPU time for it (all its threads, from each thread's
 * `/proc/PID/task/TID/schedstat`, Linux only), which the load of a shared
 * machine moves less. Between the warm-up and the first round the bench
 * waits `--settle` seconds (5): an agent reads an answer before it asks
 * again, and a server counts a page's slices in the background after its
 * first search (`--settle 0` times the rounds while that count runs).
 * Prints p50, p95 and max per kind and server, and the ratios of this
 * checkout to the baseline. Compare ratios and medians of the same run, not
 * figures of different runs.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { ROOT_DIR, taskFlags } from "../tests/support/process.ts";
import { gunzipFile, sharedDir } from "../tests/support/shared.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    baseline: { type: "string" },
    rounds: { type: "string", default: "5" },
    page: { type: "string", default: "whatwg_html" },
    mcp: { type: "boolean", default: false },
    settle: { type: "string", default: "5" },
  },
});

const shared = sharedDir();
if (!shared) {
  console.log("SKIPPED: set PARKOUR_SHARED_DIR to the shared folder");
  Deno.exit(0);
}

const SECTIONS = 40;
const SEARCHES = 12;
const QUESTIONS = 12;

interface Server {
  name: string;
  dir: string;
  base: string;
  mcp: string;
  child: Deno.ChildProcess;
}

/** Starts `main.ts serve --http` of `dir` in `dir`, with the start task's flags. */
async function startServer(name: string, dir: string): Promise<Server> {
  const flags = taskFlags("start").map((f) => f.startsWith("--allow-read=") ? `${f},${dir}` : f);
  const child = new Deno.Command(Deno.execPath(), {
    args: [...flags, `${dir}/main.ts`, "serve", "--http", "--port", "0"],
    cwd: dir,
    env: { MCP_ALLOW_PRIVATE_IPS: "1", NO_COLOR: "1", RUST_BACKTRACE: "0" },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
    const m = /serving MCP at (http:\/\/\S+)\/mcp/.exec(text);
    if (m) {
      (async () => {
        while (!(await reader.read()).done) { /* drain */ }
      })().catch(() => {});
      return { name, dir, base: m[1], mcp: `${m[1]}/mcp`, child };
    }
  }
  child.kill("SIGKILL");
  throw new Error(`${name}: the server did not start: ${text}`);
}

/** CPU time of a process's threads so far, in ms (Linux: their schedstat; 0 elsewhere). */
function cpuMs(pid: number): number {
  let ns = 0;
  try {
    for (const task of Deno.readDirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(
          Deno.readTextFileSync(`/proc/${pid}/task/${task.name}/schedstat`).split(" ")[0],
        );
      } catch { /* the thread ended */ }
    }
  } catch { /* no /proc */ }
  return ns / 1e6;
}

async function get(url: string): Promise<string> {
  const response = await fetch(url);
  const body = await response.text();
  if (!response.ok) throw new Error(`${response.status} for ${url}: ${body.slice(0, 300)}`);
  return body;
}

const page = await gunzipFile(`${shared}/fixtures/real/${values.page}.html.gz`);
const upstream = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  () => new Response(page as BodyInit, { headers: { "content-type": "text/html; charset=utf-8" } }),
);
const pageUrl = `http://127.0.0.1:${upstream.addr.port}/${values.page}.html`;

const servers: Server[] = [await startServer("this checkout", ROOT_DIR)];
if (values.baseline) {
  servers.push(await startServer("baseline", await Deno.realPath(values.baseline)));
}

type Kind = "section" | "search" | "question";
type Request = { kind: Kind; params: Record<string, string> };
type Table = Map<string, Record<Kind, number[]>>;

const rounds = Number(values.rounds);
const empty = (): Record<Kind, number[]> => ({ section: [], search: [], question: [] });
const times: Table = new Map(servers.map((s) => [s.name, empty()]));
const cpu: Table = new Map(servers.map((s) => [s.name, empty()]));
const mcpTimes: Table = new Map(servers.map((s) => [s.name, empty()]));
const closers: (() => Promise<void>)[] = [];
try {
  // Read the page and build its indexes on every server.
  for (const s of servers) {
    const api = (p: Record<string, string>) =>
      get(`${s.base}/api?${new URLSearchParams({ url: pageUrl, ...p })}`);
    await get(`${s.base}/api/sections?${new URLSearchParams({ url: pageUrl })}`);
    await api({ search: "warm" });
    await api({ query: "how is this warmed up?" });
  }
  // The outline, from this checkout: addresses and titles.
  const outline: { address: string; title: string }[] = [];
  for (let slice = 0;; slice++) {
    const o = JSON.parse(
      await get(
        `${servers[0].base}/api/sections?${new URLSearchParams({
          url: pageUrl,
          slice: String(slice),
          format: "json",
        })}`,
      ),
    ) as { sections: { address: string; title: string }[]; total_slices?: number };
    outline.push(...o.sections);
    if (slice + 1 >= (o.total_slices ?? 1)) break;
  }
  // Request sets: set 0 warms up, set r + 1 is round r's; no request is in two sets.
  const sets = rounds + 1;
  const requests: Request[][] = Array.from({ length: sets }, () => []);
  const stride = Math.floor(outline.length / SECTIONS);
  for (let set = 0; set < sets; set++) {
    for (let i = 0; i < SECTIONS; i++) {
      const at = (i * stride + set) % outline.length;
      requests[set].push({ kind: "section", params: { section: outline[at].address } });
    }
  }
  const searches = [
    ...new Set(
      outline.map((s) => {
        const words = [...new Set(s.title.toLowerCase().match(/[a-z]{5,}/g) ?? [])];
        return words.sort((a, b) => b.length - a.length || (a < b ? -1 : 1)).slice(0, 2).join(" ");
      }).filter((q) => q.includes(" ")),
    ),
  ];
  const searchStride = Math.max(1, Math.floor(searches.length / (SEARCHES * sets)));
  searches.filter((_, i) => i % searchStride === 0).slice(0, SEARCHES * sets).forEach((q, i) =>
    requests[i % sets].push({ kind: "search", params: { search: q } })
  );
  const questions: string[] = [];
  for (const set of ["dev", "heldout", "tune_specs"]) {
    const list = JSON.parse(
      await Deno.readTextFile(`${ROOT_DIR}/bench/questions/${set}.json`),
    ) as { page: string; question: string }[];
    questions.push(...list.filter((q) => q.page === `real:${values.page}`).map((q) => q.question));
  }
  questions.slice(0, QUESTIONS * sets).forEach((q, i) =>
    requests[i % sets].push({ kind: "question", params: { query: q } })
  );

  const call = async (s: Server, r: Request, timed: boolean) => {
    const c = cpuMs(s.child.pid);
    const t = performance.now();
    await get(`${s.base}/api?${new URLSearchParams({ url: pageUrl, ...r.params })}`);
    const wall = performance.now() - t;
    if (timed) {
      times.get(s.name)![r.kind].push(wall);
      cpu.get(s.name)![r.kind].push(cpuMs(s.child.pid) - c);
    }
  };
  // The MCP face: the SDK client over Streamable HTTP, one session per server.
  const clients = new Map<string, (r: Request, timed: boolean) => Promise<void>>();
  if (values.mcp) {
    const { Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
    for (const s of servers) {
      const client = new Client({ name: "followup-bench", version: "1" });
      await client.connect(new StreamableHTTPClientTransport(new URL(s.mcp)));
      closers.push(() => client.close());
      clients.set(s.name, async (r, timed) => {
        const args: Record<string, unknown> = { url: pageUrl, ...r.params };
        const t = performance.now();
        const out = await client.callTool({ name: "web_fetch_incisive", arguments: args });
        if (out.isError) throw new Error(JSON.stringify(out.content).slice(0, 300));
        if (timed) mcpTimes.get(s.name)![r.kind].push(performance.now() - t);
      });
    }
  }
  // The warm-up set, twice, on every server; the MCP face gets the same requests after the API.
  for (const s of servers) {
    for (let pass = 0; pass < 2; pass++) {
      for (const r of requests[0]) {
        await call(s, r, false);
        await clients.get(s.name)?.(r, false);
      }
    }
  }
  // An agent reads an answer before it asks again: the work a server does after answering (the
  // slices' counts after a search, lib/content/document/views.ts) has that long.
  await new Promise((resolve) => setTimeout(resolve, Number(values.settle) * 1000));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? servers : [...servers].reverse();
    for (const s of order) {
      for (const r of requests[round + 1]) await call(s, r, true);
    }
    // The MCP face asks the same requests after both servers answered them over the API.
    for (const s of order) {
      const mcp = clients.get(s.name);
      if (mcp) { for (const r of requests[round + 1]) await mcp(r, true); }
    }
  }
} finally {
  for (const close of closers) await close().catch(() => {});
  for (const s of servers) {
    s.child.kill("SIGTERM");
    await s.child.status;
  }
  await upstream.shutdown();
}

const at = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
};
const ms = (n: number) => n < 10 ? n.toFixed(2) : n.toFixed(1);
const load = Deno.loadavg().map((l) => l.toFixed(1)).join(" ");
console.log(
  `\nFollow-ups on cached ${values.page} (${values.rounds} rounds after ${values.settle} s, load ${load}, ${
    new Date().toISOString().slice(0, 16)
  }Z); ms, p50 / p95 / max\n`,
);
const faces: [string, Table][] = [["HTTP API", times], ["HTTP API, server CPU", cpu]];
if (values.mcp) faces.push(["MCP over HTTP", mcpTimes]);
const header = ["face", "kind", "n", ...servers.map((s) => s.name)];
if (servers.length > 1) header.push("p50 ratio", "p95 ratio");
console.log(`| ${header.join(" | ")} |`);
console.log(`| ${header.map(() => "---").join(" | ")} |`);
for (const [face, table] of faces) {
  for (const kind of ["section", "search", "question"] as Kind[]) {
    const cells = servers.map((s) => {
      const xs = table.get(s.name)![kind];
      return `${ms(at(xs, 0.5))} / ${ms(at(xs, 0.95))} / ${ms(Math.max(...xs))}`;
    });
    const row = [face, kind, String(table.get(servers[0].name)![kind].length), ...cells];
    if (servers.length > 1) {
      const [a, b] = [table.get(servers[0].name)![kind], table.get(servers[1].name)![kind]];
      row.push(
        `${(at(a, 0.5) / at(b, 0.5)).toFixed(2)}×`,
        `${(at(a, 0.95) / at(b, 0.95)).toFixed(2)}×`,
      );
    }
    console.log(`| ${row.join(" | ")} |`);
  }
}
