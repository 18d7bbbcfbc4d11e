/**
 * A window of a slice around a search hit (`windowAround`): within its room
 * in real tokens, holding the matched words, its cut edges marked, its code
 * blocks closed, and otherwise the slice's own text in order.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { ELISION, windowAround } from "../../../lib/content/document/window.ts";
import { queryMatches } from "../../../lib/content/search/matches.ts";
import { countTokensSync, tokenizerReady } from "../../../lib/content/tokens/count.ts";

const sentence = fc.array(
  fc.constantFrom(
    "the",
    "widget",
    "torque",
    "gear",
    "δέλτα",
    "ω",
    "1234",
    "ウィジェット",
    "部品です",
  ),
  { minLength: 3, maxLength: 25 },
).map((w) => w.join(" ") + ".");
const block = fc.oneof(
  fc.array(sentence, { minLength: 1, maxLength: 6 }).map((s) => s.join(" ")),
  fc.constant("```python\ndef fit(widget):\n    return widget.size > 0\n```"),
  fc.constant("| Size | Use |\n| --- | --- |\n| S | toys |\n| M | bikes |\n| L | cars |"),
  fc.constant("- one item\n- another item\n  - nested"),
  fc.integer({ min: 1, max: 3 }).map((n) => `${"#".repeat(n)} A heading`),
);
const slice = fc.array(block, { minLength: 2, maxLength: 30 }).map((b) => b.join("\n\n"));

Deno.test("window: holds the hit within its room, marks its cuts and closes its code", async () => {
  await tokenizerReady();
  fc.assert(
    fc.property(
      slice,
      fc.constantFrom("torque", "gear", "δέλτα", "部品", "fit", "cars"),
      fc.integer({ min: 12, max: 300 }),
      (text, word, room) => {
        const matches = queryMatches(word, text);
        const w = windowAround(text, matches, room, countTokensSync);
        if (!w) return; // not even the matched words fit
        assert.ok(countTokensSync(w.text) <= room, "within its room");
        if (!w.cutBefore && !w.cutAfter) {
          assert.equal(w.text, text);
          return;
        }
        if (matches.length > 0) {
          assert.ok(w.text.toLowerCase().includes(word.toLowerCase()), `the hit\n${w.text}`);
        }
        assert.equal(w.text.startsWith(`${ELISION}\n\n`), w.cutBefore, "the top cut is marked");
        assert.equal(w.text.endsWith(`\n\n${ELISION}`), w.cutAfter, "the bottom cut is marked");
        const fences = (w.text.match(/^```/gm) ?? []).length;
        assert.equal(fences % 2, 0, `code blocks closed\n${w.text}`);
        // Every line of the window is a line of the slice, or a part of one, or what frames it.
        const lines = new Set(text.split("\n"));
        for (const line of w.text.split("\n")) {
          if (line === ELISION || line === "" || line.startsWith("```") || lines.has(line)) {
            continue;
          }
          assert.ok(text.includes(line), `from the slice: ${line}`);
        }
      },
    ),
    { numRuns: 300 },
  );
});
