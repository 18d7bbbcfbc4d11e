/**
 * Long runs (a paragraph of 900,000 `<`, a 4 MB word) are encoded in parts
 * of LONG_RUN characters, since the encoder's merge is quadratic in a
 * piece: the count (a token added per cut) is never under the real one and
 * at most a quarter over it, a cut of such a text holds its budget and is
 * a prefix of it. Text without a long run is counted as before, exactly.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import {
  countTokensSync,
  LONG_RUN,
  prefixWithinSync,
  tokenizerReady,
} from "../../../lib/content/tokens/count.ts";

const exact = (text: string) => encode(text, { disallowedSpecial: new Set() }).length;

Deno.test("tokens: a run longer than LONG_RUN counts no less than o200k, at most a quarter more", async () => {
  await tokenizerReady();
  for (const unit of ["<", "a", "ab", "—", "😀", " ", "-=", "-A>.", "ab1", "漢"]) {
    for (const length of [LONG_RUN + 1, 3 * LONG_RUN + 7, 2000, 1696]) {
      const text = unit.repeat(Math.ceil(length / unit.length));
      const ours = countTokensSync(text);
      const real = exact(text);
      assert.ok(
        ours >= real && ours <= Math.ceil(real * 1.25) + 2,
        `${unit} x ${length}: ${ours} for ${real}`,
      );
    }
  }
});

Deno.test("tokens: text without a long run counts exactly as o200k does", async () => {
  await tokenizerReady();
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom("alpha", "beta", "<<", "12345", "δέλτα", "漢字", "—", "\n", "  "), {
        maxLength: 400,
      }),
      (words) => {
        const text = words.join(" ");
        return countTokensSync(text) === exact(text);
      },
    ),
    { numRuns: 200 },
  );
});

Deno.test("tokens: a cut of a huge run is a prefix within the budget", async () => {
  await tokenizerReady();
  for (const text of ["<".repeat(900_000), "abcdefghij".repeat(100_000), "😀".repeat(50_000)]) {
    const fit = prefixWithinSync(text, 600);
    assert.ok(fit.trimmed);
    assert.ok(fit.tokens <= 600 && fit.tokens >= 500, `${fit.tokens}`);
    assert.ok(text.startsWith(fit.text));
    assert.equal(countTokensSync(fit.text), fit.tokens);
  }
});
