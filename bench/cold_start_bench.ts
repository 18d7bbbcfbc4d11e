/**
 * Cold start: from process spawn to the first answer, for `initialize`
 * (2025 era) and `server/discover` (2026-07-28), measured against the bare
 * SDK v2 server as baseline, for the source (main.ts) and, when it has been
 * built (`deno task bundle`), the bundle (dist/parkour.js). All run with the
 * start task's flags. `--version` is timed beside an empty Deno script.
 *
 * `deno task bench` reports ratios; `deno run -A bench/cold_start_bench.ts 7`
 * prints the median of N spawns for each (runs alternate between the
 * servers), the time to the first `tools/list` (initialize, then the list:
 * the tools load after the first answer, so this shows what that costs),
 * and the peak RSS of `--version` and `--help`.
 */
import { initializeParams, launch, ROOT_DIR } from "../tests/support/process.ts";

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: initializeParams("2025-11-25", "bench"),
});
const DISCOVER = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "server/discover",
  params: {
    _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    },
  },
});

const BUNDLE = `${ROOT_DIR}/dist/parkour.js`;
const hasBundle = (() => {
  try {
    return Deno.statSync(BUNDLE).isFile;
  } catch {
    return false;
  }
})();

/**
 * Another checkout's main.ts and bundle to time beside these
 * (`PARKOUR_BENCH_BEFORE=/path/main.ts`, `PARKOUR_BENCH_BEFORE_BUNDLE=/path/parkour.js`).
 */
const BEFORE = Deno.env.get("PARKOUR_BENCH_BEFORE");
const BEFORE_BUNDLE = Deno.env.get("PARKOUR_BENCH_BEFORE_BUNDLE");

const SERVERS: Record<string, string> = {
  ...(BEFORE ? { "parkour before": BEFORE } : {}),
  ...(BEFORE_BUNDLE ? { "parkour bundle before": BEFORE_BUNDLE } : {}),
  parkour: `${ROOT_DIR}/main.ts`,
  ...(hasBundle ? { "parkour bundle": BUNDLE } : {}),
  "bare SDK v2": `${ROOT_DIR}/bench/baselines/bare_sdk_server.ts`,
};

const EMPTY_SCRIPT = `${ROOT_DIR}/bench/baselines/empty.ts`;

/** Runs `script` with `args` to its end; resolves to wall time (ms) and peak RSS (MiB). */
async function runToEnd(script: string, args: string[]): Promise<{ ms: number; mib: number }> {
  const { command, args: argv } = launch(script, args);
  const t = performance.now();
  const out = await new Deno.Command("/usr/bin/time", {
    args: ["-f", "%M", command, ...argv],
    stdout: "null",
    stderr: "piped",
    env: { RUST_BACKTRACE: "0" },
  }).output();
  const ms = performance.now() - t;
  const lines = new TextDecoder().decode(out.stderr).trim().split("\n");
  return { ms, mib: Number(lines[lines.length - 1]) / 1024 };
}

/** `script` as a stdio server with the start task's flags, its stdin open. */
function spawnServer(script: string, stdout: "piped" | "null"): Deno.ChildProcess {
  const { command, args } = launch(script);
  return new Deno.Command(command, {
    args,
    stdin: "piped",
    stdout,
    stderr: "null",
    env: { RUST_BACKTRACE: "0" },
  }).spawn();
}

/**
 * Spawns `script`, sends `lines` one at a time (each after the answer to the
 * one before; a notification gets none), resolves with the last answer.
 */
async function answers(script: string, lines: string[]): Promise<string> {
  const child = spawnServer(script, "piped");
  const writer = child.stdin.getWriter();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  let last = "";
  for (const line of lines) {
    await writer.write(new TextEncoder().encode(line + "\n"));
    if (!line.includes('"id"')) continue;
    while (!text.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    const nl = text.indexOf("\n");
    last = text.slice(0, nl);
    text = text.slice(nl + 1);
  }
  await writer.close().catch(() => {});
  reader.cancel().catch(() => {});
  child.kill("SIGKILL");
  await child.status;
  if (!last.includes('"result"')) throw new Error(`no result from ${script}: ${last}`);
  return last;
}

/**
 * Runs `script` as a server for `ms` with stdin open, then stops it. Deno
 * writes a module's V8 code cache a while after compiling it, not before a
 * process killed at its first answer ends, and never when the script calls
 * `Deno.exit` first (`--version`): without this, a server whose code changed
 * since its last long run would be timed without its cache, which no user
 * sees after the first start.
 */
async function warmCodeCache(script: string, ms = 3000): Promise<void> {
  const child = spawnServer(script, "null");
  await new Promise((resolve) => setTimeout(resolve, ms));
  child.kill("SIGKILL");
  await child.status;
}

/** Spawns `script`, sends one line, resolves when the first line comes back. */
function firstAnswer(script: string, line: string): Promise<string> {
  return answers(script, [line]);
}

/** `initialize`, then `tools/list`: when a client first sees the tools. */
const TOOLS_LIST = [
  INITIALIZE,
  JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
];

for (const [group, line] of [["initialize", INITIALIZE], ["server/discover", DISCOVER]] as const) {
  for (const [name, script] of Object.entries(SERVERS)) {
    Deno.bench({
      name: `${name}: spawn → ${group}`,
      group,
      baseline: name === "bare SDK v2",
      n: 10,
      warmup: 2,
      async fn() {
        await firstAnswer(script, line);
      },
    });
  }
}

if (import.meta.main) {
  // Runs alternate between the servers, round by round, so that a busy spell on a shared
  // machine weighs on each of them alike.
  const runs = Number(Deno.args[0] ?? 5);
  const median = (times: number[]) =>
    [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)];
  for (const script of Object.values(SERVERS)) await warmCodeCache(script);
  const groups: [string, string[]][] = [
    ["initialize", [INITIALIZE]],
    ["server/discover", [DISCOVER]],
    ["first tools/list", TOOLS_LIST],
  ];
  for (const [group, lines] of groups) {
    const times: Record<string, number[]> = {};
    for (const [name, script] of Object.entries(SERVERS)) {
      await answers(script, lines); // warm the module cache
      times[name] = [];
    }
    for (let i = 0; i < runs; i++) {
      for (const [name, script] of Object.entries(SERVERS)) {
        const t = performance.now();
        await answers(script, lines);
        times[name].push(performance.now() - t);
      }
    }
    for (const name of Object.keys(SERVERS)) {
      console.log(
        `${group.padEnd(16)} ${name.padEnd(21)} median ${
          median(times[name]).toFixed(0)
        } ms of ${runs} (${
          [...times[name]].sort((a, b) => a - b).map((t) => t.toFixed(0)).join(", ")
        })`,
      );
    }
    for (const name of Object.keys(SERVERS).filter((n) => n.startsWith("parkour"))) {
      console.log(
        `${group.padEnd(16)} ratio ${name} / bare SDK = ${
          (median(times[name]) / median(times["bare SDK v2"])).toFixed(2)
        }`,
      );
    }
  }
  const ends = [
    ...(BEFORE ? [["parkour before --version", BEFORE, ["--version"]]] : []),
    ["parkour --version", `${ROOT_DIR}/main.ts`, ["--version"]],
    ["parkour --help", `${ROOT_DIR}/main.ts`, ["--help"]],
    ...(BEFORE_BUNDLE ? [["bundle before --version", BEFORE_BUNDLE, ["--version"]]] : []),
    ...(hasBundle ? [["bundle --version", BUNDLE, ["--version"]]] : []),
    ["empty Deno script", EMPTY_SCRIPT, []],
  ] as [string, string, string[]][];
  const measured = new Map<string, { ms: number; mib: number }[]>();
  for (const [name, script, args] of ends) {
    await runToEnd(script, args);
    measured.set(name, []);
  }
  for (let i = 0; i < runs; i++) {
    for (const [name, script, args] of ends) measured.get(name)!.push(await runToEnd(script, args));
  }
  for (const [name] of ends) {
    const runsOf = measured.get(name)!.sort((a, b) => a.ms - b.ms);
    const mid = runsOf[Math.floor(runsOf.length / 2)];
    console.log(
      `${name.padEnd(33)} median ${mid.ms.toFixed(0)} ms, ${mid.mib.toFixed(0)} MiB peak RSS`,
    );
  }
}
