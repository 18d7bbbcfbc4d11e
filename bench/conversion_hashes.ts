/**
 * What a conversion gives, hashed, so a change meant to be faster can be
 * shown to give the same bytes: for PEP 8, ECMA-262 and WHATWG HTML (the
 * shared captures), the article-extraction benchmark's pages
 * (`datasets/article-extraction/html/` of the shared folder) and every
 * `.html` file under `fixtures/`, converted with
 * the content selection and whole (`fullPage`), the SHA-256 of the
 * Markdown, the metadata (title, canonical URL, description, language, the
 * shell and dropped-share figures), the anchors' table, the section tree
 * (titles, slugs, levels, offsets, lines), the slices, the search index's
 * parts, the hits of a set of searches and the bodies of a few views; then
 * the query view's body for every question of `bench/questions/` on those
 * pages (the real ones and the articles) at 150, 600 and 2,000 tokens.
 *
 * ```sh
 * PARKOUR_SHARED_DIR=/path/to/shared deno run -A --config deno.dev.json \
 *   bench/conversion_hashes.ts --root /tmp/before-checkout --out /tmp/before.json
 * PARKOUR_SHARED_DIR=/path/to/shared deno run -A --config deno.dev.json \
 *   bench/conversion_hashes.ts --out /tmp/after.json
 * deno run -A --config deno.dev.json bench/conversion_hashes.ts --compare /tmp/before.json /tmp/after.json
 * ```
 *
 * `--root DIR` converts with another checkout's pipeline and views; the
 * pages and questions are this checkout's. Whole-page conversions of the
 * two large specifications hash their Markdown, metadata, anchors and
 * sections only (their index would double the run for little). `--compare
 * A B` prints the keys whose hashes differ (exit code 1 when any does).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { compareHashFiles } from "./hash_compare.ts";
import { ROOT_DIR } from "../tests/support/process.ts";
import { realPageHtml, sharedDir } from "../tests/support/shared.ts";
import { pageSource, readQuestions } from "./question_pages.ts";

const { values, positionals } = parseArgs({
  args: Deno.args,
  allowPositionals: true,
  options: {
    root: { type: "string", default: ROOT_DIR },
    out: { type: "string" },
    compare: { type: "boolean", default: false },
  },
});

type Hashes = Record<string, string>;

if (values.compare) await compareHashFiles<Hashes[string]>(positionals, (h) => h, "hashes");

if (!sharedDir()) {
  console.log("SKIPPED: set PARKOUR_SHARED_DIR to the shared folder");
  Deno.exit(0);
}

const root = `file://${await Deno.realPath(values.root!)}`;
const pipeline = await import(`${root}/lib/content/pipeline.ts`);
const views = await import(`${root}/lib/views/view.ts`);
const request = await import(`${root}/lib/views/request.ts`);
const tokens = await import(`${root}/lib/content/tokens/count.ts`);
await tokens.tokenizerReady();

/** The Document's surface this bench reads (another checkout's module is untyped). */
interface Doc {
  url: string;
  title: string;
  markdown: string;
  canonicalUrl?: string;
  description?: string;
  lang?: string;
  jsShell: boolean;
  droppedShare: number;
  anchors: { toParts(): unknown };
  sections: { title: string }[];
  slices: unknown[];
  index: {
    toParts(): { parts: unknown };
    search(query: string): unknown;
  };
}

const encoder = new TextEncoder();
/** SHA-256 of a string, or of a value as JSON (typed arrays as lists, maps as entries). */
async function hash(value: unknown): Promise<string> {
  const text = typeof value === "string" ? value : JSON.stringify(
    value,
    (_k, v) => ArrayBuffer.isView(v) ? Array.from(v as Uint8Array) : v instanceof Map ? [...v] : v,
  );
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

const REAL: Record<string, string> = {
  pep_8: "https://peps.python.org/pep-0008/",
  ecma262: "https://tc39.es/ecma262/",
  whatwg_html: "https://html.spec.whatwg.org/",
};
const pages: { name: string; url: string; html: string }[] = [];
for (const [name, url] of Object.entries(REAL)) {
  pages.push({ name, url, html: await realPageHtml(name) });
}
// The article-extraction benchmark's pages (news and blogs, where the content selection's
// rules work hardest), when the shared folder holds them.
const ARTICLES = `${sharedDir()}/datasets/article-extraction/html`;
const articles = await Array.fromAsync(Deno.readDir(ARTICLES)).catch(() => []);
for (const file of articles.map((e) => e.name).filter((n) => n.endsWith(".html.gz")).sort()) {
  const key = file.slice(0, -".html.gz".length);
  const { html, url } = await pageSource(`article:${key}`);
  pages.push({ name: `article:${key}`, url, html });
}
const FIXTURES = `${ROOT_DIR}/fixtures`;
function htmlFiles(dir: string): string[] {
  return [...Deno.readDirSync(dir)].flatMap((e) =>
    e.isDirectory
      ? htmlFiles(`${dir}/${e.name}`)
      : e.name.endsWith(".html")
      ? [`${dir}/${e.name}`]
      : []
  );
}
for (const file of htmlFiles(FIXTURES).sort()) {
  const name = file.slice(FIXTURES.length + 1);
  pages.push({ name, url: `https://example.com/${name}`, html: Deno.readTextFileSync(file) });
}

const SEARCHES = [
  "img alt",
  '"tree construction"',
  "+canvas +context",
  "atribute~",
  "(audio OR video) +autoplay",
  "parser -script",
  "function",
  "naming conventions",
  "the",
  "Promise resolve",
  "error",
];

function viewBody(doc: Doc, fields: Record<string, unknown>): string {
  try {
    const req = request.parseWith(request.pageRequestSchema, { url: doc.url, ...fields });
    return views.view(doc, req).body;
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

const out: Hashes = {};
const docs = new Map<string, Doc>();
for (const page of pages) {
  for (const fullPage of [false, true]) {
    const doc = pipeline.htmlDocument(page.html, page.url, { fullPage }) as Doc;
    if (!fullPage) docs.set(page.name, doc);
    const key = `${page.name}${fullPage ? " (whole page)" : ""}`;
    out[`${key} markdown`] = await hash(doc.markdown);
    out[`${key} metadata`] = await hash([
      doc.title,
      doc.canonicalUrl,
      doc.description,
      doc.lang,
      doc.jsShell,
      doc.droppedShare,
    ]);
    out[`${key} anchors`] = await hash(doc.anchors.toParts());
    out[`${key} sections`] = await hash(doc.sections);
    if (fullPage && page.html.length > 2_000_000) continue;
    out[`${key} slices`] = await hash(doc.slices);
    out[`${key} index`] = await hash(doc.index.toParts().parts);
    out[`${key} searches`] = await hash(SEARCHES.map((q) => doc.index.search(q)));
    const section = doc.sections[Math.min(3, doc.sections.length - 1)]?.title ?? "";
    out[`${key} views`] = await hash([
      viewBody(doc, {}),
      viewBody(doc, { search: "function" }),
      viewBody(doc, { search: "img alt" }),
      viewBody(doc, { section }),
    ]);
  }
}
let answers = 0;
for (const set of ["dev", "heldout", "tune_specs"]) {
  const list = await readQuestions(`${ROOT_DIR}/bench/questions/${set}.json`);
  for (let n = 0; n < list.length; n++) {
    const q = list[n];
    const doc = docs.get(q.page.startsWith("real:") ? q.page.slice(5) : q.page);
    if (!doc) continue;
    for (const budget of [150, 600, 2000]) {
      out[`${set}#${n}@${budget}`] = await hash(
        viewBody(doc, { query: q.question, max_tokens: budget }),
      );
      answers++;
    }
  }
}
console.log(
  `${pages.length} pages (${
    Object.keys(out).length - answers
  } hashes) and ${answers} answers from ${values
    .root!}`,
);
if (values.out) await Deno.writeTextFile(values.out, JSON.stringify(out, null, 1));
