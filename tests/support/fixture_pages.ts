/**
 * The Document of a saved page of `fixtures/pages`, converted in this
 * process as a page at `https://example.org/<name>` (for tests of what is
 * built from a page: its Markdown, counts, slices).
 */
import type { Document } from "../../lib/content/document/document.ts";
import { htmlDocument } from "../../lib/content/pipeline.ts";

/**
 * Saved pages of every kind the counts and slices meet: prose, a handbook,
 * specifications, a table, code, and tea pages in Japanese, Chinese,
 * Korean and Thai.
 */
export const COUNTED_PAGES = [
  "guide.html",
  "handbook.html",
  "signal_spec.html",
  "passage_spec.html",
  "data_table.html",
  "code_page.html",
  "tea_ja.html",
  "tea_zh.html",
  "tea_ko.html",
  "tea_th.html",
];

/** `fixtures/pages/<name>` as a Document. */
export async function fixturePage(name: string): Promise<Document> {
  const html = await Deno.readTextFile(new URL(`../../fixtures/pages/${name}`, import.meta.url));
  return htmlDocument(html, `https://example.org/${name}`);
}
