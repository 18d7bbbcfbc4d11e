/**
 * What the conversion pool's second lane costs in memory: the server's peak
 * resident memory (VmHWM) while a slow hostile page converts in the pool's
 * worker and a smaller page converts beside it in the second lane
 * (lib/content/workers/pool.ts), against the same two pages converted one
 * after the other (one lane), and the slow page alone.
 *
 * ```sh
 * deno run -A --config deno.dev.json bench/lane_memory.ts [--slow links:16] [--small links:4] [--rounds 3]
 * ```
 *
 * Pages are shapes of `tests/support/hostile_pages.ts` at a size in MB
 * (`--small` at most 4 MB, the largest page the lane takes), served on
 * 127.0.0.1. Each run is a fresh `main.ts serve --http` (the start task's
 * flags, conversion workers on; the conversion deadline lifted so that the
 * slow page converts to its end) read through the HTTP API (`/api/sections`,
 * then a search, which waits for the page's indexes):
 *
 * - `alone`: the slow page, and its indexes;
 * - `one lane`: the slow page and its indexes, then the small page and its;
 * - `two lanes`: the slow page, and once it has converted for a second
 *   (past the lane's half second) the small page, which the second lane
 *   takes; then both pages' indexes. The run says whether the small page
 *   was answered first, as it is when the lane took it.
 *
 * The scenarios take turns, `--rounds` times; medians are printed, with
 * each run's figures. The machine is shared: compare within one run.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { HOSTILE_SHAPES } from "../tests/support/hostile_pages.ts";
import { HttpServerProcess, ROOT_DIR, taskFlags } from "../tests/support/process.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    slow: { type: "string", default: "links:16" },
    small: { type: "string", default: "links:4" },
    rounds: { type: "string", default: "3" },
  },
});
const MIB = 1024 * 1024;

/** A shape's page at a size: `links:16` is `links` at 16 MB. */
function page(spec: string): Uint8Array<ArrayBuffer> {
  const [name, mb] = spec.split(":");
  const shape = HOSTILE_SHAPES.find((s) => s.name === name);
  if (!shape) throw new Error(`no shape ${name}`);
  return new TextEncoder().encode(shape.page(Number(mb) * 1e6));
}
const pages = { slow: page(values.slow!), small: page(values.small!) };
if (pages.small.length > 4 * 1024 * 1024) throw new Error("--small: at most 4 MB (the lane's)");

const upstream = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
  const which = new URL(req.url).pathname.split("/")[1] as keyof typeof pages;
  return new Response(pages[which], { headers: { "content-type": "text/html; charset=utf-8" } });
});
const origin = `http://127.0.0.1:${upstream.addr.port}`;

function status(pid: number, field: "VmRSS" | "VmHWM"): number {
  const text = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text)![1]) * 1024;
}

async function startServer(): Promise<HttpServerProcess> {
  const flags = taskFlags("start").map((f) =>
    f.startsWith("--allow-read=") ? `${f},${ROOT_DIR}` : f
  );
  return await HttpServerProcess.start(
    `${ROOT_DIR}/main.ts`,
    [],
    { MCP_ALLOW_PRIVATE_IPS: "1", PARKOUR_CONVERT_DEADLINE_MS: "3600000" },
    [],
    flags,
  );
}

/** One request to the HTTP API: the page's outline, or a search (which waits for the indexes). */
async function ask(api: string, which: "slow" | "small", search?: string): Promise<void> {
  const u = new URL(api + (search ? "" : "/sections"));
  u.searchParams.set("url", `${origin}/${which}`);
  if (search) u.searchParams.set("search", search);
  const res = await fetch(u);
  const body = await res.text();
  if (res.status !== 200) throw new Error(`${res.status} for ${u}: ${body.slice(0, 300)}`);
}

type Scenario = "alone" | "one lane" | "two lanes";
interface Run {
  peak: number;
  idle: number;
  smallFirst?: boolean;
}

async function run(scenario: Scenario): Promise<Run> {
  const server = await startServer();
  try {
    const idle = status(server.pid, "VmRSS");
    let smallFirst: boolean | undefined;
    if (scenario === "two lanes") {
      let slowDone = false;
      const slow = ask(server.api, "slow").then(() => slowDone = true);
      // The slow page is fetched and in its worker; past the lane's half second the small one comes.
      await new Promise((r) => setTimeout(r, 1500));
      await ask(server.api, "small");
      smallFirst = !slowDone;
      await slow;
      await ask(server.api, "slow", "link");
      await ask(server.api, "small", "link");
    } else {
      await ask(server.api, "slow");
      await ask(server.api, "slow", "link");
      if (scenario === "one lane") {
        await ask(server.api, "small");
        await ask(server.api, "small", "link");
      }
    }
    return { peak: status(server.pid, "VmHWM"), idle, smallFirst };
  } finally {
    await server.stop();
  }
}

const scenarios: Scenario[] = ["alone", "one lane", "two lanes"];
const runs: Record<Scenario, Run[]> = { alone: [], "one lane": [], "two lanes": [] };
for (let r = 0; r < Number(values.rounds); r++) {
  for (const s of scenarios) {
    const m = await run(s);
    runs[s].push(m);
    console.error(
      `round ${r + 1} ${s}: peak ${(m.peak / MIB).toFixed(0)} MiB${
        m.smallFirst === undefined
          ? ""
          : m.smallFirst
          ? " (small page first)"
          : " (small page LAST)"
      }`,
    );
  }
}
await upstream.shutdown();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const mib = (n: number) => `${(n / MIB).toFixed(0)} MiB`;
console.log(
  `\nslow page ${values.slow} (${
    (pages.slow.length / 1e6).toFixed(1)
  } MB), small page ${values.small} (${
    (pages.small.length / 1e6).toFixed(1)
  } MB); ${values.rounds} rounds\n`,
);
console.log("| scenario | peak RSS (median) | runs | idle RSS |");
console.log("| --- | ---: | --- | ---: |");
for (const s of scenarios) {
  const peaks = runs[s].map((m) => m.peak);
  console.log(
    `| ${s} | ${mib(median(peaks))} | ${peaks.map(mib).join(", ")} | ${
      mib(median(runs[s].map((m) => m.idle)))
    } |`,
  );
}
const lanes = runs["two lanes"];
console.log(
  `\nsmall page answered before the slow page in ${
    lanes.filter((m) => m.smallFirst).length
  } of ${lanes.length} two-lane runs`,
);
