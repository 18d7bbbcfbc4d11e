/**
 * Where a conversion's time goes, down to V8's builtins: Linux `perf`
 * samples the main thread while a page is converted a few times in one
 * process, and each sample is named by what it fell in: a builtin of V8 by
 * its own name (`LoadIC_Megamorphic`, `FindOrderedHashMapEntry`,
 * `StringIndexOf`...), a compiled regular expression by its source, a
 * JavaScript function by V8's perf map, or the C library, the kernel, or
 * other C++ of the runtime (the collector's work on the main thread, runtime
 * calls). A CPU profile from `--cpu-prof` folds builtins into the function
 * that called them; this shows them apart, which is what told the seventh
 * pass of issue 37 that 7 % of the conversion was megamorphic property
 * look-ups and 4 % map look-ups by name.
 *
 * ```sh
 * PARKOUR_SHARED_DIR=/path/to/shared deno run -A --config deno.dev.json bench/builtins_profile.ts \
 *   [--page whatwg_html] [--runs 8] [--stage markdown|document] [--root DIR] [--top 40] \
 *   [--callers 'LoadIC.*Megamorphic']
 * ```
 *
 * - `--stage markdown` (the default) converts with the furniture policy and
 *   without the content selection (`htmlToMarkdown`); `document` builds the
 *   searchable Document (`htmlDocument`, then its index).
 * - `--callers REGEX` lists, for the samples whose name matches, the
 *   innermost JavaScript function on their stack (from `perf record -g`).
 * - Builtins are named from V8's own log of where it placed them (a run of
 *   `deno eval` with `--prof` and `--no-short-builtin-calls`, which keeps
 *   them at their place in the binary): exact. JavaScript functions are
 *   named from the perf map V8 writes (`--perf-basic-prof`), which does not
 *   say when code was freed and its place reused: a function's share is a
 *   guide, to be checked with `--cpu-prof`.
 * - Needs `perf` (Debian's `linux-perf`) and a kernel that lets this user
 *   sample its own processes; without, it says so and exits 0.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { ROOT_DIR } from "../tests/support/process.ts";
import { sharedDir } from "../tests/support/shared.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    page: { type: "string", default: "whatwg_html" },
    runs: { type: "string", default: "8" },
    stage: { type: "string", default: "markdown" },
    root: { type: "string", default: ROOT_DIR },
    top: { type: "string", default: "40" },
    callers: { type: "string" },
  },
});
if (!sharedDir()) {
  console.log("SKIPPED: set PARKOUR_SHARED_DIR to the shared folder");
  Deno.exit(0);
}
if (values.stage !== "markdown" && values.stage !== "document") {
  console.error(`--stage takes markdown or document, not ${values.stage}`);
  Deno.exit(2);
}

async function run(cmd: string, args: string[]): Promise<{ ok: boolean; out: string }> {
  try {
    const r = await new Deno.Command(cmd, { args, stdout: "piped", stderr: "piped" }).output();
    const text = new TextDecoder().decode(r.stdout) + new TextDecoder().decode(r.stderr);
    return { ok: r.success, out: text };
  } catch (e) {
    return { ok: false, out: String(e) };
  }
}

const probe = await run("perf", ["--version"]);
if (!probe.ok) {
  console.log("SKIPPED: Linux perf is not installed here (Debian: apt-get install linux-perf)");
  Deno.exit(0);
}

const deno = Deno.execPath();
const dir = await Deno.makeTempDir({ prefix: "builtins_profile_" });
const root = values.root!;
const runs = Number(values.runs);
const url = `https://${values.page}.example/`;

// The driver: the page converted `runs` times in one process, the median printed.
const driver = `${dir}/driver.ts`;
await Deno.writeTextFile(
  driver,
  `
const { realPageHtml } = await import(${
    JSON.stringify(`file://${ROOT_DIR}/tests/support/shared.ts`)
  });
const html = await realPageHtml(${JSON.stringify(values.page)});
const { htmlToMarkdown } = await import(${
    JSON.stringify(`file://${root}/lib/content/html/markdown.ts`)
  });
const { defaultFurniture } = await import(${
    JSON.stringify(`file://${root}/lib/content/extract/furniture.ts`)
  });
const { htmlDocument } = await import(${JSON.stringify(`file://${root}/lib/content/pipeline.ts`)});
const times = [];
for (let i = 0; i < ${runs}; i++) {
  const t = performance.now();
  if (${JSON.stringify(values.stage)} === "markdown") {
    htmlToMarkdown(html, { baseUrl: ${JSON.stringify(url)}, furniture: defaultFurniture });
  } else void htmlDocument(html, ${JSON.stringify(url)}).index;
  times.push(performance.now() - t);
}
times.sort((a, b) => a - b);
console.log("median " + times[times.length >> 1].toFixed(0) + " ms of " + times.length);
`,
);

// Where V8 placed its builtins in the binary (offsets from the binary's start).
const v8log = `${dir}/v8.log`;
await run(deno, [
  "eval",
  `--v8-flags=--prof,--logfile=${v8log},--no-logfile-per-isolate,--no-short-builtin-calls`,
  "0",
]);
interface Range {
  start: number;
  end: number;
  name: string;
}
const builtins: Range[] = [];
let base = -1;
for (const line of (await Deno.readTextFile(v8log)).split("\n")) {
  const f = line.split(",");
  if (f[0] === "shared-library" && base < 0 && f[1] === deno) base = parseInt(f[2], 16);
  else if (f[0] === "code-creation" && f[1] === "Builtin" && base >= 0) {
    const start = parseInt(f[4], 16) - base;
    builtins.push({ start, end: start + Number(f[5]), name: f[6] });
  }
}
builtins.sort((a, b) => a.start - b.start);
if (builtins.length === 0) {
  console.log("SKIPPED: V8's log named no builtins (a Deno without --prof?)");
  Deno.exit(0);
}

/** The builtin holding offset `at` of the binary, if any. */
function builtinAt(at: number): string | undefined {
  let lo = 0;
  let hi = builtins.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (builtins[mid].start <= at) lo = mid + 1;
    else hi = mid - 1;
  }
  const r = builtins[hi];
  return r && at < r.end ? r.name : undefined;
}

const data = `${dir}/perf.data`;
const record = await run("perf", [
  "record",
  "-g",
  "-F",
  "3000",
  "-o",
  data,
  deno,
  "run",
  "-A",
  `--config=${ROOT_DIR}/deno.dev.json`,
  "--v8-flags=--perf-basic-prof,--no-short-builtin-calls",
  driver,
]);
if (!record.ok) {
  console.log(`SKIPPED: perf record failed here:\n${record.out.slice(-2000)}`);
  Deno.exit(0);
}
const median = /median .*/.exec(record.out)?.[0] ?? "";
const script = await run("perf", ["script", "-i", data, "-F", "comm,ip,sym,dso"]);

/** A frame's name: a builtin, a regular expression, a JavaScript function, or its library. */
function nameOf(frame: string): string {
  const m = /^\s*([0-9a-f]+) (.*) \((.*)\)\s*$/.exec(frame);
  if (!m) return "?";
  const [, ip, sym, dso] = m;
  if (dso === deno) return builtinAt(parseInt(ip, 16)) ?? "(runtime C++)";
  if (sym.startsWith("JS:")) {
    const [fn, where] = sym.replace(/^JS:\S?[*+~^']*/, "").split(" ");
    return `js ${fn || "(anonymous)"} ${(where ?? "").replace(/^.*\/(lib|node_modules)\//, "$1/")}`;
  }
  if (sym.startsWith("RegExp")) return `regexp ${sym.slice(0, 80)}`;
  if (dso.includes("kernel")) return "(kernel)";
  return `${dso.replace(/.*\//, "")} ${sym}`;
}

const leaves = new Map<string, number>();
const callers = new Map<string, number>();
const pattern = values.callers ? new RegExp(values.callers) : undefined;
let samples = 0;
let matched = 0;
let frames: string[] = [];
let thread = "";
const flush = () => {
  if (thread === "deno" && frames.length > 0) {
    samples++;
    const leaf = nameOf(frames[0]);
    leaves.set(leaf, (leaves.get(leaf) ?? 0) + 1);
    if (pattern?.test(leaf)) {
      matched++;
      const js = frames.slice(1).map(nameOf).find((n) => n.startsWith("js ")) ?? "(no js frame)";
      callers.set(js, (callers.get(js) ?? 0) + 1);
    }
  }
  frames = [];
};
for (const line of script.out.split("\n")) {
  if (line.trim() === "") continue;
  if (/^\s/.test(line)) frames.push(line);
  else {
    flush();
    thread = line.trim().split(/\s+/)[0];
  }
}
flush();

const top = Number(values.top);
const table = (m: Map<string, number>, of: number) =>
  [...m].sort((a, b) => b[1] - a[1]).slice(0, top).map(([k, v]) =>
    `${(100 * v / of).toFixed(2).padStart(6)} %  ${k}`
  ).join("\n");
console.log(
  `${values.page}, stage ${values.stage}, ${runs} conversions in one process (${median}), ` +
    `${samples} samples of the main thread, checkout ${root}\n\n${table(leaves, samples)}`,
);
if (pattern) {
  console.log(
    `\nInnermost JavaScript function of the ${matched} samples matching ${pattern} ` +
      `(${(100 * matched / Math.max(1, samples)).toFixed(2)} % of the main thread):\n` +
      table(callers, Math.max(1, matched)),
  );
}
await Deno.remove(dir, { recursive: true });
