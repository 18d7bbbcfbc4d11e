/**
 * The one-shot command beside mdream's CLI: `sections` and `fetch` on a
 * large saved page (WHATWG HTML, 15.6 MB, by default), each a whole process
 * from spawn to exit, with its wall time, CPU time (user + system) and peak
 * resident memory, beside mdream 1.7.2's command line converting the same
 * file (`mdream < page.html`, its native engine), and, with
 * `--baseline DIR`, the same commands of another checkout of this project.
 *
 * ```sh
 * PARKOUR_SHARED_DIR=/path/to/shared \
 *   deno run -A bench/oneshot_cli.ts [--mdream] [--baseline DIR] [--runs 7] [--page ecma262] [--times 4]
 * ```
 *
 * - Our commands run as their tasks run them (`deno run` with the task's
 *   flags and the variables its line sets, each checkout's own, `main.ts
 *   sections FILE` or `main.ts fetch FILE`, in the checkout's folder), output into a pipe (the envelope an agent gets) that
 *   is read to its end; `npx -y deno@2.9.6 task ...` adds npx's own start.
 * - `--mdream` installs `mdream@1.7.2` and its Linux x64 native engine
 *   (`@mdream/rust-linux-x64-gnu@1.7.2`, which npm leaves out under a Node
 *   older than its `engines` field asks) with `npm install` into a folder of
 *   the system's temporary directory (never this project's dependencies),
 *   once, and runs `node .../mdream/bin/mdream.mjs` with the page on stdin.
 * - Each process is run under GNU time (`/usr/bin/time -f`), which gives
 *   its CPU time and peak RSS; without it, only wall times are shown.
 * - Runs alternate: each round runs every command once, starting one
 *   command later each round; one untimed round first (caches, V8's code
 *   cache). Medians over `--runs` rounds, and each command's median over
 *   mdream's (the machine is shared: compare the ratios of one run).
 * - `--times N` writes the page N times over into one file (WHATWG HTML
 *   four times is a page of 62 MB: the size the memory goal names).
 * - `--modules` prints, for each of our commands, the npm packages and the
 *   folders of `lib/` whose modules the process evaluated (from Deno's
 *   debug log, `-L debug`), which shows what a command loads.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { ROOT_DIR, splitTaskLine, taskEnv, taskFlags } from "../tests/support/process.ts";
import { gunzipFile, sharedDir } from "../tests/support/shared.ts";
import { installMdream, MDREAM } from "./mdream.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    mdream: { type: "boolean", default: false },
    baseline: { type: "string" },
    runs: { type: "string", default: "7" },
    page: { type: "string", default: "whatwg_html" },
    modules: { type: "boolean", default: false },
    times: { type: "string", default: "1" },
  },
});
const shared = sharedDir();
if (!shared) {
  console.log("SKIPPED: set PARKOUR_SHARED_DIR to the shared folder");
  Deno.exit(0);
}

const TIME = "/usr/bin/time";
const timed = await Deno.stat(TIME).then(() => true, () => false);
const tmp = Deno.env.get("TMPDIR") ?? "/tmp";
const times = Number(values.times);
const file = `${tmp}/parkour-oneshot-${values.page}${times > 1 ? `-x${times}` : ""}.html`;
const page = await gunzipFile(`${shared}/fixtures/real/${values.page}.html.gz`);
const whole = new Uint8Array(page.length * times);
for (let i = 0; i < times; i++) whole.set(page, i * page.length);
await Deno.writeFile(file, whole);

interface Command {
  name: string;
  cwd: string;
  argv: string[];
  stdin?: string;
  /** Variables set for the process, beside this one's. */
  env?: Record<string, string>;
}

/**
 * The `deno run` flags of `task` as the checkout in `dir` runs it, and the
 * variables its line sets before `deno run` (`MALLOC_ARENA_MAX=1`): this
 * checkout's as the tests read them ({@link taskFlags}), another's from its
 * own deno.json (its launch line may differ, a V8 flag say).
 */
async function lineOf(
  dir: string,
  task: "sections" | "fetch",
): Promise<{ flags: string[]; env: Record<string, string> }> {
  if (dir === ROOT_DIR) return { flags: taskFlags(task, false), env: taskEnv(task) };
  const meta = JSON.parse(await Deno.readTextFile(`${dir}/deno.json`));
  const { env, words } = splitTaskLine(meta.tasks[task].command);
  return { flags: words.slice(1, words.indexOf("main.ts")), env };
}

async function ours(label: string, dir: string, task: "sections" | "fetch"): Promise<Command> {
  const { flags, env } = await lineOf(dir, task);
  return {
    name: `${label} ${task}`,
    cwd: dir,
    argv: [Deno.execPath(), ...flags, `${dir}/main.ts`, task, file],
    env,
  };
}

const commands: Command[] = [
  await ours("parkour", ROOT_DIR, "sections"),
  await ours("parkour", ROOT_DIR, "fetch"),
];
if (values.baseline) {
  const dir = await Deno.realPath(values.baseline);
  commands.push(await ours("baseline", dir, "sections"), await ours("baseline", dir, "fetch"));
}
if (values.mdream) {
  const dir = await installMdream();
  const cli = `${dir}/node_modules/mdream/bin/mdream.mjs`;
  commands.unshift({ name: `mdream ${MDREAM} CLI`, cwd: dir, argv: ["node", cli], stdin: file });
}

interface Run {
  wall: number;
  cpu?: number;
  rss?: number;
}

async function run(c: Command): Promise<Run> {
  const report = `${tmp}/parkour-oneshot-time-${Deno.pid}.txt`;
  const argv = timed ? [TIME, "-o", report, "-f", "%U %S %M", ...c.argv] : c.argv;
  const t = performance.now();
  const child = new Deno.Command(argv[0], {
    args: argv.slice(1),
    cwd: c.cwd,
    env: { NO_COLOR: "1", RUST_BACKTRACE: "0", ...c.env },
    stdin: c.stdin ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // The page goes in while the output comes out (a converter that streams would block otherwise).
  const feeding = c.stdin
    ? Deno.open(c.stdin).then((input) => input.readable.pipeTo(child.stdin))
    : Promise.resolve();
  const [out] = await Promise.all([child.output(), feeding]);
  const wall = performance.now() - t;
  if (!out.success) {
    throw new Error(`${c.name} failed: ${new TextDecoder().decode(out.stderr).slice(0, 500)}`);
  }
  if (out.stdout.length < 100) throw new Error(`${c.name} printed almost nothing`);
  if (!timed) return { wall };
  const [user, system, kb] = (await Deno.readTextFile(report)).trim().split(/\s+/).slice(-3)
    .map(Number);
  return { wall, cpu: (user + system) * 1000, rss: kb / 1024 };
}

if (values.modules) {
  for (const c of commands.filter((c) => !c.name.startsWith("mdream"))) {
    const [deno, ...rest] = c.argv;
    const out = await new Deno.Command(deno, {
      // Without --quiet, which silences the debug log whatever comes first.
      args: ["run", "-L", "debug", ...rest.slice(1).filter((a) => a !== "--quiet")],
      cwd: c.cwd,
      env: c.env,
      stdout: "null",
      stderr: "piped",
    }).output();
    const loaded = new Map<string, number>();
    for (const m of new TextDecoder().decode(out.stderr).matchAll(/for ES module: ([^,\s]+)/g)) {
      const spec = m[1].replace(`file://${c.cwd}/`, "");
      if (spec.startsWith("ext:")) continue;
      // A package in a node_modules folder (name@version) or in Deno's cache (name/version).
      const npm = /node_modules\/\.deno\/([^/]+)\//.exec(spec) ??
        /registry\.npmjs\.org\/((?:@[^/]+\/)?[^/]+)\/([^/]+)\//.exec(spec);
      const key = npm
        ? `npm:${npm[2] ? `${npm[1]}@${npm[2]}` : npm[1]}`
        : spec.replace(/^lib\/([a-z_]+)\/.*/, "lib/$1/").replace(/^node:.*/, "node:");
      loaded.set(key, (loaded.get(key) ?? 0) + 1);
    }
    const list = [...loaded.keys()].filter((k) => !k.startsWith("lib/") || k.endsWith("/"))
      .sort();
    console.log(`${c.name} loads: ${list.join(", ")}`);
  }
}

const runs = Number(values.runs);
const results = new Map<string, Run[]>(commands.map((c) => [c.name, []]));
for (let round = -1; round < runs; round++) {
  for (let i = 0; i < commands.length; i++) {
    const c = commands[(i + Math.max(0, round)) % commands.length];
    const r = await run(c);
    if (round >= 0) results.get(c.name)!.push(r);
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const load = Deno.loadavg().map((l) => l.toFixed(1)).join(" ");
const size = (await Deno.stat(file)).size / 1e6;
console.log(
  `\nOne-shot commands on ${values.page}${times > 1 ? ` ×${times}` : ""} (${
    size.toFixed(1)
  } MB), median of ${runs} rounds, load ${load}, ${new Date().toISOString().slice(0, 16)}Z\n`,
);
const ref = values.mdream ? results.get(commands[0].name)! : undefined;
const header = ["command", "wall", "CPU", "peak RSS", "RSS per byte"];
if (ref) header.push("wall ÷ mdream", "CPU ÷ mdream", "RSS ÷ mdream");
console.log(`| ${header.join(" | ")} |`);
console.log(`| ${header.map(() => "---").join(" | ")} |`);
for (const c of commands) {
  const rs = results.get(c.name)!;
  const wall = median(rs.map((r) => r.wall));
  const cpu = timed ? median(rs.map((r) => r.cpu!)) : NaN;
  const rss = timed ? median(rs.map((r) => r.rss!)) : NaN;
  const row = [
    c.name,
    `${(wall / 1000).toFixed(2)} s`,
    timed ? `${(cpu / 1000).toFixed(2)} s` : "—",
    timed ? `${rss.toFixed(0)} MiB` : "—",
    timed ? `${(rss * 1048576 / (size * 1e6)).toFixed(1)} B/B` : "—",
  ];
  if (ref) {
    const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
    row.push(
      ratio(wall, median(ref.map((r) => r.wall))),
      timed ? ratio(cpu, median(ref.map((r) => r.cpu!))) : "—",
      timed ? ratio(rss, median(ref.map((r) => r.rss!))) : "—",
    );
  }
  console.log(`| ${row.join(" | ")} |`);
}
await Deno.remove(`${tmp}/parkour-oneshot-time-${Deno.pid}.txt`).catch(() => {});
