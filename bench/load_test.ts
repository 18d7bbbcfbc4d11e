/**
 * Load test of the HTTP API (`serve --http`, `GET /api`): a runnable script,
 * not a `deno bench` file (`deno bench` only collects `*_bench.ts`,
 * `*.bench.ts` and `bench.ts`, so `deno task bench` leaves it alone).
 *
 * ```sh
 * deno run -A --config deno.dev.json bench/load_test.ts [--duration 20] [--connections 50] [--slow-connections 10]
 * ```
 *
 * The script generates a few long HTML pages of its own (made-up text, 50 to
 * 500 KB, many headings and paragraphs, page furniture around the article)
 * and serves them from a local upstream on 127.0.0.1. It starts `main.ts
 * serve --http --port 0` as a child process with the start task's permission
 * flags (as the end-to-end tests do) and `MCP_ALLOW_PRIVATE_IPS=1`, so the
 * server may fetch from 127.0.0.1, warms the page cache with one GET per page
 * (each must be a miss), then the code with a few seconds of the cached mix
 * (not measured), and runs two phases:
 *
 * 1. **cached**: `--connections` closed-loop clients for `--duration` seconds
 *    on `/api?url=...` over the cached pages, with a mix of views (the whole
 *    page, the page cut by `max_tokens`, `query=` questions, `section=`,
 *    `search=`; some as `format=json`). Every answer must be a 200 with
 *    `X-Cache: hit`.
 * 2. **slow upstream**: the same cached load while `--slow-connections`
 *    other clients ask for pages that are not cached (`?n=<i>`, a new URL
 *    each time) from a second upstream that waits 3 to 5 s before it
 *    answers. The cached requests' latency is compared with phase 1: a
 *    cached request that waited behind a slow fetch would take at least the
 *    slowest upstream's delay floor (3 s).
 *
 * It prints a Markdown table (requests, throughput, errors, non-2xx, cache
 * misses, latency p50/p90/p99/max, the server's RSS sampled from /proc during
 * each phase and its peak VmHWM at the end) and a final line with the key
 * ratios. It exits 1 when any request failed, any cached request missed the
 * cache, or the server logged an error.
 *
 * Load generator: autocannon (npm), through its programmatic API. It runs
 * under Deno through the Node compatibility layer (it speaks HTTP/1.1 with
 * keep-alive over `node:net` and parses with http-parser-js), and it runs two
 * instances side by side in one process, which phase 2 needs. Latencies are
 * its HDR histograms of 2xx answers, in whole milliseconds.
 *
 * Caveat: on the 2-core development machine the load generator, the two
 * upstreams and the server share the CPU, so the throughput is a lower bound
 * on the server's and the latencies include the client's own queueing. The
 * report says how the CPU was shared in each phase (server, this process,
 * other processes, from /proc), since other work on a shared machine moves
 * the figures between runs.
 *
 * The file name ends in `_test.ts`, which a bare `deno test` would collect;
 * everything runs under `import.meta.main`, so such a run loads it and finds
 * no test. `deno task test` only looks in tests/.
 *
 * @module
 */
import autocannonUntyped from "autocannon";
import { parseArgs } from "node:util";
import { childEnv, launch, MAIN } from "../tests/support/process.ts";

// ---------------------------------------------------------------------------
// autocannon: the part of its API used here (the package ships no types).

interface AutocannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  setupRequest?: (
    request: AutocannonRequest,
    context: Record<string, unknown>,
  ) => AutocannonRequest;
  onResponse?: (
    status: number,
    body: string,
    context: Record<string, unknown>,
    headers: Record<string, string>,
  ) => void;
}

interface AutocannonOptions {
  url: string;
  connections: number;
  duration: number;
  timeout?: number;
  requests: AutocannonRequest[];
}

interface Histogram {
  average: number;
  min: number;
  max: number;
  p50: number;
  p90: number;
  p99: number;
  total: number;
}

interface AutocannonResult {
  duration: number;
  latency: Histogram;
  requests: Histogram;
  throughput: Histogram;
  errors: number;
  timeouts: number;
  non2xx: number;
  resets: number;
  "2xx": number;
}

const autocannon = autocannonUntyped as (options: AutocannonOptions) => Promise<AutocannonResult>;

// ---------------------------------------------------------------------------
// Settings

interface Settings {
  durationS: number;
  connections: number;
  slowConnections: number;
}

/** Settings from the command line; a bad value ends the script with exit code 2. */
function settings(args: string[]): Settings {
  const { values } = parseArgs({
    args,
    options: {
      duration: { type: "string", default: "20" },
      connections: { type: "string", default: "50" },
      "slow-connections": { type: "string", default: "10" },
    },
  });
  const positive = (name: string, raw: string | undefined): number => {
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 1) {
      console.error(`--${name} must be a whole number of at least 1 (got ${raw})`);
      Deno.exit(2);
    }
    return value;
  };
  return {
    durationS: positive("duration", values.duration),
    connections: positive("connections", values.connections),
    slowConnections: positive("slow-connections", values["slow-connections"]),
  };
}

/** The slow upstream answers after a delay drawn from this range. */
const SLOW_DELAY_MS = { min: 3000, max: 5000 };

// ---------------------------------------------------------------------------
// Generated pages (made-up text, deterministic)

/** mulberry32: a small seeded generator, so every run serves the same pages. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Topic {
  slug: string;
  title: string;
  /** Target size of the HTML in bytes. */
  bytes: number;
  nouns: string[];
  verbs: string[];
  adjectives: string[];
  /** Whether sections carry code samples and tables (documentation). */
  technical: boolean;
}

const COMMON_NOUNS = [
  "system",
  "change",
  "record",
  "report",
  "team",
  "season",
  "area",
  "level",
  "process",
  "result",
  "measure",
  "question",
  "schedule",
  "limit",
  "pattern",
  "reason",
];
const COMMON_VERBS = [
  "affects",
  "requires",
  "explains",
  "reduces",
  "follows",
  "shows",
  "supports",
  "changes",
  "describes",
  "limits",
];
const COMMON_ADJECTIVES = [
  "early",
  "careful",
  "common",
  "recent",
  "larger",
  "separate",
  "gradual",
  "typical",
  "useful",
  "steady",
];
const CONNECTIVES = [
  "In practice",
  "As a rule",
  "For this reason",
  "Over time",
  "In most cases",
  "By contrast",
  "At the same time",
  "Even so",
];
const PREPOSITIONS = ["with", "before", "after", "during", "across", "without", "under", "beside"];

const TOPICS: Topic[] = [
  {
    slug: "tidewater-handbook",
    title: "Tidewater storage engine: the operator's handbook",
    bytes: 460_000,
    technical: true,
    nouns: [
      "compaction",
      "segment",
      "write buffer",
      "checkpoint",
      "replica",
      "snapshot",
      "index page",
      "journal",
      "bloom filter",
      "tombstone",
      "shard",
      "cold tier",
      "read path",
      "block cache",
      "manifest",
      "lease",
    ],
    verbs: ["flushes", "merges", "replicates", "evicts", "rebuilds", "verifies", "throttles"],
    adjectives: ["durable", "stale", "sorted", "compressed", "pending", "idle", "hot"],
  },
  {
    slug: "estuary-birds",
    title: "Birds of the northern estuaries: a field guide",
    bytes: 230_000,
    technical: false,
    nouns: [
      "curlew",
      "godwit",
      "oystercatcher",
      "mudflat",
      "salt marsh",
      "high tide",
      "roost",
      "plumage",
      "migration",
      "wader",
      "reed bed",
      "nesting site",
      "flock",
      "spring passage",
    ],
    verbs: ["feeds on", "gathers at", "leaves", "returns to", "shelters in", "crosses"],
    adjectives: ["speckled", "wintering", "juvenile", "coastal", "brackish", "migrant"],
  },
  {
    slug: "harbour-water-report",
    title: "Harbour town council: annual report on the water supply",
    bytes: 130_000,
    technical: false,
    nouns: [
      "reservoir",
      "pumping station",
      "water main",
      "meter",
      "tariff",
      "leak",
      "treatment works",
      "catchment",
      "drought order",
      "household",
      "budget",
      "pipe renewal",
    ],
    verbs: ["supplies", "funds", "repairs", "monitors", "restricts", "inspects"],
    adjectives: ["municipal", "metered", "seasonal", "ageing", "rural", "annual"],
  },
  {
    slug: "lantern-release-notes",
    title: "Lantern build tool: release notes",
    bytes: 65_000,
    technical: true,
    nouns: [
      "build graph",
      "task runner",
      "cache key",
      "plugin",
      "watch mode",
      "lockfile",
      "target",
      "sandbox",
      "remote cache",
      "config file",
    ],
    verbs: ["resolves", "skips", "invalidates", "schedules", "reports", "retries"],
    adjectives: ["incremental", "parallel", "deprecated", "hermetic", "verbose", "default"],
  },
];

/** The slow upstream's page: a mid-sized article, served under a new URL each time. */
const SLOW_TOPIC: Topic = {
  slug: "ferry-timetable-history",
  title: "A history of the island ferry timetable",
  bytes: 80_000,
  technical: false,
  nouns: [
    "ferry",
    "timetable",
    "crossing",
    "harbour master",
    "winter service",
    "slipway",
    "passenger",
    "steamer",
    "landing stage",
    "fare",
  ],
  verbs: ["sails from", "calls at", "replaces", "delays", "carries", "serves"],
  adjectives: ["weekly", "overnight", "crowded", "sheltered", "foggy", "summer"],
};

/** A generated page and what the load mix may ask of it. */
interface Page {
  topic: Topic;
  html: string;
  /** Heading texts, for `section=`. */
  headings: string[];
  /** `query=` questions built from its own words. */
  questions: string[];
  /** `search=` expressions built from its own words. */
  searches: string[];
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function generatePage(topic: Topic, seed: number): Page {
  const rand = prng(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)];
  const nouns = [...topic.nouns, ...COMMON_NOUNS];
  const noun = () => rand() < 0.6 ? pick(topic.nouns) : pick(nouns);
  const verb = () => rand() < 0.6 ? pick(topic.verbs) : pick(COMMON_VERBS);
  const adjective = () => rand() < 0.5 ? pick(topic.adjectives) : pick(COMMON_ADJECTIVES);

  const sentence = (focus?: string): string => {
    const subject = focus ?? noun();
    const forms = [
      () =>
        `The ${adjective()} ${subject} ${verb()} the ${noun()} ${pick(PREPOSITIONS)} a ${noun()}`,
      () => `${pick(CONNECTIVES)}, each ${subject} ${verb()} the ${adjective()} ${noun()}`,
      () =>
        `A ${adjective()} ${noun()} ${verb()} the ${subject} when the ${noun()} is ${adjective()}`,
      () =>
        `Most readers ask how the ${subject} ${verb()} the ${noun()}, and the answer depends on the ${noun()}`,
      () =>
        `Every ${noun()} ${verb()} its ${subject} ${
          pick(PREPOSITIONS)
        } the ${adjective()} ${noun()}`,
      () =>
        `The ${subject} rarely ${verb()} a ${adjective()} ${noun()}, which keeps the ${noun()} ${adjective()}`,
    ];
    return capitalise(pick(forms)()) + ".";
  };
  const paragraph = (focus: string): string => {
    const n = 3 + Math.floor(rand() * 5);
    const parts: string[] = [];
    for (let i = 0; i < n; i++) parts.push(sentence(rand() < 0.4 ? focus : undefined));
    return `<p>${escapeHtml(parts.join(" "))}</p>`;
  };

  const headings: string[] = [];
  const questions: string[] = [];
  const searches: string[] = [];
  const used = new Set<string>();
  const heading = (n: number): string => {
    for (let attempt = 0; attempt < 20; attempt++) {
      const forms = [
        () => `${capitalise(adjective())} ${noun()}s and the ${noun()}`,
        () => `How the ${noun()} ${verb()} the ${noun()}`,
        () => `${capitalise(noun())} ${pick(PREPOSITIONS)} a ${adjective()} ${noun()}`,
        () => `Notes on the ${adjective()} ${noun()}`,
      ];
      const text = pick(forms)();
      if (!used.has(text)) {
        used.add(text);
        return text;
      }
    }
    const text = `Part ${n}: the ${noun()}`;
    used.add(text);
    return text;
  };

  const body: string[] = [];
  let chapter = 0;
  const articleBytes = () => body.reduce((sum, s) => sum + s.length + 1, 0);
  const furnitureBytes = 6000;
  while (articleBytes() + furnitureBytes < topic.bytes) {
    chapter++;
    const focus = noun();
    const title = `${chapter}. ${heading(chapter)}`;
    headings.push(title);
    const id = rand() < 0.5 ? ` id="ch-${chapter}"` : "";
    body.push(`<section><h2${id}>${escapeHtml(title)}</h2>`);
    for (let i = 0, n = 2 + Math.floor(rand() * 3); i < n; i++) body.push(paragraph(focus));
    const subsections = 1 + Math.floor(rand() * 4);
    for (let s = 1; s <= subsections; s++) {
      const sub = `${chapter}.${s} ${heading(chapter * 10 + s)}`;
      headings.push(sub);
      const subFocus = noun();
      body.push(`<h3>${escapeHtml(sub)}</h3>`);
      for (let i = 0, n = 1 + Math.floor(rand() * 4); i < n; i++) body.push(paragraph(subFocus));
      if (topic.technical && rand() < 0.35) {
        const name = subFocus.replace(/\s+/g, "_");
        body.push(
          `<pre><code>${
            escapeHtml(
              `[${name}]\nenabled = true\nlimit = ${Math.floor(rand() * 900) + 100}\n` +
                `mode = "${adjective()}"\n# ${sentence(subFocus)}\n`,
            )
          }</code></pre>`,
        );
      }
      if (rand() < 0.3) {
        const rows = Array.from(
          { length: 4 + Math.floor(rand() * 6) },
          () =>
            `<tr><td>${escapeHtml(capitalise(noun()))}</td><td>${
              Math.floor(rand() * 1000)
            }</td><td>${escapeHtml(adjective())}</td></tr>`,
        ).join("");
        body.push(
          `<table><thead><tr><th>Item</th><th>Count</th><th>State</th></tr></thead><tbody>${rows}</tbody></table>`,
        );
      }
      if (rand() < 0.25) {
        const items = Array.from(
          { length: 3 + Math.floor(rand() * 4) },
          () => `<li>${escapeHtml(sentence())}</li>`,
        ).join("");
        body.push(`<ul>${items}</ul>`);
      }
      if (questions.length < 12 && rand() < 0.5) {
        questions.push(`how does the ${subFocus} ${pick(topic.verbs)} the ${noun()}`);
      }
    }
    body.push(`</section>`);
    if (searches.length < 12 && rand() < 0.5) {
      const forms = [
        () => focus,
        () => `${pick(topic.nouns)} ${pick(topic.nouns)}`,
        () => `+${pick(topic.nouns).split(" ")[0]} -${pick(COMMON_NOUNS)}`,
        () => `"${adjective()} ${noun()}"`,
        () => `(${pick(topic.nouns)} OR ${pick(topic.nouns)}) ${pick(topic.adjectives)}`,
      ];
      searches.push(pick(forms)());
    }
  }
  questions.push(`what is the ${pick(topic.nouns)}`, `why is the ${noun()} ${adjective()}`);

  const link = (text: string, href: string) => `<a href="${href}">${escapeHtml(text)}</a>`;
  const nav = Array.from(
    { length: 24 },
    (_, i) => `<li>${link(capitalise(pick(nouns)), `/section/${i}`)}</li>`,
  ).join("");
  const footer = ["About", "Contact", "Privacy", "Terms", "Accessibility", "Archive"]
    .map((text) => `<li>${link(text, `/${text.toLowerCase()}`)}</li>`).join("");
  const related = Array.from(
    { length: 8 },
    (_, i) =>
      `<div class="related-card">${
        link(`${capitalise(adjective())} ${noun()}`, `/related/${i}`)
      }<p>${escapeHtml(sentence())}</p></div>`,
  ).join("");
  const html = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(topic.title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/static/site.css"><script src="/static/site.js" defer></script></head>
<body><div class="cookie-banner">We use cookies to remember your settings. <button>Accept</button></div>
<header class="site-header"><a class="logo" href="/">Home</a><nav class="main-nav"><ul>${nav}</ul></nav>
<form class="search" action="/search"><input name="q" placeholder="Search"></form></header>
<main><article><h1>${escapeHtml(topic.title)}</h1>
<p class="byline">Updated in the spring edition. ${escapeHtml(sentence())}</p>
${body.join("\n")}
</article>
<aside class="sidebar related"><h2>Related reading</h2>${related}</aside></main>
<footer class="site-footer"><p>${
    escapeHtml(sentence())
  }</p><ul>${footer}</ul><p>Made-up text generated for a load test.</p></footer></body></html>`;
  return { topic, html, headings, questions, searches };
}

// ---------------------------------------------------------------------------
// Upstreams

interface Upstream {
  origin: string;
  server: Deno.HttpServer<Deno.NetAddr>;
}

function serveUpstream(handler: (request: Request) => Response | Promise<Response>): Upstream {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handler);
  return { origin: `http://127.0.0.1:${server.addr.port}`, server };
}

const HTML_HEADERS = { "content-type": "text/html; charset=utf-8" };

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// ---------------------------------------------------------------------------
// The server under test

interface ServerUnderTest {
  api: string;
  pid: number;
  child: Deno.ChildProcess;
  /** stderr lines at warn or error level, and the count of error lines. */
  problems: string[];
  errorLines: () => number;
}

async function startServer(): Promise<ServerUnderTest> {
  const { command, args } = launch(MAIN, ["serve", "--http", "--port", "0"]);
  const env = Object.fromEntries(
    Object.entries(childEnv({ MCP_ALLOW_PRIVATE_IPS: "1" })).filter(([, v]) => v !== ""),
  );
  const child = new Deno.Command(command, {
    args,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  const problems: string[] = [];
  let errors = 0;
  let text = "";
  const deadline = Date.now() + 30_000;
  let api: string | undefined;
  while (api === undefined && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
    api = /HTTP API at (http:\/\/\S+\/api)/.exec(text)?.[1];
  }
  if (api === undefined) {
    child.kill("SIGKILL");
    await child.status;
    throw new Error(`the server did not start:\n${text}`);
  }
  // Keep reading stderr (a full pipe would block the server) and keep its complaints.
  (async () => {
    let rest = "";
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      rest += value;
      let nl: number;
      while ((nl = rest.indexOf("\n")) >= 0) {
        const line = rest.slice(0, nl);
        rest = rest.slice(nl + 1);
        if (/\] (warn|error):/.test(line)) {
          if (/\] error:/.test(line)) errors++;
          if (problems.length < 20) problems.push(line.slice(0, 300));
        }
      }
    }
  })().catch(() => {});
  return { api, pid: child.pid, child, problems, errorLines: () => errors };
}

function procStatus(pid: number, field: "VmRSS" | "VmHWM"): number | undefined {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status);
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat. */
function cpuSeconds(pid: number | "self"): number {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}

/** USER_HZ: 100 on Linux everywhere this runs. */
const CLOCK_TICKS = 100;

/** Busy and total CPU seconds of the whole machine, from /proc/stat. */
function machineSeconds(): { busy: number; total: number } {
  try {
    const line = Deno.readTextFileSync("/proc/stat").split("\n")[0];
    // cpu user nice system idle iowait irq softirq steal ...
    const v = line.trim().split(/\s+/).slice(1, 9).map(Number);
    const idle = v[3] + v[4];
    const total = v.reduce((a, b) => a + b, 0);
    return { busy: (total - idle) / CLOCK_TICKS, total: total / CLOCK_TICKS };
  } catch {
    return { busy: NaN, total: NaN };
  }
}

/** CPU used between start and stop, in % of one core. */
interface CpuUse {
  /** The server process. */
  server: number;
  /** This process: autocannon and the two upstreams. */
  self: number;
  /** Everything else on the machine (other work on a shared machine). */
  other: number;
}

/** Measures {@link CpuUse} from now until `stop`. */
function cpuMeter(pid: number): { stop: () => CpuUse } {
  const t = performance.now();
  const server = cpuSeconds(pid);
  const self = cpuSeconds("self");
  const machine = machineSeconds();
  return {
    stop() {
      const wall = (performance.now() - t) / 1000;
      const pct = (used: number) => Math.max(0, Math.round((used / wall) * 100));
      const s = cpuSeconds(pid) - server;
      const me = cpuSeconds("self") - self;
      const busy = machineSeconds().busy - machine.busy;
      return { server: pct(s), self: pct(me), other: pct(busy - s - me) };
    },
  };
}

/** Samples the server's VmRSS every 250 ms until stopped; resolves to the largest sample. */
function sampleRss(pid: number): { stop: () => { max: number; last: number; samples: number } } {
  let max = 0;
  let last = 0;
  let samples = 0;
  const take = () => {
    const rss = procStatus(pid, "VmRSS");
    if (rss === undefined) return;
    samples++;
    last = rss;
    if (rss > max) max = rss;
  };
  take();
  const timer = setInterval(take, 250);
  return {
    stop() {
      clearInterval(timer);
      take();
      return { max, last, samples };
    },
  };
}

// ---------------------------------------------------------------------------
// The load

type ViewKind = "page" | "page max_tokens" | "query" | "section" | "search";

/** Weights of the views in the cached mix. */
const MIX: [ViewKind, number][] = [
  ["page", 0.15],
  ["page max_tokens", 0.15],
  ["query", 0.25],
  ["section", 0.25],
  ["search", 0.2],
];

interface Tally {
  byView: Record<string, number>;
  notHit: number;
  badStatus: number;
  emptyBody: number;
}

/** autocannon request templates for the cached mix over `pages` at `urls`. */
function cachedRequests(pages: Page[], urls: string[], seed: number, tally: Tally) {
  const rand = prng(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)];
  const viewOf = (): ViewKind => {
    let r = rand();
    for (const [kind, weight] of MIX) {
      if ((r -= weight) < 0) return kind;
    }
    return "page";
  };
  const request: AutocannonRequest = {
    method: "GET",
    setupRequest(req, context) {
      const i = Math.floor(rand() * pages.length);
      const page = pages[i];
      const params = new URLSearchParams({ url: urls[i] });
      const kind = viewOf();
      switch (kind) {
        case "page":
          break;
        case "page max_tokens":
          params.set("max_tokens", String(pick([2000, 5000, 8000])));
          break;
        case "query":
          params.set("query", pick(page.questions));
          break;
        case "section":
          params.append("section", pick(page.headings));
          if (rand() < 0.3) params.append("section", pick(page.headings));
          break;
        case "search":
          params.set("search", pick(page.searches));
          break;
      }
      if (rand() < 0.15) params.set("format", "json");
      else if (rand() < 0.1) params.set("frontmatter", "true");
      context.view = kind;
      return { ...req, path: `/api?${params}` };
    },
    onResponse(status, body, context, headers) {
      const view = String(context.view);
      tally.byView[view] = (tally.byView[view] ?? 0) + 1;
      if (status !== 200) tally.badStatus++;
      else if (headers["x-cache"] !== "hit") tally.notHit++;
      // A search may match nothing (an empty 200); every other view has text.
      if (status === 200 && body.length === 0 && view !== "search") tally.emptyBody++;
    },
  };
  return [request];
}

function newTally(): Tally {
  return { byView: {}, notHit: 0, badStatus: 0, emptyBody: 0 };
}

// ---------------------------------------------------------------------------
// Reporting

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const ms = (value: number) => `${Math.round(value).toLocaleString("en-US")} ms`;

interface Row {
  name: string;
  result: AutocannonResult;
  misses: number | "n/a";
  rss: string;
}

function table(rows: Row[]): string {
  const head = [
    "load",
    "requests",
    "req/s",
    "errors",
    "non-2xx",
    "cache misses",
    "p50",
    "p90",
    "p99",
    "max",
    "server RSS (sampled max)",
  ];
  const lines = [
    `| ${head.join(" | ")} |`,
    `| ${head.map((_, i) => (i === 0 ? "---" : "---:")).join(" | ")} |`,
  ];
  for (const { name, result: r, misses, rss } of rows) {
    const cells = [
      name,
      r.requests.total.toLocaleString("en-US"),
      (r.requests.total / r.duration).toFixed(1),
      String(r.errors),
      String(r.non2xx),
      String(misses),
      ms(r.latency.p50),
      ms(r.latency.p90),
      ms(r.latency.p99),
      ms(r.latency.max),
      rss,
    ];
    lines.push(`| ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}

// ---------------------------------------------------------------------------
// Main

async function main(): Promise<number> {
  const { durationS, connections, slowConnections } = settings(Deno.args);
  const t0 = performance.now();
  const pages = TOPICS.map((topic, i) => generatePage(topic, 1000 + i));
  const slowPage = generatePage(SLOW_TOPIC, 2000);
  const byPath = new Map(pages.map((p) => [`/docs/${p.topic.slug}.html`, p]));

  let upstreamHits = 0;
  const fast = serveUpstream((request) => {
    const page = byPath.get(new URL(request.url).pathname);
    if (!page) return new Response("not found", { status: 404 });
    upstreamHits++;
    return new Response(page.html, { headers: HTML_HEADERS });
  });
  const slowDelay = prng(3000);
  let slowServed = 0;
  const slow = serveUpstream(async () => {
    const delay = SLOW_DELAY_MS.min + slowDelay() * (SLOW_DELAY_MS.max - SLOW_DELAY_MS.min);
    // request.signal is left alone: Deno.serve warns about its legacy abort-on-success.
    await sleep(delay);
    slowServed++;
    return new Response(slowPage.html, { headers: HTML_HEADERS });
  });

  const server = await startServer();
  const apiUrl = new URL(server.api);
  const base = apiUrl.origin;
  const urls = pages.map((p) => `${fast.origin}/docs/${p.topic.slug}.html`);
  const cores = navigator.hardwareConcurrency;

  console.log(`# Load test of GET /api (serve --http)\n`);
  console.log(
    `Machine: ${cores} cores, shared: autocannon, the two upstreams and the server all run on them, ` +
      `so req/s is a lower bound and latencies include the load generator's own queueing.`,
  );
  console.log(
    `Pages (generated): ${
      pages.map((p) =>
        `${p.topic.slug} ${(p.html.length / 1024).toFixed(0)} KB, ${p.headings.length} headings`
      )
        .join("; ")
    }; slow page ${(slowPage.html.length / 1024).toFixed(0)} KB after a ${
      SLOW_DELAY_MS.min / 1000
    }–${SLOW_DELAY_MS.max / 1000} s delay.`,
  );
  console.log(
    `Load: ${connections} closed-loop keep-alive connections for ${durationS} s per phase; ` +
      `${slowConnections} slow-upstream connections in phase 2. View mix: ${
        MIX.map(([k, w]) => `${k} ${Math.round(w * 100)} %`).join(", ")
      } (15 % as format=json).\n`,
  );

  let failed = false;
  try {
    // Warm-up: one GET per page fills the cache (a miss each), then one request per view.
    const rssBefore = procStatus(server.pid, "VmRSS") ?? 0;
    const firstFetch: string[] = [];
    for (const [i, url] of urls.entries()) {
      const t = performance.now();
      const response = await fetch(`${base}/api?${new URLSearchParams({ url })}`);
      const text = await response.text();
      if (response.status !== 200 || response.headers.get("x-cache") !== "miss" || !text) {
        throw new Error(
          `warm-up of ${url} answered ${response.status} (x-cache ${
            response.headers.get("x-cache")
          }): ${text.slice(0, 300)}`,
        );
      }
      firstFetch.push(`${pages[i].topic.slug} ${ms(performance.now() - t)}`);
    }
    for (const [i, url] of urls.entries()) {
      const page = pages[i];
      const extras: Record<string, string>[] = [
        { query: page.questions[0] },
        { section: page.headings[0] },
        { search: page.searches[0] },
        { max_tokens: "2000" },
      ];
      for (const extra of extras) {
        const response = await fetch(`${base}/api?${new URLSearchParams({ url, ...extra })}`);
        await response.body?.cancel();
        if (response.status !== 200) {
          throw new Error(`warm-up view ${JSON.stringify(extra)} on ${url}: ${response.status}`);
        }
      }
    }
    // A few seconds of the cached mix, not measured, so both phases meet warm code.
    const warmS = Math.min(5, durationS);
    const warmTally = newTally();
    const warm = await autocannon({
      url: base,
      connections,
      duration: warmS,
      requests: cachedRequests(pages, urls, 7, warmTally),
    });
    if (warm.errors || warm.non2xx || warmTally.notHit) {
      throw new Error(
        `warm-up load failed: ${warm.errors} errors, ${warm.non2xx} non-2xx, ${warmTally.notHit} misses`,
      );
    }
    const rssWarm = procStatus(server.pid, "VmRSS") ?? 0;
    console.log(
      `Warm-up: first (uncached) fetch and conversion: ${firstFetch.join(", ")}; then ` +
        `${warmS} s of the cached mix, not measured. Server RSS ${mb(rssBefore)} idle, ` +
        `${mb(rssWarm)} after warm-up.\n`,
    );

    // Phase 1: cached only.
    const tally1 = newTally();
    const rss1 = sampleRss(server.pid);
    const cpu1 = cpuMeter(server.pid);
    const phase1 = await autocannon({
      url: base,
      connections,
      duration: durationS,
      requests: cachedRequests(pages, urls, 11, tally1),
    });
    const mem1 = rss1.stop();
    const used1 = cpu1.stop();

    // Phase 2: the same cached load, with slow uncached fetches beside it.
    const tally2 = newTally();
    let slowN = 0;
    let slowBad = 0;
    let slowCached = 0;
    const rss2 = sampleRss(server.pid);
    const cpu2 = cpuMeter(server.pid);
    const [phase2, slowResult] = await Promise.all([
      autocannon({
        url: base,
        connections,
        duration: durationS,
        requests: cachedRequests(pages, urls, 22, tally2),
      }),
      autocannon({
        url: base,
        connections: slowConnections,
        duration: durationS,
        timeout: 30,
        requests: [{
          method: "GET",
          setupRequest: (req) => ({
            ...req,
            path: `/api?${new URLSearchParams({
              url: `${slow.origin}/articles/${SLOW_TOPIC.slug}.html?n=${slowN++}`,
            })}`,
          }),
          onResponse(status, _body, _context, headers) {
            if (status !== 200) slowBad++;
            else if (headers["x-cache"] !== "miss") slowCached++;
          },
        }],
      }),
    ]);
    const mem2 = rss2.stop();
    const used2 = cpu2.stop();
    // Let the abandoned slow requests (cut at the end of the phase) settle.
    await sleep(500);
    const peak = procStatus(server.pid, "VmHWM") ?? 0;
    const rssEnd = procStatus(server.pid, "VmRSS") ?? 0;

    console.log("## Results\n");
    console.log(table([
      {
        name: "1. cached only",
        result: phase1,
        misses: tally1.notHit,
        rss: `${mb(mem1.max)} (${mem1.samples} samples)`,
      },
      {
        name: "2. cached, beside slow upstream",
        result: phase2,
        misses: tally2.notHit,
        rss: `${mb(mem2.max)} (${mem2.samples} samples)`,
      },
      {
        name: "2. slow upstream, uncached",
        result: slowResult,
        misses: "n/a",
        rss: "(same process)",
      },
    ]));
    console.log();
    const views = (t: Tally) =>
      Object.entries(t.byView).map(([k, v]) => `${k} ${v.toLocaleString("en-US")}`).join(", ");
    console.log(`- Views answered, phase 1: ${views(tally1)}.`);
    console.log(`- Views answered, phase 2: ${views(tally2)}.`);
    console.log(
      `- Slow upstream: ${slowResult.requests.total} answered of ${slowN} started (the rest were cut ` +
        `at the end of the phase), ${slowServed} pages served by the slow upstream; the fast ` +
        `upstream served ${upstreamHits} pages in all (${pages.length} expected: one per page).`,
    );
    console.log(
      `- CPU in % of one core (${cores} cores = ${cores * 100} %): ` +
        `phase 1 server ${used1.server} %, load generator and upstreams ${used1.self} %, ` +
        `other processes ${used1.other} %; phase 2 server ${used2.server} %, ` +
        `load generator and upstreams ${used2.self} %, other processes ${used2.other} %.`,
    );
    console.log(
      `- Server memory: RSS ${mb(rssWarm)} after warm-up, ${mb(mem1.max)} max in phase 1, ` +
        `${mb(mem2.max)} max in phase 2, ${mb(rssEnd)} at the end; peak (VmHWM) ${mb(peak)}.`,
    );
    if (server.problems.length > 0) {
      console.log(
        `- Server warnings/errors on stderr:\n${server.problems.map((l) => `  - ${l}`).join("\n")}`,
      );
    }

    const problems: string[] = [];
    for (
      const [name, r, t] of [["phase 1", phase1, tally1], ["phase 2", phase2, tally2]] as const
    ) {
      if (r.errors || r.timeouts || r.non2xx) {
        problems.push(`${name}: ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx`);
      }
      if (t.notHit) problems.push(`${name}: ${t.notHit} cached requests were not cache hits`);
      if (t.emptyBody) problems.push(`${name}: ${t.emptyBody} empty answers`);
    }
    if (slowResult.errors || slowResult.non2xx || slowBad) {
      problems.push(
        `slow: ${slowResult.errors} errors (${slowResult.timeouts} timeouts), ${slowResult.non2xx} non-2xx`,
      );
    }
    if (slowCached) problems.push(`slow: ${slowCached} answers came from the cache`);
    if (upstreamHits !== pages.length) {
      problems.push(`the fast upstream served ${upstreamHits} pages, not ${pages.length}`);
    }
    if (server.errorLines() > 0) problems.push(`the server logged ${server.errorLines()} errors`);
    if (problems.length > 0) {
      failed = true;
      console.log(`\nFAILED:\n${problems.map((p) => `- ${p}`).join("\n")}`);
    }

    const p99Ratio = phase2.latency.p99 / Math.max(1, phase1.latency.p99);
    const p50Ratio = phase2.latency.p50 / Math.max(1, phase1.latency.p50);
    const rpsRatio = (phase2.requests.total / phase2.duration) /
      (phase1.requests.total / phase1.duration);
    const waited = phase2.latency.max >= SLOW_DELAY_MS.min;
    console.log(
      `\nKey ratios: cached p99 with slow upstream / without = ${p99Ratio.toFixed(2)}× ` +
        `(${ms(phase2.latency.p99)} / ${ms(phase1.latency.p99)}), p50 ${p50Ratio.toFixed(2)}×, ` +
        `cached req/s ${rpsRatio.toFixed(2)}×; slowest cached request ${
          ms(phase2.latency.max)
        } vs ` +
        `the slow upstream's ${ms(SLOW_DELAY_MS.min)} floor: ${
          waited
            ? "a cached request may have waited behind a slow fetch"
            : "no cached request waited behind a slow fetch"
        }; total run ${((performance.now() - t0) / 1000).toFixed(0)} s.`,
    );
  } finally {
    try {
      server.child.kill("SIGTERM");
    } catch { /* gone */ }
    const status = await server.child.status;
    if (status.code !== 0 && status.signal !== "SIGTERM") {
      console.log(`The server exited with code ${status.code}.`);
    }
    await fast.server.shutdown();
    await slow.server.shutdown();
  }
  return failed ? 1 : 0;
}

if (import.meta.main) Deno.exit(await main());
