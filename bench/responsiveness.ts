/**
 * Responsiveness while a large page converts: a runnable script (not a
 * `deno bench` file), comparing the server with large pages converted on the
 * main thread (the baseline: what every build did before the worker pool) with the same server converting
 * them in workers.
 *
 * ```sh
 * PARKOUR_SHARED_DIR=/work/shared deno run -A --config deno.dev.json bench/responsiveness.ts [--mode both|thread|worker] [--pings 60] [--rounds 5]
 * ```
 *
 * It serves the WHATWG HTML standard (15.6 MB) and PEP 8 (122 KB) from the
 * shared real captures on a local upstream, starts `main.ts serve --http`
 * with the start task's flags (which read the checkout, so workers load;
 * the thread mode sets `PARKOUR_CONVERT_WORKERS=0`, which keeps every page
 * on the main thread) and drives it with the SDK
 * v2 client in the 2025 era over HTTP. For each mode:
 *
 * 1. **idle**: `ping` round trips, and the outline (`web_fetch_sections`) of
 *    PEP 8 under a new URL each time (a cache miss: fetch and conversion);
 * 2. **ping under load**: pings every 20 ms while the outline of WHATWG is
 *    being made (from the moment its last byte left the upstream until the
 *    call answers), over `--rounds` conversions (5: about 250 pings, so the
 *    p99 is not the one slowest ping of one conversion);
 * 3. **small page under load**: PEP 8 outlines one after the other during a
 *    WHATWG conversion;
 * 4. **cancel**: once the server has used no CPU for 300 ms (the page of
 *    step 3 goes on building its indexes in the worker for a second or two
 *    after its answer, which is not the cancelled call's work), a WHATWG
 *    call cancelled by the client (its AbortSignal:
 *    the SDK sends `notifications/cancelled`) 300 ms after the last byte
 *    of the page left the upstream, early in the conversion;
 *    the time from the cancel to the server's last CPU tick (all its
 *    threads, from /proc, 10 ms ticks) before 150 ms without any, and
 *    whether a result still arrived.
 *
 * It prints a Markdown table with the medians and p99s and the ratios to
 * the idle figures, beside the goals (ping p99 <= 50 ms, small page <= 1.5x
 * idle, cancel frees the CPU within 200 ms). On the shared 2-core machine
 * the figures move with other work; the ratios between the modes are what
 * to read.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { HttpServerProcess, MAIN, ROOT_DIR } from "../tests/support/process.ts";
import { realPageHtml, sharedDir } from "../tests/support/shared.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    mode: { type: "string", default: "both" },
    pings: { type: "string", default: "60" },
    small: { type: "string", default: "5" },
    rounds: { type: "string", default: "5" },
  },
});
if (!sharedDir()) {
  console.error("set PARKOUR_SHARED_DIR to the shared folder (the WHATWG capture is there)");
  Deno.exit(2);
}
const PINGS = Number(values.pings);
const SMALL = Number(values.small);
const ROUNDS = Number(values.rounds);

const big = new TextEncoder().encode(await realPageHtml("whatwg_html"));
const small = new TextEncoder().encode(await realPageHtml("pep_8"));
/** Resolvers waiting for the end of a big body. */
const sent = new Map<string, () => void>();

const upstream = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
  const url = new URL(req.url);
  const page = url.pathname === "/big" ? big : small;
  const key = url.searchParams.get("n") ?? "";
  let offset = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= page.length) {
        controller.close();
        if (page === big) sent.get(key)?.();
        return;
      }
      controller.enqueue(page.subarray(offset, offset += 1 << 20));
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/html; charset=utf-8", "content-length": `${page.length}` },
  });
});
const base = `http://127.0.0.1:${upstream.addr.port}`;

function bodySent(key: string): Promise<void> {
  return new Promise((resolve) => sent.set(key, resolve));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p99 = (xs: number[]) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.99) - 1)];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** CPU seconds (user + system, all threads) of a process. */
function cpuSeconds(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * Waits until the process has used no CPU (10 ms ticks) for `quietMs`, at
 * most `limitMs`: when its last busy tick was seen, in ms from the start,
 * or NaN when it never went quiet.
 */
async function untilIdle(pid: number, quietMs: number, limitMs = 30_000): Promise<number> {
  const start = performance.now();
  let last = cpuSeconds(pid);
  let busyAt = start;
  while (performance.now() - start < limitMs) {
    await sleep(25);
    const now = performance.now();
    const cpu = cpuSeconds(pid);
    if (cpu > last) busyAt = now;
    last = cpu;
    if (now - busyAt >= quietMs) return busyAt - start;
  }
  return NaN;
}

let serial = 0;
const fresh = () => `${++serial}-${Date.now()}`;

interface Figures {
  pingIdle: number[];
  smallIdle: number[];
  pingBusy: number[];
  smallBusy: number[];
  cancelToIdleMs: number;
  lateResult: boolean;
}

async function outline(client: Client, url: string, signal?: AbortSignal): Promise<unknown> {
  return await client.callTool({ name: "web_fetch_sections", arguments: { url } }, {
    signal,
    timeout: 120_000,
  });
}

async function timed<T>(fn: () => Promise<T>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

async function measure(mode: "thread" | "worker"): Promise<Figures> {
  // The baseline converts every page on the main thread, as every build did before the pool.
  const env = {
    MCP_ALLOW_PRIVATE_IPS: "1",
    ...(mode === "thread" ? { PARKOUR_CONVERT_WORKERS: "0" } : {}),
  };
  const server = await HttpServerProcess.start(MAIN, [], env, [`--allow-read=${ROOT_DIR}`]);
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  try {
    // Warm up: the converter's modules, a first small page, a first large one (workers start).
    await outline(client, `${base}/small?n=warm-${fresh()}`);
    const warm = fresh();
    const warmSent = bodySent(warm);
    await outline(client, `${base}/big?n=${warm}`);
    await warmSent;

    const pingIdle: number[] = [];
    for (let i = 0; i < PINGS; i++) {
      pingIdle.push(await timed(() => client.ping()));
      await sleep(20);
    }
    const smallIdle: number[] = [];
    for (let i = 0; i < SMALL; i++) {
      smallIdle.push(await timed(() => outline(client, `${base}/small?n=${fresh()}`)));
    }

    // Pings while WHATWG converts.
    const pingBusy: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const key = fresh();
      const done = bodySent(key);
      let finished = false;
      const call = outline(client, `${base}/big?n=${key}`).finally(() => finished = true);
      await done;
      while (!finished) {
        pingBusy.push(await timed(() => client.ping()));
        await sleep(20);
      }
      await call;
    }

    // Small pages while WHATWG converts.
    const smallBusy: number[] = [];
    {
      const key = fresh();
      const done = bodySent(key);
      let finished = false;
      const call = outline(client, `${base}/big?n=${key}`).finally(() => finished = true);
      await done;
      while (!finished || smallBusy.length === 0) {
        smallBusy.push(await timed(() => outline(client, `${base}/small?n=${fresh()}`)));
      }
      await call;
    }

    // Cancel during the conversion, once the server is idle: the WHATWG page before goes on
    // building its indexes in the worker for a few seconds after its answer, and that work is
    // not the cancelled call's.
    const settled = await untilIdle(server.pid, 300);
    console.error(`the server was last busy ${settled.toFixed(0)} ms in; cancelling a WHATWG call`);
    const key = fresh();
    const sentBody = bodySent(key);
    const abort = new AbortController();
    let lateResult = false;
    const call = outline(client, `${base}/big?n=${key}`, abort.signal).then(
      () => lateResult = true,
      () => {},
    );
    await sentBody;
    await sleep(300);
    abort.abort();
    // Idle: no CPU tick for 150 ms; the cancel freed the CPU at the last tick seen. (A busy
    // server on a shared machine may get only a fifth of a core: one window without a tick is
    // not enough.)
    const cancelToIdleMs = await untilIdle(server.pid, 150, 20_000);
    await call;
    return { pingIdle, smallIdle, pingBusy, smallBusy, cancelToIdleMs, lateResult };
  } finally {
    await client.close().catch(() => {});
    await server.stop();
  }
}

const modes: ("thread" | "worker")[] = values.mode === "both"
  ? ["thread", "worker"]
  : [values.mode as "thread" | "worker"];
const results = new Map<string, Figures>();
for (const mode of modes) {
  console.error(`measuring: large pages on the ${mode === "thread" ? "main thread" : "workers"}`);
  results.set(mode, await measure(mode));
}
await upstream.shutdown();

const f = (n: number) => n.toFixed(1);
const rows = [
  "| figure | goal | " +
  modes.map((m) => m === "thread" ? "main thread (before)" : "workers (after)").join(" | ") + " |",
  "|---|---|" + modes.map(() => "---|").join(""),
];
const row = (name: string, goal: string, value: (r: Figures) => string) =>
  rows.push(`| ${name} | ${goal} | ${modes.map((m) => value(results.get(m)!)).join(" | ")} |`);
row("ping idle p50 / p99 (ms)", "", (r) => `${f(median(r.pingIdle))} / ${f(p99(r.pingIdle))}`);
row(
  "ping during WHATWG p50 / p99 / max (ms)",
  "p99 <= 50",
  (r) =>
    `${f(median(r.pingBusy))} / ${f(p99(r.pingBusy))} / ${
      f(Math.max(...r.pingBusy))
    } (n=${r.pingBusy.length})`,
);
row("small page idle, median (ms)", "", (r) => f(median(r.smallIdle)));
row(
  "small page during WHATWG, median (ms)",
  "",
  (r) => `${f(median(r.smallBusy))} (n=${r.smallBusy.length})`,
);
row(
  "small page ratio busy / idle",
  "<= 1.5",
  (r) => (median(r.smallBusy) / median(r.smallIdle)).toFixed(2),
);
row("cancel to idle CPU (ms)", "<= 200", (r) => f(r.cancelToIdleMs));
row("result after cancel", "none", (r) => r.lateResult ? "yes" : "none");
console.log(rows.join("\n"));
