/**
 * Cold start: from process spawn to the first answer, for `initialize`
 * (2025 era) and `server/discover` (2026-07-28), measured against the bare
 * SDK v2 server as baseline. Both run with the start task's flags.
 *
 * `deno task bench` reports ratios; `deno run -A bench/cold_start_bench.ts 5`
 * prints the median of N spawns for each.
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

const SERVERS = {
  parkour: `${ROOT_DIR}/main.ts`,
  "bare SDK v2": `${ROOT_DIR}/bench/baselines/bare_sdk_server.ts`,
};

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
        `${group.padEnd(16)} ${name.padEnd(12)} median ${medians[name].toFixed(0)} ms of ${runs} (${
          times.map((t) => t.toFixed(0)).join(", ")
        })`,
      );
    }
    console.log(
      `${group.padEnd(16)} ratio parkour / bare SDK = ${
        (medians.parkour / medians["bare SDK v2"]).toFixed(2)
      }`,
    );
  }
}
