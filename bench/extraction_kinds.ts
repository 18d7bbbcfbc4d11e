/**
 * Where main-content extraction drops text on pages that are not news
 * articles: the project's own fixture pages (documentation, a forum thread,
 * a README, a data table, a code view, a guide, an article) and, when
 * PARKOUR_SHARED_DIR is set, the three real specification pages. For each
 * page: the share of text left out, sections, code blocks and tables kept
 * out of the whole page's, and the headings of the sections lost.
 *
 * ```sh
 * [PARKOUR_SHARED_DIR=/path/to/shared] deno run -A bench/extraction_kinds.ts
 * ```
 */
import { htmlDocument } from "../lib/content/pipeline.ts";
import { realPageHtml, sharedDir } from "../tests/support/shared.ts";

const ROOT = new URL("../", import.meta.url);
const pages: { name: string; html: () => Promise<string> }[] = [];
for await (const entry of Deno.readDir(new URL("fixtures/pages/", ROOT))) {
  if (!entry.name.endsWith(".html")) continue;
  pages.push({
    name: entry.name,
    html: () => Deno.readTextFile(new URL(`fixtures/pages/${entry.name}`, ROOT)),
  });
}
pages.sort((a, b) => a.name.localeCompare(b.name));
const shared = sharedDir();
if (shared) {
  for (const name of ["pep_8", "ecma262", "whatwg_html"]) {
    pages.push({
      name: `${name} (real)`,
      html: () => realPageHtml(name),
    });
  }
} else console.error("real pages SKIPPED: set PARKOUR_SHARED_DIR to include them");

const count = (markdown: string, re: RegExp) => (markdown.match(re) ?? []).length;
const CODE = /^```\S*$/gm;
const TABLE = /^\| ?-{3}/gm;

console.log(
  "| page | text left out | sections kept | code blocks kept | tables kept | sections lost |",
);
console.log("| --- | ---: | ---: | ---: | ---: | --- |");
for (const page of pages) {
  const html = await page.html();
  const selected = htmlDocument(html, "https://pages.example/");
  const full = htmlDocument(html, "https://pages.example/", { fullPage: true });
  const kept = new Set(selected.sections.map((s) => s.title));
  const lost = full.sections.map((s) => s.title).filter((t) => !kept.has(t));
  const ratio = (a: number, b: number) => `${a}/${b}`;
  console.log(
    `| ${page.name} | ${Math.round(selected.droppedShare * 100)}% | ${
      ratio(selected.sections.length, full.sections.length)
    } | ${ratio(count(selected.markdown, CODE) / 2, count(full.markdown, CODE) / 2)} | ${
      ratio(count(selected.markdown, TABLE), count(full.markdown, TABLE))
    } | ${lost.length > 8 ? lost.slice(0, 8).join("; ") + "; …" : lost.join("; ") || "none"} |`,
  );
}
