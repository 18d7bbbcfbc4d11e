/**
 * Code outlines on the real capture of CPython's `asyncio/base_events.py`
 * (about 2,000 lines): tree-sitter parse plus the definition walk, and the
 * whole source file Document (outline Markdown, sections). The first call
 * (runtime and grammar load, once per process) is timed separately and
 * printed. Run with `deno task bench`; needs PARKOUR_SHARED_DIR.
 */
import { codeDocument } from "../lib/content/code/files.ts";
import { languageOf } from "../lib/content/code/languages.ts";
import { outline } from "../lib/content/code/outline.ts";

const SHARED = Deno.env.get("PARKOUR_SHARED_DIR");
const FILE = `${SHARED}/fixtures/real/github_blob_cpython_base_events.py.gz`;

async function capture(): Promise<string> {
  const gz = await Deno.readFile(FILE);
  const stream = new Blob([gz as BlobPart]).stream().pipeThrough(new DecompressionStream("gzip"));
  return await new Response(stream).text();
}

const text = SHARED ? await capture() : "";
const python = languageOf("base_events.py")!;
if (SHARED) {
  const t0 = performance.now();
  await outline(text, python);
  console.error(
    `first outline (runtime + Python grammar load + parse): ${
      (performance.now() - t0).toFixed(0)
    } ms`,
  );
} else {
  console.error("code outline benchmarks SKIPPED: set PARKOUR_SHARED_DIR to the shared folder");
}

Deno.bench({
  name: "outline: base_events.py (parse + definitions)",
  group: "code",
  ignore: !SHARED,
  async fn() {
    await outline(text, python);
  },
});

Deno.bench({
  name: "codeDocument: base_events.py (outline + Markdown + sections)",
  group: "code",
  ignore: !SHARED,
  async fn() {
    await codeDocument({ url: "https://example.com/base_events.py", path: "base_events.py", text });
  },
});
