/**
 * What a cached Document holds: the retained heap of pages of every size
 * (made-up ones from 10 KB to 4 MB, and the shared real pages when
 * PARKOUR_SHARED_DIR is set), every index built, beside what
 * `Document.approxBytes()` counts for the page cache's bound. A runnable
 * script (not a `deno bench` file):
 *
 * ```sh
 * deno run -A bench/document_memory.ts
 * ```
 *
 * The measuring runs in a child with `--expose-gc` (tests/support/document_heap.ts).
 *
 * @module
 */
import { childEnv, ROOT_DIR } from "../tests/support/process.ts";
import { sharedDir } from "../tests/support/shared.ts";

const pages = [10e3, 50e3, 200e3, 1e6, 4e6].map((b) => `synthetic:${b}`);
const shared = sharedDir();
if (shared) {
  for (const name of ["pep_8", "ecma262", "whatwg_html"]) {
    pages.push(`${shared}/fixtures/real/${name}.html.gz`);
  }
} else console.log("PARKOUR_SHARED_DIR not set: made-up pages only");

console.log("| page | HTML KB | Markdown KB | retained KB | counted KB | retained / counted |");
console.log("|---|---:|---:|---:|---:|---:|");
for (const page of pages) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-env",
      "--v8-flags=--expose-gc",
      `${ROOT_DIR}/tests/support/document_heap.ts`,
      page,
    ],
    env: childEnv(),
    clearEnv: true,
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const r = JSON.parse(new TextDecoder().decode(out.stdout));
  const kb = (n: number) => (n / 1024).toFixed(0);
  console.log(
    `| ${page.split("/").pop()} | ${kb(r.htmlBytes)} | ${kb(r.markdownChars)} | ${
      kb(r.retained)
    } | ${kb(r.approx)} | ${(r.retained / r.approx).toFixed(2)} |`,
  );
}
