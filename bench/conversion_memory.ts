/**
 * Peak memory of one conversion, per page size: each page converted once
 * in a process of its own, the way the one-shot command converts it (the
 * bytes decoded and converted on the process's main thread, see
 * `convertOnThisThread`), then its slices and search index built; the
 * process's peak resident memory (VmHWM) after the Document and after its
 * index, and that peak per byte of HTML (the process's own start, about
 * 50 MiB, included). Pages: made-up ones of 1, 4 and 16 MB
 * (tests/support/sized_pages.ts) and, with PARKOUR_SHARED_DIR, PEP 8,
 * ECMA-262 and WHATWG HTML. A runnable script (not a `deno bench` file):
 *
 * ```sh
 * PARKOUR_SHARED_DIR=/path/to/shared deno run -A --config deno.dev.json \
 *   bench/conversion_memory.ts [--baseline DIR] [--runs 3] [--v8-flags=...]
 * ```
 *
 * - `--baseline DIR` converts with another checkout's pipeline too (its
 *   `lib/`, loaded by the same child script), each page's runs alternating
 *   between the two; `--v8-flags=...` is given to every child (say
 *   `--max-semi-space-size=8`, as the one-shot tasks run).
 * - Medians over `--runs` runs. Memory figures vary little from run to run;
 *   the time column is the conversion's wall time and is noisy on a shared
 *   machine.
 * - The child is this file with `--child ROOT FILE`: it prints one JSON line.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { ROOT_DIR } from "../tests/support/process.ts";
import { gunzipFile, sharedDir } from "../tests/support/shared.ts";
import { sizedPage } from "../tests/support/sized_pages.ts";

const { values, positionals } = parseArgs({
  args: Deno.args,
  allowPositionals: true,
  options: {
    child: { type: "boolean", default: false },
    baseline: { type: "string" },
    runs: { type: "string", default: "3" },
    "v8-flags": { type: "string" },
  },
});

/** The process's peak resident memory so far, in MiB. */
function peakMiB(): number {
  const status = Deno.readTextFileSync("/proc/self/status");
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

interface Measure {
  startMiB: number;
  documentMiB: number;
  indexMiB: number;
  ms: number;
  markdownChars: number;
}

if (values.child) {
  const [root, file] = positionals;
  const { convertOnThisThread, toDocument } = await import(`${root}/lib/content/pipeline.ts`);
  const { decodeText, detectCharset } = await import(`${root}/lib/net/charset.ts`);
  convertOnThisThread();
  const startMiB = peakMiB();
  const bytes = await Deno.readFile(file);
  const t = performance.now();
  const doc = await toDocument({
    url: "https://page.test/",
    contentType: "text/html",
    bytes,
    text: () => decodeText(bytes, "text/html").text,
    encoding: () => detectCharset("text/html", bytes).encoding,
  });
  const ms = performance.now() - t;
  const documentMiB = peakMiB();
  void doc.index;
  const out: Measure = {
    startMiB,
    documentMiB,
    indexMiB: peakMiB(),
    ms,
    markdownChars: doc.markdown.length,
  };
  console.log(JSON.stringify(out));
  Deno.exit(0);
}

const tmp = await Deno.makeTempDir({ prefix: "parkour-conversion-memory-" });
const pages: { name: string; file: string; bytes: number }[] = [];
for (const mb of [1, 4, 16]) {
  const file = `${tmp}/made-up-${mb}mb.html`;
  await Deno.writeTextFile(file, sizedPage(mb * 1e6, 7));
  pages.push({ name: `made-up ${mb} MB`, file, bytes: (await Deno.stat(file)).size });
}
const shared = sharedDir();
if (shared) {
  for (const name of ["pep_8", "ecma262", "whatwg_html"]) {
    const file = `${tmp}/${name}.html`;
    await Deno.writeFile(file, await gunzipFile(`${shared}/fixtures/real/${name}.html.gz`));
    pages.push({ name, file, bytes: (await Deno.stat(file)).size });
  }
} else console.log("PARKOUR_SHARED_DIR not set: made-up pages only");

const roots: { label: string; dir: string }[] = [{ label: "this checkout", dir: ROOT_DIR }];
if (values.baseline) {
  roots.unshift({ label: "baseline", dir: await Deno.realPath(values.baseline) });
}

async function measure(dir: string, file: string): Promise<Measure> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--config",
      `${dir}/deno.json`,
      ...(values["v8-flags"] ? [`--v8-flags=${values["v8-flags"]}`] : []),
      import.meta.filename!,
      "--child",
      dir,
      file,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error(`the conversion of ${file} with ${dir} failed`);
  return JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").pop()!);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const runs = Number(values.runs);
console.log(
  `\nPeak RSS of one conversion, median of ${runs} runs${
    values["v8-flags"] ? `, --v8-flags=${values["v8-flags"]}` : ""
  }, ${new Date().toISOString().slice(0, 16)}Z\n`,
);
console.log(
  "| page | HTML MB | checkout | start MiB | peak, Document MiB | peak, with index MiB | bytes per byte | conversion s |",
);
console.log("|---|---:|---|---:|---:|---:|---:|---:|");
for (const page of pages) {
  const results = new Map<string, Measure[]>(roots.map((r) => [r.dir, []]));
  for (let i = 0; i < runs; i++) {
    for (let k = 0; k < roots.length; k++) {
      const root = roots[(k + i) % roots.length];
      results.get(root.dir)!.push(await measure(root.dir, page.file));
    }
  }
  for (const root of roots) {
    const rs = results.get(root.dir)!;
    const m = (f: (r: Measure) => number) => median(rs.map(f));
    const peak = m((r) => r.indexMiB);
    console.log(
      `| ${page.name} | ${(page.bytes / 1e6).toFixed(2)} | ${root.label} | ${
        m((r) => r.startMiB).toFixed(0)
      } | ${m((r) => r.documentMiB).toFixed(0)} | ${peak.toFixed(0)} | ${
        (peak * 1024 * 1024 / page.bytes).toFixed(1)
      } | ${(m((r) => r.ms) / 1000).toFixed(2)} |`,
    );
  }
}
await Deno.remove(tmp, { recursive: true });
