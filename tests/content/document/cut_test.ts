/**
 * Cutting a long page to a budget reads only as far as the budget reaches:
 * `blocks` with a stop ends at the first block the stop accepts, and
 * `cutToBudget` (which uses it, and measures only the block it cuts inside)
 * returns what cutting the whole page would, within the budget; with the
 * o200k tables (`exact`), the cut holds the budget in real tokens and fills
 * nine tenths of it, and a code block cut inside is closed again.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { blocks } from "../../../lib/content/document/slices.ts";
import { cutToBudget } from "../../../lib/content/document/views.ts";
import {
  countTokensSync,
  estimateTokens,
  tokenizerReady,
  tokenWeight,
  truncateToTokens,
} from "../../../lib/content/tokens/count.ts";

const paragraph = fc.oneof(
  fc.array(fc.constantFrom("alpha", "beta", "gamma", "δέλτα", "ε", "1234", "x_y", "—"), {
    minLength: 1,
    maxLength: 60,
  }).map((w) => w.join(" ")),
  fc.constant("```\ncode line\n\nmore code\n```"),
  fc.integer({ min: 1, max: 3 }).map((n) => `${"#".repeat(n)} Heading`),
  fc.constant("| a | b |\n|---|---|\n| 1 | 2 |"),
);
const markdown = fc.array(paragraph, { minLength: 1, maxLength: 40 }).map((p) => p.join("\n\n"));

/** The cut as it was made before: every block split, the rest of the page measured. */
function wholeCut(md: string, maxTokens: number): string {
  let used = 0;
  let end = 0;
  for (const b of blocks(md)) {
    const cost = tokenWeight(md.slice(end, b.end));
    if (used + cost > maxTokens) break;
    used += cost;
    end = b.end;
  }
  let text = md.slice(0, end).trimEnd();
  if (used < maxTokens * 0.8) {
    text = md.slice(0, end) + truncateToTokens(md.slice(end), Math.floor(maxTokens - used));
  }
  return text.trimEnd();
}

Deno.test("cut: blocks with a stop end at the first block it accepts", () => {
  fc.assert(fc.property(markdown, fc.nat(50), (md, k) => {
    const all = blocks(md);
    let seen = 0;
    const some = blocks(md, () => seen++ === k);
    assert.deepEqual(some, all.slice(0, k + 1));
  }));
});

Deno.test("cut: a cut measured block by block equals the whole-page cut, within the budget", () => {
  fc.assert(fc.property(markdown, fc.integer({ min: 5, max: 400 }), (md, budget) => {
    const c = cutToBudget(md, budget);
    if (!c.truncated) return;
    assert.equal(c.text, wholeCut(md, budget));
    assert.ok(estimateTokens(c.text) <= budget + 2, `${estimateTokens(c.text)} > ${budget}`);
  }));
});

Deno.test("cut: an exact cut holds the budget in real tokens and fills nine tenths of it", async () => {
  await tokenizerReady();
  const long = fc.array(paragraph, { minLength: 10, maxLength: 60 }).map((p) => p.join("\n\n"));
  fc.assert(
    fc.property(long, fc.integer({ min: 20, max: 400 }), (md, budget) => {
      const c = cutToBudget(md, budget, estimateTokens(md), true);
      const real = countTokensSync(c.text);
      assert.ok(real <= budget, `${real} > ${budget}`);
      if (!c.truncated) {
        assert.equal(c.text, md);
        return;
      }
      assert.equal(c.keptTokens, real);
      // A prefix of the page, but for the fence that closes a code block cut inside.
      const open = (c.text.match(/^```/gm) ?? []).length;
      assert.equal(open % 2, 0, `every code block is closed\n${c.text}`);
      const prefix = c.text.endsWith("\n```") && !md.startsWith(c.text)
        ? c.text.slice(0, -4)
        : c.text;
      assert.ok(md.startsWith(prefix), "a prefix of the page");
      // Nine tenths, unless what follows is a code block or a table too long to show a line of.
      const next = md.slice(prefix.length).trimStart();
      assert.ok(
        real >= budget * 0.9 - 2 || next.startsWith("```") || next.startsWith("|"),
        `${real} < 0.9 × ${budget}\n${c.text}`,
      );
    }),
    { numRuns: 500 },
  );
});
