/**
 * The Document of a saved page of `fixtures/pages`, converted in this
 * process as a page at `https://example.org/<name>` (for tests of what is
 * built from a page: its Markdown, counts, slices).
 */
import type { Document } from "../../lib/content/document/document.ts";
import { htmlDocument } from "../../lib/content/pipeline.ts";

/** `fixtures/pages/<name>` as a Document. */
export async function fixturePage(name: string): Promise<Document> {
  const html = await Deno.readTextFile(new URL(`../../fixtures/pages/${name}`, import.meta.url));
  return htmlDocument(html, `https://example.org/${name}`);
}
