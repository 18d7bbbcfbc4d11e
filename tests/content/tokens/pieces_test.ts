/**
 * Counts made of kept line counts are the o200k counts of the whole text:
 * on the fixture pages in every script (whole, windows cut anywhere, their
 * paragraphs joined in random orders by the separators views write), and
 * on random texts built from the characters that can join a pre-token
 * across a line break (`/`, white space of every kind, punctuation before
 * the break, digits, apostrophes, surrogate halves); and a text followed by
 * a blank line counted from its own count.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { countTokensSync, tokenizerReady } from "../../../lib/content/tokens/count.ts";
import {
  countPiecesSync,
  countWithBreak,
  forgetPieceCounts,
} from "../../../lib/content/tokens/pieces.ts";
import { COUNTED_PAGES, fixturePage } from "../../support/fixture_pages.ts";

const PAGES = COUNTED_PAGES;
const SEPARATORS = [
  "\n",
  "\n\n",
  "\n\n\n",
  " \n\n",
  "\n\n/",
  "\n│\n│ ",
  "\n\n[…]\n\n",
  "\n\t",
  "\n\u00a0",
];

async function markdowns(): Promise<string[]> {
  const out: string[] = [];
  for (const name of PAGES) out.push((await fixturePage(name)).markdown);
  return out;
}

Deno.test("pieces: a text's count is the sum of its lines' on the fixture pages", async () => {
  await tokenizerReady();
  forgetPieceCounts();
  const pages = await markdowns();
  for (const md of pages) {
    assert.equal(countPiecesSync(md), countTokensSync(md));
    // Twice: the second from the counts kept.
    assert.equal(countPiecesSync(md), countTokensSync(md));
  }
  fc.assert(
    fc.property(
      fc.nat(PAGES.length - 1),
      fc.nat(),
      fc.nat(20_000),
      (p, from, length) => {
        const md = pages[p];
        const a = from % Math.max(1, md.length);
        const text = md.slice(a, a + length);
        assert.equal(
          countPiecesSync(text),
          countTokensSync(text),
          JSON.stringify(text.slice(0, 80)),
        );
      },
    ),
    { numRuns: 300 },
  );
  const paragraphs = pages.flatMap((md) => md.split("\n\n"));
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.nat(paragraphs.length - 1), fc.nat(SEPARATORS.length - 1)), {
        minLength: 1,
        maxLength: 30,
      }),
      (parts) => {
        const text = parts.map(([p, s], i) => (i > 0 ? SEPARATORS[s] : "") + paragraphs[p])
          .join("");
        assert.equal(countPiecesSync(text), countTokensSync(text));
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("pieces: the sum holds on texts made to join pre-tokens across line breaks", async () => {
  await tokenizerReady();
  forgetPieceCounts();
  const bits = [
    "\n",
    "\n\n",
    "/",
    "//",
    " ",
    "\t",
    "\u00a0",
    "\u2028",
    "\u3000",
    "\ufeff",
    ".",
    ")",
    "|",
    "`",
    "'s",
    "'",
    "123",
    "4567",
    "word",
    "Word",
    "ÉTÉ",
    "日本語",
    "😀",
    "\ud83d",
    "\ude00",
    "<|endoftext|>",
    "│ ",
    "--- slice 3 (A > B) ---",
    "[…]",
    "a".repeat(300),
    " ".repeat(300),
  ];
  fc.assert(
    fc.property(fc.array(fc.nat(bits.length - 1), { maxLength: 120 }), (picks) => {
      const text = picks.map((i) => bits[i]).join("");
      assert.equal(countPiecesSync(text), countTokensSync(text), JSON.stringify(text));
      // Followed by a blank line, from the text's own count.
      assert.equal(
        countWithBreak(text, countTokensSync(text)),
        countTokensSync(`${text}\n\n`),
        JSON.stringify(text),
      );
      // Counted again from what was kept.
      assert.equal(countPiecesSync(text), countTokensSync(text), JSON.stringify(text));
    }),
    { numRuns: 2000 },
  );
});
