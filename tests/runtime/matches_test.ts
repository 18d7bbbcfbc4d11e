/**
 * `matchesOf` reads a pattern's matches as `matchAll` does, without the
 * copy of the pattern `matchAll` makes (which V8 compiles anew after full
 * collections); and an answer (a question, a search, the exact count of
 * what is sent) copies no pattern of Unicode classes, whose compilation is
 * what costs.
 */
import assert from "node:assert/strict";
import { matchesOf } from "../../lib/runtime/matches.ts";
import { createRestApi } from "../../lib/server/rest.ts";
import { Document } from "../../lib/content/document/document.ts";
import { countTokensSync, tokenizerReady } from "../../lib/content/tokens/count.ts";
import { envelopeReady } from "../../lib/envelope/frontmatter.ts";

const spans = (ms: Iterable<RegExpExecArray>) => [...ms].map((m) => [m.index, ...m]);

Deno.test("matches: the matches of matchAll, empty ones and astral characters included", () => {
  const patterns = [
    /[\p{L}\p{N}]+/gu,
    /(?<![\p{L}\p{N}_-])(\p{L}{1,12})-(\d{1,6})/gu,
    /a*/g,
    /(?:)/gu,
    /x?/gu,
    /\s+|[^\s]+/g,
    /b/gy,
    /(\w)(\d)?/g,
  ];
  const texts = [
    "",
    "a",
    "SHA-512 and UTF-8 😀x😀 aaa b",
    "😀😀",
    "bbb abb",
    "日本語 text\u2028more",
    "a1b c",
  ];
  for (const pattern of patterns) {
    for (const text of texts) {
      for (const from of [0, 1, 3]) {
        const copy = new RegExp(pattern.source, pattern.flags);
        copy.lastIndex = from;
        const expected = spans(text.matchAll(copy));
        assert.deepEqual(
          spans(matchesOf(pattern, text, from)),
          expected,
          `${pattern} on ${text} from ${from}`,
        );
        assert.equal(pattern.lastIndex, 0);
      }
    }
  }
});

Deno.test("matches: nested reads of one pattern, its use between matches, an early stop", () => {
  const word = /\w+/g;
  const pairs: string[] = [];
  for (const a of matchesOf(word, "one two")) {
    for (const b of matchesOf(word, "x y")) pairs.push(`${a[0]}-${b[0]}`);
  }
  assert.deepEqual(pairs, ["one-x", "one-y", "two-x", "two-y"]);
  // The pattern used by the caller between two matches: the reading goes on where it was.
  const seen: string[] = [];
  for (const m of matchesOf(word, "alpha beta gamma")) {
    seen.push(m[0]);
    word.test("zzz zzz zzz");
  }
  assert.deepEqual(seen, ["alpha", "beta", "gamma"]);
  // Stopped early, the pattern is free and at 0 again.
  for (const _ of matchesOf(word, "a b c")) break;
  assert.equal(word.lastIndex, 0);
  assert.deepEqual(spans(matchesOf(word, "p q")), [[0, "p"], [2, "q"]]);
  assert.throws(() => [...matchesOf(/x/, "x")], /global/);
});

// A page with identifiers, a hyphenated name and number, sentences and a non-Latin word: every
// pattern of the question and search paths meets something.
const PAGE = new Document({
  url: "https://example.test/spec",
  kind: "html",
  title: "Spec",
  markdown: [
    "# Spec",
    "",
    "## Hashing",
    "",
    "The SHA-512 digest is computed with crypto.subtle.digest. It returns a promise. " +
    "Callers await it before they read the bytes. Naïve code and 日本語 text are fine.",
    "",
    "## Limits",
    "",
    "A request may carry at most 64 headers. Larger requests are refused with a 431 status. " +
    "The limit defaults to 64 when the option is omitted.",
  ].join("\n"),
});

Deno.test("matches: an answer copies no pattern of Unicode classes", async () => {
  await Promise.all([envelopeReady(), tokenizerReady()]);
  const api = createRestApi({
    load: () => Promise.resolve({ doc: PAGE, cached: true }),
    sourceOf: () => "web",
  });
  const copied: string[] = [];
  const proto = RegExp.prototype as unknown as Record<symbol, unknown>;
  const standard = { matchAll: proto[Symbol.matchAll], split: proto[Symbol.split] };
  // matchAll and split read a copy of the pattern (made through the species constructor).
  const watch = (key: "matchAll" | "split") =>
    function (this: RegExp, ...args: unknown[]) {
      if (/\\[pP]\{/.test(this.source)) copied.push(`${key} ${this.source.slice(0, 40)}`);
      return (standard[key] as (...a: unknown[]) => unknown).apply(this, args);
    };
  proto[Symbol.matchAll] = watch("matchAll");
  proto[Symbol.split] = watch("split");
  try {
    for (
      const params of <Record<string, string>[]> [
        { query: "what digest does SHA-512 use and how do crypto.subtle.digest callers read it?" },
        { query: "how many headers may a request carry by default?" },
        { search: "SHA-512 digest" },
        { section: "Limits" },
      ]
    ) {
      const url = `http://localhost/api?${new URLSearchParams({ url: PAGE.url, ...params })}`;
      const res = await api.fetch(new Request(url));
      assert.equal(res.status, 200, await res.clone().text());
      assert.ok((await res.text()).length > 0);
    }
    assert.ok(countTokensSync("Naïve 日本語 text, counted exactly: SHA-512.") > 5);
  } finally {
    proto[Symbol.matchAll] = standard.matchAll;
    proto[Symbol.split] = standard.split;
  }
  assert.deepEqual(copied, []);
});
