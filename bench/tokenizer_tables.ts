/**
 * The o200k tables of lib/content/tokens/o200k.ts beside gpt-tokenizer's
 * encoding module (what the exact counts used before), each loaded in a
 * fresh process: the time to load, the process's peak and current resident
 * memory once loaded, before anything else (`VmHWM`, `VmRSS`; a bare
 * process holds about 30 MiB), the time to encode real pages
 * (three times, median), and a full collection afterwards (the pause a
 * server's forced collection costs, with the tables on the heap). Rounds
 * alternate the two; the figures are medians over the rounds.
 *
 * ```sh
 * PARKOUR_SHARED_DIR=/work/shared deno run -A --unstable-raw-imports bench/tokenizer_tables.ts [--rounds 5]
 * ```
 *
 * It encodes PEP 8, ECMA-262 and WHATWG HTML from the shared captures (9 MB of Markdown),
 * or made-up pages of every size without them. Both encoders read special tokens as text.
 *
 * @module
 */
import { parseArgs } from "node:util";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    rounds: { type: "string", default: "5" },
    child: { type: "string" },
  },
});

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function memory(): { peak: number; now: number } {
  const status = Deno.readTextFileSync("/proc/self/status");
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return { peak: kb("VmHWM") / 1024, now: kb("VmRSS") / 1024 };
}

interface Figures {
  load: number;
  peak: number;
  rss: number;
  encode: number;
  collect: number;
  tokens: number;
}

if (values.child !== undefined) {
  // One process, one encoder: load it, then encode the pages three times, then time collections.
  const { collectNow } = await import("../lib/runtime/memory.ts");
  const start = performance.now();
  let encode: (text: string) => number[];
  if (values.child === "gpt-tokenizer") {
    const m = await import("gpt-tokenizer/encoding/o200k_base");
    const asText = { disallowedSpecial: new Set<string>() };
    encode = (text) => m.encode(text, asText);
  } else {
    const { loadO200k } = await import("../lib/content/tokens/o200k.ts");
    const tables = await loadO200k();
    encode = (text) => tables.encode(text);
  }
  encode("a first word");
  const load = performance.now() - start;
  const loaded = memory();
  const { htmlDocument } = await import("../lib/content/pipeline.ts");
  const { sharedDir, realPageHtml } = await import("../tests/support/shared.ts");
  const { sizedPage } = await import("../tests/support/sized_pages.ts");
  const pages = sharedDir()
    ? await Promise.all(["pep_8", "ecma262", "whatwg_html"].map((n) => realPageHtml(n)))
    : [10e3, 200e3, 1e6, 4e6].map((b) => sizedPage(b, b));
  const texts = pages.map((html, i) => htmlDocument(html, `https://bench.test/${i}`).markdown);
  const encodes: number[] = [];
  let tokens = 0;
  for (let r = 0; r < 3; r++) {
    const t = performance.now();
    tokens = 0;
    for (const text of texts) tokens += encode(text).length;
    encodes.push(performance.now() - t);
  }
  const collections: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t = performance.now();
    await collectNow();
    collections.push(performance.now() - t);
  }
  const figures: Figures = {
    load,
    peak: loaded.peak,
    rss: loaded.now,
    encode: median(encodes),
    collect: median(collections),
    tokens,
  };
  console.log(JSON.stringify(figures));
  Deno.exit(0);
}

const rounds = Number(values.rounds);
const kinds = ["gpt-tokenizer", "ours"];
const runs = new Map<string, Figures[]>(kinds.map((k) => [k, []]));
for (let r = 0; r < rounds; r++) {
  for (const kind of r % 2 ? [...kinds].reverse() : kinds) {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--unstable-raw-imports", import.meta.filename!, "--child", kind],
      stderr: "inherit",
    }).output();
    runs.get(kind)!.push(
      JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!),
    );
  }
}
const m = (kind: string, key: keyof Figures) => median(runs.get(kind)!.map((f) => f[key]));
const tokens = kinds.map((k) => m(k, "tokens"));
console.log(
  `| o200k | load (ms) | process peak RSS once loaded (MiB) | RSS then (MiB) | encode the pages (ms) | full collection after (ms) |`,
);
console.log(`|---|---:|---:|---:|---:|---:|`);
for (const kind of kinds) {
  console.log(
    `| ${kind === "ours" ? "lib/content/tokens/o200k.ts" : "gpt-tokenizer 4.0.0"} | ${
      m(kind, "load").toFixed(0)
    } | ${m(kind, "peak").toFixed(0)} | ${m(kind, "rss").toFixed(0)} | ${
      m(kind, "encode").toFixed(0)
    } | ${m(kind, "collect").toFixed(1)} |`,
  );
}
const ratio = (key: keyof Figures) => (m("ours", key) / m("gpt-tokenizer", key)).toFixed(2);
console.log(
  `ours ÷ gpt-tokenizer over ${rounds} rounds (medians): load ${ratio("load")}, encode ${
    ratio("encode")
  }, collection ${ratio("collect")}; tokens ${tokens[1]} vs ${tokens[0]}` +
    (tokens[0] === tokens[1] ? " (the same)" : " (DIFFERENT)"),
);
