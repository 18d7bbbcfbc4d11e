/**
 * One page through one checkout's pipeline in-process, stage by stage, to
 * see where a shape of `bench/hostile_pages.ts` spends its time (run it in
 * a process of its own, so every page starts from a clean heap; `--root`
 * runs another checkout's modules). Prints one JSON line: the milliseconds
 * of each stage.
 *
 * ```sh
 * deno run -A --config deno.dev.json bench/hostile_run.ts --root . --page links --mb 4
 * deno run -A --config deno.dev.json bench/hostile_run.ts --root ../baseline --page ecma262
 * ```
 *
 * Stages, as a worker and a first answer run them: `convert` (HTML to
 * Markdown, main content selected), `document` (the section tree and the
 * token counts), `indexes` (slices, the search index and the question
 * index), `answers` (an outline, the page at the default budget, a search
 * and a question, each through the view and counted in o200k).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { HOSTILE_SHAPES } from "../tests/support/hostile_pages.ts";
import { gunzipFile, sharedDir } from "../tests/support/shared.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    root: { type: "string", default: "." },
    page: { type: "string" },
    mb: { type: "string", default: "4" },
  },
});
const root = new URL(`${values.root!.replace(/\/?$/, "/")}`, `file://${Deno.cwd()}/`);
const load = (path: string) => import(new URL(path, root).href);

const REAL: Record<string, string> = {
  pep_8: "https://peps.python.org/pep-0008/",
  ecma262: "https://tc39.es/ecma262/",
  whatwg_html: "https://html.spec.whatwg.org/",
};

let html: string;
let url = "https://example.org/hostile";
if (values.page! in REAL) {
  const shared = sharedDir();
  if (!shared) throw new Error("set PARKOUR_SHARED_DIR for the real pages");
  html = new TextDecoder().decode(
    await gunzipFile(`${shared}/fixtures/real/${values.page}.html.gz`),
  );
  url = REAL[values.page!];
} else {
  const shape = HOSTILE_SHAPES.find((s) => s.name === values.page);
  if (!shape) throw new Error(`no page or shape ${values.page}`);
  html = shape.page(Number(values.mb) * 1e6);
}

const { convertHtml } = await load("lib/content/convert/html.ts");
const { buildSections } = await load("lib/content/document/sections.ts");
const { Document, sectionFeatures, tokensFromFeatures } = await load(
  "lib/content/document/document.ts",
);
const { queryIndex } = await load("lib/content/question/extract.ts");
const { view, outline } = await load("lib/views/view.ts");
const { tokenizerReady } = await load("lib/content/tokens/count.ts");
await tokenizerReady();

const ms: Record<string, number> = {};
let t = performance.now();
const lap = (stage: string) => {
  const now = performance.now();
  ms[stage] = Math.round(now - t);
  t = now;
};
const { anchors, ...init } = convertHtml(html, url, {});
lap("convert");
const sections = buildSections(init.markdown, anchors);
const features = sectionFeatures(init.markdown, sections);
const tokens = tokensFromFeatures(init.markdown, sections, features);
const doc = new Document({ ...init, anchors }, { sections, tokens, sectionFeatures: features });
lap("document");
void doc.index;
queryIndex(doc);
lap("indexes");
const base = { url, max_tokens: 5000 };
outline(doc, {});
view(doc, base);
view(doc, { ...base, search: "alpha link" });
view(doc, { ...base, query: "what does the page say about links?", max_tokens: 600 });
lap("answers");
console.log(JSON.stringify({
  bytes: new TextEncoder().encode(html).length,
  markdown: init.markdown.length,
  sections: sections.length,
  ms,
}));
