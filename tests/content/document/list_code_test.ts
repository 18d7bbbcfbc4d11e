/**
 * A list item whose first child is code: the converter writes its fence on
 * the item's own line (`- ```` or `1. ````, as CommonMark allows), and the
 * closing fence indented under it. Read through the CLI on
 * `fixtures/pages/list_code_spec.html`, an invented specification made
 * like RFC 7616's HTML (a parameter's definition holds two code blocks in a
 * list item; RFC 7616 lost 30 of its 51 sections to it):
 *
 * - the outline keeps every heading after such a list (the fence opened on
 *   the item's line was not seen, so its closing fence opened one and the
 *   headings after it counted as code);
 * - a long list whose first item is code is still cut into its items for
 *   questions (it was one block, cut from its top);
 * - the page's blocks, which slices and the question index are made of, keep
 *   code and text apart after it (they were out of phase to the end: text
 *   counted as code, and code as text).
 */
import assert from "node:assert/strict";
import { MAIN, ROOT_DIR, runCli } from "../../support/process.ts";
import { askPage } from "../../support/ask.ts";

const PAGE = `${ROOT_DIR}/fixtures/pages/list_code_spec.html`;

Deno.test("list code: the outline keeps the headings after a list item that opens with code", async () => {
  const r = await runCli(["sections", PAGE, "--format", "json"], {}, MAIN, [
    `--allow-read=${ROOT_DIR}/fixtures`,
  ]);
  assert.equal(r.code, 0, r.stderr);
  const sections = JSON.parse(r.stdout).sections as {
    title: string;
    level: number;
    parent: number;
  }[];
  const titles = sections.map((s) => s.title);
  for (
    const title of [
      "1. Parameters",
      "2. Signal Operation",
      "3. Security Considerations",
      "3.1. Storing Colours",
      "4. Tower Steps",
      "9. Supplies",
    ]
  ) {
    assert.ok(titles.includes(title), `${title} in ${JSON.stringify(titles)}`);
  }
  const storing = sections.find((s) => s.title === "3.1. Storing Colours")!;
  assert.equal(sections[storing.parent].title, "3. Security Considerations");
  assert.equal(storing.level, 3);
});

Deno.test("list code: a long list whose first item is code is cut into its items for a question", async () => {
  for (const budget of [80, 150]) {
    const text = await askPage(
      "list_code_spec.html",
      "when does the keeper raise the red shutter",
      budget,
    );
    assert.match(
      text,
      /The keeper raises the red shutter only when a wreck lies across the channel mouth\./,
    );
    assert.doesNotMatch(
      text,
      /first_lit/,
      `at ${budget} tokens the list's opening code is not the answer`,
    );
  }
});

Deno.test("list code: a search hit after such lists is labelled with its own section", async () => {
  const r = await runCli(["fetch", PAGE, "--search", "crate", "--format", "json"], {}, MAIN, [
    `--allow-read=${ROOT_DIR}/fixtures`,
  ]);
  assert.equal(r.code, 0, r.stderr);
  const text = JSON.parse(r.stdout).content[0] as string;
  assert.match(text, /^--- slice \d+ \(Lantern Signal Digest > 9\. Supplies\) ---$/m);
  assert.match(text, /the keeper counts each crate against the list/);
});
