/**
 * Cold start: from process spawn to the first answer, for `initialize`
 * (2025 era) and `server/discover` (2026-07-28), measured against the bare
 * SDK v2 server as baseline, for the source (main.ts) and, when it has been
 * built (`deno task bundle`), the bundle (dist/parkour.js). All run with the
 * start task's flags. `--version` is timed beside an empty Deno script.
 *
 * `deno task bench` reports ratios; `deno run -A bench/cold_start_bench.ts 5`
 * prints the median of N spawns for each, and the peak RSS of `--version`.
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

const SERVERS: Record<string, string> = {
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

/** Spawns `script`, sends one line, resolves when the first line comes back. */
async function firstAnswer(script: string, line: string): Promise<string> {
  const { command, args } = launch(script);
  const child = new Deno.Command(command, {
    args,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
    env: { RUST_BACKTRACE: "0" },
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(line + "\n"));
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  await writer.close().catch(() => {});
  reader.cancel().catch(() => {});
  child.kill("SIGKILL");
  await child.status;
  if (!text.includes('"result"')) throw new Error(`no result from ${script}: ${text}`);
  return text;
}

for (const [group, line] of [["initialize", INITIALIZE], ["server/discover", DISCOVER]] as const) {
  for (const [name, script] of Object.entries(SERVERS)) {
    Deno.bench({
      name: `${name}: spawn → ${group}`,
      group,
      baseline: name !== "parkour",
      n: 10,
      warmup: 2,
      async fn() {
        await firstAnswer(script, line);
      },
    });
  }
}

if (import.meta.main) {
  const runs = Number(Deno.args[0] ?? 5);
  for (
    const [group, line] of [["initialize", INITIALIZE], ["server/discover", DISCOVER]] as const
  ) {
    const medians: Record<string, number> = {};
    for (const [name, script] of Object.entries(SERVERS)) {
      await firstAnswer(script, line); // warm the module cache
      const times: number[] = [];
      for (let i = 0; i < runs; i++) {
        const t = performance.now();
        await firstAnswer(script, line);
        times.push(performance.now() - t);
      }
      times.sort((a, b) => a - b);
      medians[name] = times[Math.floor(times.length / 2)];
      console.log(
        `${group.padEnd(16)} ${name.padEnd(15)} median ${medians[name].toFixed(0)} ms of ${runs} (${
          times.map((t) => t.toFixed(0)).join(", ")
        })`,
      );
    }
    for (const name of Object.keys(SERVERS).filter((n) => n.startsWith("parkour"))) {
      console.log(
        `${group.padEnd(16)} ratio ${name} / bare SDK = ${
          (medians[name] / medians["bare SDK v2"]).toFixed(2)
        }`,
      );
    }
  }
  for (
    const [name, script, args] of [
      ["parkour --version", `${ROOT_DIR}/main.ts`, ["--version"]],
      ...(hasBundle ? [["bundle --version", BUNDLE, ["--version"]]] : []),
      ["empty Deno script", EMPTY_SCRIPT, []],
    ] as [string, string, string[]][]
  ) {
    await runToEnd(script, args);
    const runsOf = [];
    for (let i = 0; i < runs; i++) runsOf.push(await runToEnd(script, args));
    runsOf.sort((a, b) => a.ms - b.ms);
    const mid = runsOf[Math.floor(runsOf.length / 2)];
    console.log(
      `${name.padEnd(33)} median ${mid.ms.toFixed(0)} ms, ${mid.mib.toFixed(0)} MiB peak RSS`,
    );
  }
}
