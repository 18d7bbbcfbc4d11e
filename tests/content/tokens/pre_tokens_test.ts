/**
 * The exact count made from the counts of pre-tokens is the encoder's:
 * on the fixture pages in every script (whole and windows cut anywhere,
 * twice, the second time from the counts kept), on random text of every
 * kind of character, after the kept counts were forgotten for room, and on
 * long runs (counted in parts, as the cut of a text counts them).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import {
  countTokensSync,
  LONG_RUN,
  PRE_TOKEN_CACHE_CHARS,
  prefixWithinSync,
  tokenizerReady,
} from "../../../lib/content/tokens/count.ts";
import { COUNTED_PAGES, fixturePage } from "../../support/fixture_pages.ts";

const exact = (text: string) => encode(text, { disallowedSpecial: new Set() }).length;

Deno.test("pre-tokens: the fixture pages count as the encoder counts them, whole and cut anywhere", async () => {
  await tokenizerReady();
  const pages: string[] = [];
  for (const name of COUNTED_PAGES) pages.push((await fixturePage(name)).markdown);
  for (const md of pages) {
    assert.equal(countTokensSync(md), exact(md));
    assert.equal(countTokensSync(md), exact(md));
  }
  fc.assert(
    fc.property(fc.nat(pages.length - 1), fc.nat(), fc.nat(3000), (p, from, length) => {
      const a = from % Math.max(1, pages[p].length);
      const text = pages[p].slice(a, a + length);
      assert.equal(countTokensSync(text), exact(text), JSON.stringify(text.slice(0, 80)));
    }),
    { numRuns: 300 },
  );
});

Deno.test("pre-tokens: random text of every kind of character counts as the encoder counts it", async () => {
  await tokenizerReady();
  const text = fc.oneof(
    fc.string({ maxLength: 200 }),
    fc.string({ unit: "grapheme", maxLength: 60 }),
    fc.string({ unit: "binary", maxLength: 60 }),
    fc.array(
      fc.constantFrom(
        "the",
        " The",
        "'s",
        "'LL",
        "don't",
        "123456",
        "\n",
        "\r\n",
        "\n\n/",
        "  ",
        "\t",
        "\u00a0",
        "//",
        "<|endoftext|>",
        "é",
        "e\u0301",
        "😀",
        "漢字",
        "ไทย",
        "—",
      ),
      { maxLength: 80 },
    ).map((parts) => parts.join("")),
  );
  fc.assert(
    // Without U+FEFF, which gpt-tokenizer reads wrongly (see lib/content/tokens/o200k.ts).
    fc.property(text.filter((t) => !t.includes("\uFEFF")), (t) => {
      assert.equal(countTokensSync(t), exact(t), JSON.stringify(t));
    }),
    { numRuns: 1000 },
  );
});

Deno.test("pre-tokens: counts stay exact once the kept counts were forgotten for room", async () => {
  await tokenizerReady();
  // More different words than the kept counts hold, then words seen before and new ones.
  const words = Array.from({ length: PRE_TOKEN_CACHE_CHARS / 8 }, (_, i) => `w${i.toString(36)}x`);
  const text = words.join(" ");
  assert.equal(countTokensSync(text), exact(text));
  const again = words.slice(0, 5000).join(" ") + " ünïcödé 漢字 words";
  assert.equal(countTokensSync(again), exact(again));
});

Deno.test("pre-tokens: long runs count in parts, as a cut of the text counts them", async () => {
  await tokenizerReady();
  for (const unit of ["<", "ab", "—", "😀", " ", "-A>.", "漢"]) {
    for (const length of [LONG_RUN + 1, 3 * LONG_RUN + 7, 2000]) {
      const text = `intro ${unit.repeat(Math.ceil(length / unit.length))} outro\n`;
      const whole = prefixWithinSync(text, Number.MAX_SAFE_INTEGER);
      assert.equal(whole.trimmed, false);
      assert.equal(countTokensSync(text), whole.tokens, `${unit} x ${length}`);
    }
  }
});
