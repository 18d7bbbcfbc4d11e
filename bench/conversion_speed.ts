/**
 * HTML bytes to a searchable Document (decode, convert, sections, slices,
 * index) beside another checkout of this project and, with `--mdream`,
 * beside mdream 1.7.2's native converter (`htmlToMarkdown` under Node,
 * Markdown only), each in a process of its own: 3 warm-up runs, then the
 * median of 5 runs' wall and CPU time. Rounds alternate the processes,
 * starting one later each round; the figures are medians over the rounds.
 *
 * ```sh
 * PARKOUR_SHARED_DIR=/path/to/shared deno run -A --config deno.dev.json \
 *   bench/conversion_speed.ts --baseline /tmp/other-checkout [--mdream] [--rounds 7] \
 *   [--pages ecma262,whatwg_html]
 * ```
 *
 * Processes, not one process: two checkouts' converters loaded side by side
 * in one process measured 1.13-1.26x apart on WHATWG HTML when both were
 * the same code (the second one loaded ran slower), which is as large as
 * the changes being measured. mdream is installed as bench/oneshot_cli.ts
 * installs it (`--mdream` there), into the system's temporary folder.
 *
 * @module
 */
import { parseArgs } from "node:util";
import process from "node:process";
import { ROOT_DIR } from "../tests/support/process.ts";
import { gunzipFile, sharedDir } from "../tests/support/shared.ts";
import { installMdream, MDREAM, MDREAM_DIR } from "./mdream.ts";

const URLS: Record<string, string> = {
  pep_8: "https://peps.python.org/pep-0008/",
  ecma262: "https://tc39.es/ecma262/",
  whatwg_html: "https://html.spec.whatwg.org/",
};

interface Times {
  wall: number;
  cpu: number;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Times `run`: 3 warm-ups, then the median of 5. */
function timed(run: () => void): Times {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < 8; i++) {
    const t = performance.now();
    const u = process.cpuUsage();
    run();
    const used = process.cpuUsage(u);
    if (i >= 3) {
      wall.push(performance.now() - t);
      cpu.push((used.user + used.system) / 1000);
    }
  }
  return { wall: median(wall), cpu: median(cpu) };
}

// A measuring process: one checkout, one page.
if (Deno.args[0] === "--child") {
  const [, root, page] = Deno.args;
  const { htmlDocument } = await import(`file://${root}/lib/content/pipeline.ts`);
  const bytes = await gunzipFile(`${sharedDir()}/fixtures/real/${page}.html.gz`);
  console.log(JSON.stringify(timed(() => {
    const doc = htmlDocument(new TextDecoder().decode(bytes), URLS[page]);
    void doc.index;
  })));
  Deno.exit(0);
}

const { values } = parseArgs({
  args: Deno.args,
  options: {
    baseline: { type: "string" },
    mdream: { type: "boolean", default: false },
    rounds: { type: "string", default: "7" },
    pages: { type: "string", default: "ecma262,whatwg_html" },
  },
});
const shared = sharedDir();
if (!shared) {
  console.log("SKIPPED: set PARKOUR_SHARED_DIR to the shared folder");
  Deno.exit(0);
}

// The mdream process: the same loop under Node, from a file beside its install.
const MDREAM_SCRIPT = `import { htmlToMarkdown } from "mdream";
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
const bytes = gunzipSync(readFileSync(process.argv[2]));
const wall = [], cpu = [];
for (let i = 0; i < 8; i++) {
  const t = performance.now(), u = process.cpuUsage();
  htmlToMarkdown(new TextDecoder().decode(bytes));
  const used = process.cpuUsage(u);
  if (i >= 3) { wall.push(performance.now() - t); cpu.push((used.user + used.system) / 1000); }
}
const median = (xs) => xs.sort((a, b) => a - b)[2];
console.log(JSON.stringify({ wall: median(wall), cpu: median(cpu) }));
`;
if (values.mdream) {
  await installMdream();
  await Deno.writeTextFile(`${MDREAM_DIR}/conversion_speed.mjs`, MDREAM_SCRIPT);
}

const commands: Record<string, (page: string) => string[]> = {
  parkour: (page) => [
    Deno.execPath(),
    "run",
    "-A",
    "--config",
    `${ROOT_DIR}/deno.dev.json`,
    import.meta.filename!,
    "--child",
    ROOT_DIR,
    page,
  ],
};
if (values.baseline) {
  const dir = await Deno.realPath(values.baseline);
  commands.baseline = (page) => [...commands.parkour(page).slice(0, -2), dir, page];
}
if (values.mdream) {
  commands[`mdream ${MDREAM}`] = (page) => [
    "node",
    `${MDREAM_DIR}/conversion_speed.mjs`,
    `${shared}/fixtures/real/${page}.html.gz`,
  ];
}

const names = Object.keys(commands);
const rounds = Number(values.rounds);
for (const page of values.pages!.split(",")) {
  const results = new Map<string, Times[]>(names.map((n) => [n, []]));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + round) % names.length];
      const [cmd, ...args] = commands[name](page);
      const out = await new Deno.Command(cmd, { args, stderr: "inherit" }).output();
      if (!out.success) throw new Error(`${name} failed on ${page}`);
      const line = new TextDecoder().decode(out.stdout).trim().split("\n").pop()!;
      results.get(name)!.push(JSON.parse(line));
    }
  }
  const load = Deno.loadavg().map((l) => l.toFixed(1)).join(" ");
  console.log(`\n${page}: median of ${rounds} rounds, load ${load}\n`);
  console.log("| converter | wall | CPU | wall ÷ parkour |");
  console.log("| --- | ---: | ---: | ---: |");
  const wallOf = (name: string) => median(results.get(name)!.map((r) => r.wall));
  for (const name of names) {
    const cpu = median(results.get(name)!.map((r) => r.cpu));
    console.log(
      `| ${name} | ${wallOf(name).toFixed(0)} ms | ${cpu.toFixed(0)} ms | ${
        (wallOf(name) / wallOf("parkour")).toFixed(2)
      }× |`,
    );
  }
}
