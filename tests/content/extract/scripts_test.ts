/**
 * Main-content extraction in every script, as the user receives it: the
 * same small page (a title, two lines of introduction, three short sections
 * of one-sentence lines, as an editor writes them, inside a site header,
 * menu and footer) in English, Japanese, Chinese, Korean and Thai, read
 * through the CLI (`fetch FILE --format markdown`). Each comes back whole:
 * its title, every section and every line, without the site's furniture.
 *
 * A sentence of twenty characters is a fragment in English and a whole
 * sentence in Chinese or Japanese; a Thai sentence ends with no mark and
 * has no spaces between its words. Lengths and word counts made for Latin
 * once left out the title and two of the three sections of the Chinese,
 * Japanese and Korean pages, and the short lines of the Thai one.
 */
import assert from "node:assert/strict";
import { MAIN, ROOT_DIR, runCli } from "../../support/process.ts";

const PAGES = `${ROOT_DIR}/fixtures/pages`;

/** The page's text as the CLI prints it for `fetch FILE --format markdown`. */
async function markdown(name: string): Promise<string> {
  const { code, stdout, stderr } = await runCli(
    ["fetch", `${PAGES}/${name}.html`, "--format", "markdown"],
    {},
    MAIN,
    [`--allow-read=${ROOT_DIR}/fixtures`],
  );
  assert.equal(code, 0, stderr);
  return stdout;
}

/** Every heading and line of the page's `<main>`, and the text of what is around it. */
async function parts(name: string): Promise<{ content: string[]; furniture: string[] }> {
  const html = await Deno.readTextFile(`${PAGES}/${name}.html`);
  const [before, rest] = html.split("<main>");
  const [main, after] = rest.split("</main>");
  const texts = (s: string) =>
    [...s.matchAll(/<(h1|h2|div|a|p)\b[^>]*>([^<]+)</g)].map((m) => m[2].trim());
  const content = [...main.matchAll(/<(h1|h2|div)>([^<]+)</g)].map((m) =>
    (m[1] === "h1" ? "# " : m[1] === "h2" ? "## " : "") + m[2].trim()
  );
  return { content, furniture: [...texts(before.split("<body>")[1]), ...texts(after)] };
}

for (
  const [name, language] of [
    ["tea_en", "English"],
    ["tea_ja", "Japanese"],
    ["tea_zh", "Chinese"],
    ["tea_ko", "Korean"],
    ["tea_th", "Thai"],
  ] as const
) {
  Deno.test(`extraction in every script: a simple page in ${language} comes back whole, without its furniture`, async () => {
    const text = await markdown(name);
    const lines = new Set(text.split("\n").map((l) => l.trim()));
    const { content, furniture } = await parts(name);
    assert.ok(content.length >= 14, `${name}: the page's lines were read`);
    const lost = content.filter((line) => !lines.has(line));
    assert.deepEqual(lost, [], `${name}: lines left out\n---\n${text}`);
    // In the page's order.
    const at = content.map((line) => text.indexOf(line));
    assert.deepEqual(at, [...at].sort((a, b) => a - b), `${name}: in order`);
    assert.ok(furniture.length >= 4, `${name}: the furniture was read`);
    for (const f of furniture) {
      assert.ok(!text.includes(f), `${name}: furniture left in: ${f}\n---\n${text}`);
    }
  });
}
