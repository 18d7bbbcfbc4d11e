/**
 * What each hostile shape of page costs through the product, beside the
 * real pages: every shape of `tests/support/hostile_pages.ts` (a paragraph
 * of links, entities, unclosed and misnested tags, nesting to the cap, one
 * huge row or cell, one huge text run, tiny sections, attributes by the
 * thousand, ...) generated at 4 and 16 MB, and PEP 8, ECMA-262 and WHATWG
 * HTML (needs PARKOUR_SHARED_DIR), served on 127.0.0.1 by this process (a
 * shape's page is generated before its clock starts, as the real pages are
 * read before theirs) and read
 *
 * - by the CLI (unless `--no-cli`): `main.ts fetch URL --max-tokens 5000 --format envelope`, a
 *   process per page with the fetch task's flags (the page converts on the
 *   process's own thread); its wall time from spawn to exit (the growth
 *   leaves out the median wall of the same command on a tiny page, the
 *   process's start), and its CPU time and peak RSS under GNU time when
 *   `/usr/bin/time` is there;
 * - over MCP (unless `--no-mcp`): one server with the start task's flags
 *   and a real client, `web_fetch_incisive` with `max_tokens: 5000` on each
 *   page (a fresh URL each, so nothing is cached; the page converts in the
 *   server's worker), the call's wall time.
 *
 * The conversion deadline is lifted (`PARKOUR_CONVERT_DEADLINE_MS`, an
 * hour) so that the whole cost shows; a page over `--deadline` seconds (20,
 * the default deadline) is marked: with the default setting it would be
 * refused. Reported per page: seconds and MB/s (the page's size over the
 * time), the MB/s as a share of the real pages' median, and per shape the
 * growth from 4 to 16 MB (the 16 MB time ÷ (4 × the 4 MB time): 1 is
 * linear). One run each; the machine is shared, so compare the ratios.
 *
 * ```sh
 * PARKOUR_SHARED_DIR=/path/to/shared deno run -A --config deno.dev.json bench/hostile_pages.ts \
 *   [--sizes 4,16] [--shapes links,entities] [--no-cli] [--no-mcp] [--deadline 20] [--json FILE]
 * ```
 *
 * bench/hostile_run.ts gives one page's stages (conversion, Document,
 * indexes, answers) in-process, for a profile.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { HOSTILE_SHAPES } from "../tests/support/hostile_pages.ts";
import { gunzipFile, sharedDir } from "../tests/support/shared.ts";
import { childEnv, launch, MAIN, taskFlags } from "../tests/support/process.ts";
import { callTool, startServer } from "../tests/support/mcp_client.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    sizes: { type: "string", default: "4,16" },
    shapes: { type: "string" },
    "no-cli": { type: "boolean", default: false },
    "no-mcp": { type: "boolean", default: false },
    deadline: { type: "string", default: "20" },
    json: { type: "string" },
  },
});

const sizes = values.sizes!.split(",").map(Number);
const shapes = values.shapes ? values.shapes.split(",") : HOSTILE_SHAPES.map((s) => s.name);
const deadlineMs = Number(values.deadline) * 1000;
const shared = sharedDir();
const REAL = shared ? ["pep_8", "ecma262", "whatwg_html"] : [];
if (!shared) console.error("real pages SKIPPED: set PARKOUR_SHARED_DIR");

const real = new Map<string, Uint8Array<ArrayBuffer>>();
for (const name of REAL) {
  real.set(name, new Uint8Array(await gunzipFile(`${shared}/fixtures/real/${name}.html.gz`)));
}
const encoder = new TextEncoder();
/** The bytes of a page label: `pep_8`, or `links 4` (a shape and its size in MB). */
function pageBytes(label: string): Uint8Array<ArrayBuffer> {
  const [name, mb] = label.split(" ");
  if (real.has(name)) return real.get(name)!;
  if (name === "tiny") return encoder.encode("<!doctype html><title>Tiny</title><p>Tiny page.</p>");
  const shape = HOSTILE_SHAPES.find((s) => s.name === name);
  if (!shape) throw new Error(`no shape ${name}`);
  return encoder.encode(shape.page(Number(mb) * 1e6));
}

let served: { label: string; bytes: Uint8Array<ArrayBuffer> } | undefined;
/** Makes the page of `label` the one served, generated now: before its clock starts. */
function serve(label: string): void {
  if (served?.label !== label) served = { label, bytes: pageBytes(label) };
}
const upstream = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
  const label = decodeURIComponent(new URL(req.url).pathname.slice(1).split("/")[0]);
  serve(label);
  return new Response(served!.bytes, { headers: { "content-type": "text/html; charset=utf-8" } });
});
const BASE = `http://127.0.0.1:${upstream.addr.port}`;
let nonce = 0;
const urlOf = (label: string) => `${BASE}/${encodeURIComponent(label)}/${nonce++}`;

const ENV = { MCP_ALLOW_PRIVATE_IPS: "1", PARKOUR_CONVERT_DEADLINE_MS: "3600000" };
const TIME = "/usr/bin/time";
const timed = await Deno.stat(TIME).then(() => true, () => false);

/** One measurement: seconds, and for the CLI its CPU seconds and peak RSS (MiB). */
interface Measure {
  s: number;
  cpu?: number;
  rssMiB?: number;
  ok: boolean;
}

async function viaCli(label: string): Promise<Measure> {
  const flags = taskFlags("fetch");
  const { command, args } = launch(
    MAIN,
    ["fetch", urlOf(label), "--max-tokens", "5000", "--format", "envelope"],
    [],
    flags,
  );
  const argv = timed ? ["-f", "%e %U %S %M", command, ...args] : args;
  serve(label);
  const t = performance.now();
  const out = await new Deno.Command(timed ? TIME : command, {
    args: argv,
    env: childEnv(ENV),
    stdout: "null",
    stderr: "piped",
  }).output();
  const s = (performance.now() - t) / 1000;
  const last = new TextDecoder().decode(out.stderr).trim().split("\n").pop() ?? "";
  const m = /^([\d.]+) ([\d.]+) ([\d.]+) (\d+)$/.exec(last);
  return m
    ? { s, cpu: Number(m[2]) + Number(m[3]), rssMiB: Number(m[4]) / 1024, ok: out.code === 0 }
    : { s, ok: out.code === 0 };
}

const labels = [
  ...REAL,
  ...sizes.flatMap((mb) => shapes.map((s) => `${s} ${mb}`)),
];

const results: Record<string, Record<string, Measure>> = { cli: {}, mcp: {} };

if (!values["no-cli"]) {
  // The process's own start: the median of five runs on a tiny page.
  const starts: number[] = [];
  for (let i = 0; i < 5; i++) starts.push((await viaCli("tiny")).s);
  const start = starts.sort((a, b) => a - b)[2];
  results.cli.start = { s: start, ok: true };
  console.error(`CLI start ${start.toFixed(2)} s`);
  for (const label of labels) {
    const m = await viaCli(label);
    results.cli[label] = m;
    console.error(`CLI ${label}: ${m.s.toFixed(2)} s${m.ok ? "" : " (failed)"}`);
  }
}

if (!values["no-mcp"]) {
  const { client } = await startServer({ env: ENV, replay: false });
  try {
    await callTool(client, "web_fetch_incisive", { url: urlOf("tiny") });
    for (const label of labels) {
      serve(label);
      const t = performance.now();
      const a = await callTool(client, "web_fetch_incisive", {
        url: urlOf(label),
        max_tokens: 5000,
      }, { timeout: 3_600_000 });
      const m = { s: (performance.now() - t) / 1000, ok: !a.isError };
      results.mcp[label] = m;
      console.error(`MCP ${label}: ${m.s.toFixed(2)} s${m.ok ? "" : ` (${a.text.slice(0, 120)})`}`);
    }
  } finally {
    await client.close();
  }
}
await upstream.shutdown();

const mbOf = (label: string) => pageBytes(label).length / 1e6;
const sizeOf = new Map(labels.map((l) => [l, mbOf(l)]));
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.floor((s.length - 1) / 2)];
};

for (const face of ["cli", "mcp"] as const) {
  const rows = results[face];
  if (Object.keys(rows).length === 0) continue;
  const mbps = (label: string) => sizeOf.get(label)! / rows[label].s;
  const realMedian = median(REAL.filter((p) => rows[p]).map(mbps));
  const cli = face === "cli";
  console.log(
    `\n### ${cli ? "CLI (`fetch`, one process per page)" : "MCP (`web_fetch_incisive`)"}\n`,
  );
  if (cli) {
    console.log(
      `Process start (a tiny page, median of 5): ${
        rows.start.s.toFixed(2)
      } s, in the times; the growth leaves it out.\n`,
    );
  }
  const head = ["page", "size", "s", "MB/s", "÷ real median", `growth ${sizes[0]}→${sizes.at(-1)}`];
  if (cli && timed) head.push("CPU s", "peak RSS");
  console.log(`| ${head.join(" | ")} |`);
  console.log(`| --- |${" ---: |".repeat(head.length - 1)}`);
  for (const label of labels) {
    const r = rows[label];
    if (!r) continue;
    const [name, mb] = label.split(" ");
    let growth = "";
    if (mb === `${sizes.at(-1)}` && sizes.length > 1) {
      const small = rows[`${name} ${sizes[0]}`];
      // The CLI's times less its process's start.
      const net = (x: Measure) => Math.max(0.05, x.s - (cli ? rows.start.s : 0));
      if (small) growth = (net(r) / net(small) / (sizes.at(-1)! / sizes[0])).toFixed(2);
    }
    const over = r.s * 1000 > deadlineMs ? " (over the deadline)" : "";
    const cells = [
      name,
      `${sizeOf.get(label)!.toFixed(1)} MB`,
      `${r.s.toFixed(2)}${r.ok ? "" : " (failed)"}${over}`,
      mbps(label).toFixed(2),
      (mbps(label) / realMedian).toFixed(2),
      growth,
    ];
    if (cli && timed) cells.push(r.cpu?.toFixed(2) ?? "", `${Math.round(r.rssMiB ?? 0)} MiB`);
    console.log(`| ${cells.join(" | ")} |`);
  }
}

if (values.json) await Deno.writeTextFile(values.json, JSON.stringify(results, null, 2));
