/**
 * Main-content extraction rules found on pages no rule was tuned on
 * (`bench/extraction_untuned.ts`, its even half read): one page of each
 * kind, written for these tests (`fixtures/pages/`), read through the CLI
 * (`fetch FILE --format markdown`) as the user receives it. Each test fails
 * without its rule.
 */
import assert from "node:assert/strict";
import { MAIN, ROOT_DIR, runCli } from "../../support/process.ts";

async function markdown(name: string): Promise<string> {
  const { code, stdout, stderr } = await runCli(
    ["fetch", `${ROOT_DIR}/fixtures/pages/${name}.html`, "--format", "markdown"],
    {},
    MAIN,
    [`--allow-read=${ROOT_DIR}/fixtures`],
  );
  assert.equal(code, 0, stderr);
  return stdout;
}

function hasAll(text: string, parts: string[]) {
  for (const p of parts) assert.ok(text.includes(p), `returned: ${p}\n---\n${text}`);
}

function hasNone(text: string, parts: string[]) {
  for (const p of parts) assert.ok(!text.includes(p), `left out: ${p}\n---\n${text}`);
}

Deno.test("untuned kinds: an author box (author-box, author-info) inside the article goes", async () => {
  const text = await markdown("author_box");
  hasAll(text, ["forty trees of varieties", "lends a hand at the press"]);
  hasNone(text, ["About Ines Calder", "keeps bees at the top of the lane", "country desk"]);
});

Deno.test("untuned kinds: furniture labels in other languages go as the English ones do", async () => {
  const text = await markdown("labels_de");
  hasAll(text, ["Die neue Fähre zwischen Nordufer", "wie beim Bus der Stadtwerke"]);
  hasNone(text, ["Lesen Sie auch", "Rampe am Nordufer wird gesperrt", "Weitere Artikel", "Zurück"]);
});
