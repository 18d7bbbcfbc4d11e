/**
 * What importing the library entry costs: `import * as _ from "<checkout>/mod.ts"`
 * in a fresh process, timed from before the import to after it, with the
 * process's resident memory and V8 heap once it is done. Checkouts take
 * turns, run by run; each figure is the median of the runs.
 *
 * ```sh
 * git worktree add /tmp/before <commit>
 * deno run -A scripts/import_cost.ts /tmp/before . [--runs 5]
 * ```
 *
 * @module
 */
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
  args: Deno.args,
  options: { runs: { type: "string", default: "5" } },
  allowPositionals: true,
});
const runs = Number(values.runs);

/** One import in a fresh process (run with the checkout's own deno.json). */
const PROBE = `
const t0 = performance.now();
await import(Deno.args[0]);
const ms = performance.now() - t0;
const m = Deno.memoryUsage();
console.log(JSON.stringify({ ms, rss: m.rss, heap: m.heapUsed }));
`;

interface Run {
  ms: number;
  rss: number;
  heap: number;
}

async function once(checkout: string, probe: string): Promise<Run> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", `${checkout}/deno.json`, probe, `file://${checkout}/mod.ts`],
    cwd: checkout,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

const median = (xs: number[]) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)];
const checkouts = positionals.map((p) => Deno.realPathSync(p));
const probe = await Deno.makeTempFile({ suffix: ".ts" });
await Deno.writeTextFile(probe, PROBE);
const results = new Map<string, Run[]>(checkouts.map((c) => [c, []]));
// One warm-up each (npm packages installed, code cached), then the runs in turns.
for (const c of checkouts) await once(c, probe);
for (let i = 0; i < runs; i++) {
  for (const c of checkouts) results.get(c)!.push(await once(c, probe));
}
await Deno.remove(probe);
const MIB = 1024 * 1024;
for (const [c, rs] of results) {
  console.log(
    `${c}: ${median(rs.map((r) => r.ms)).toFixed(0)} ms, RSS ${
      (median(rs.map((r) => r.rss)) / MIB).toFixed(1)
    } MiB, heap ${(median(rs.map((r) => r.heap)) / MIB).toFixed(1)} MiB (median of ${rs.length})`,
  );
}
