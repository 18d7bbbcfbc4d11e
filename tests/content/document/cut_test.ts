/**
 * Cutting a long page to a budget reads only as far as the budget reaches:
 * `blocks` with a stop ends at the first block the stop accepts, and
 * `cutToBudget` (which uses it, and measures only the block it cuts inside)
 * returns what cutting the whole page would, within the budget.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { blocks } from "../../../lib/content/document/slices.ts";
import { cutToBudget } from "../../../lib/content/document/views.ts";
import {
  estimateTokens,
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
