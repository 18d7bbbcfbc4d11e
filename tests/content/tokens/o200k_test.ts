/**
 * The o200k tables of lib/content/tokens/o200k.ts against gpt-tokenizer's
 * encoder (the counts' oracle, kept as a test dependency): every token of
 * the vocabulary, random text of every kind of character, long pieces, the
 * fixture pages and, when the shared folder is there, the captured pages;
 * the tables built from the ranks module where bytes cannot be imported
 * (also through the CLI, against the task's own line);
 * decoding; a broken rank file refused with its reason; and U+FEFF, where
 * gpt-tokenizer is wrong and these tables are not.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import ranks from "gpt-tokenizer/bpeRanks/o200k_base";
import {
  loadO200k,
  type O200k,
  tablesFromRankFile,
  tablesFromRanks,
} from "../../../lib/content/tokens/o200k.ts";
import { COUNTED_PAGES, fixturePage } from "../../support/fixture_pages.ts";
import { realPageHtml, sharedDir } from "../../support/shared.ts";
import { childEnv, MAIN, ROOT_DIR, taskFlags } from "../../support/process.ts";
import { htmlDocument } from "../../../lib/content/pipeline.ts";

const AS_TEXT = { disallowedSpecial: new Set<string>() };
const theirs = (text: string) => encode(text, AS_TEXT);

let loaded: O200k | undefined;
async function tables(): Promise<O200k> {
  return loaded ??= await loadO200k();
}

Deno.test("o200k: every token of the vocabulary encodes as gpt-tokenizer encodes it", async () => {
  const o200k = await tables();
  assert.equal(o200k.size, (ranks as unknown[]).length);
  const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const bytes = new TextEncoder();
  let texts = 0;
  let whole = 0;
  for (let rank = 0; rank < o200k.size; rank++) {
    const value = (ranks as (string | number[])[])[rank];
    let text: string;
    try {
      text = strict.decode(
        typeof value === "string" ? bytes.encode(value) : Uint8Array.from(value),
      );
    } catch {
      continue; // a part of a character: no text is made of it alone
    }
    texts++;
    const ours = o200k.encode(text);
    assert.equal(o200k.decode(ours), text, `rank ${rank} decodes back`);
    if (text.includes("\uFEFF")) continue; // see the U+FEFF test
    assert.deepEqual(ours, theirs(text), `rank ${rank}: ${JSON.stringify(text)}`);
    if (ours.length === 1) whole++;
  }
  assert.ok(texts > 190_000, `${texts} tokens are text`);
  assert.ok(whole > 150_000, `${whole} tokens are one pre-token each`);
});

Deno.test("o200k: random text of every kind of character, and long pieces", async () => {
  const o200k = await tables();
  const text = fc.oneof(
    fc.string({ maxLength: 200 }),
    fc.string({ unit: "grapheme", maxLength: 80 }),
    fc.string({ unit: "binary", maxLength: 80 }),
    fc.array(
      fc.constantFrom(
        "the",
        " The",
        "'s",
        "don't",
        "123456",
        "\n",
        "\r\n",
        "  ",
        "\t",
        "\u00a0",
        "<|endoftext|>",
        "e\u0301",
        "😀",
        "👍🏽",
        "漢字",
        "ไทย",
        "한국어",
        "αβγ",
        "привет",
        "مرحبا",
        "\ud800",
        "\udfff",
        "\u0000",
      ),
      { maxLength: 80 },
    ).map((parts) => parts.join("")),
  ).filter((t) => !t.includes("\uFEFF"));
  fc.assert(
    fc.property(text, (t) => {
      const ours = o200k.encode(t);
      assert.deepEqual(ours, theirs(t), JSON.stringify(t));
      assert.equal(o200k.decode(ours), t.toWellFormed(), "decodes to the text");
    }),
    { numRuns: 2000 },
  );
  // Pieces far longer than a word: merging is quadratic in a piece, and must stay exact.
  for (const unit of ["a", "ab", "Zx9", "—", "😀", "漢", "é", "<"]) {
    const long = unit.repeat(Math.ceil(600 / unit.length));
    assert.deepEqual(o200k.encode(long), theirs(long), `${unit} x ${long.length}`);
  }
});

Deno.test("o200k: the fixture pages, and the captured pages when the shared folder is there", async (t) => {
  const o200k = await tables();
  for (const name of COUNTED_PAGES) {
    const md = (await fixturePage(name)).markdown;
    assert.deepEqual(o200k.encode(md), theirs(md), name);
  }
  const pages = [
    ["pep_8", "https://peps.python.org/pep-0008/"],
    ["ecma262", "https://tc39.es/ecma262/"],
    ["whatwg_html", "https://html.spec.whatwg.org/"],
  ];
  await t.step({
    name: "the captured pages (PARKOUR_SHARED_DIR)",
    ignore: !sharedDir(),
    async fn() {
      for (const [name, url] of pages) {
        // The first 2 MB of each page's Markdown: gpt-tokenizer takes seconds a megabyte.
        const md = htmlDocument(await realPageHtml(name), url).markdown.slice(0, 2_000_000);
        const ours = o200k.encode(md);
        assert.equal(ours.length, theirs(md).length, name);
        assert.equal(o200k.decode(ours), md.toWellFormed(), `${name} decodes back`);
      }
    },
  });
  if (!sharedDir()) console.warn("o200k: captured pages SKIPPED (set PARKOUR_SHARED_DIR)");
});

Deno.test("o200k: tables from the ranks module encode as those from the rank file", async () => {
  const o200k = await tables();
  const fromModule = tablesFromRanks(ranks as (string | number[])[]);
  assert.equal(fromModule.size, o200k.size);
  const md = (await fixturePage("handbook.html")).markdown +
    (await fixturePage("tea_ja.html")).markdown;
  assert.deepEqual(fromModule.encode(md), o200k.encode(md));
  fc.assert(
    fc.property(fc.string({ unit: "binary", maxLength: 40 }), (s) => {
      assert.deepEqual(fromModule.encode(s), o200k.encode(s), JSON.stringify(s));
    }),
    { numRuns: 300 },
  );
});

Deno.test("o200k: a CLI that may not import bytes counts with tables from the ranks module, the same", async () => {
  // As the task runs it, and with a configuration that leaves out raw imports and no read grant
  // beyond the checkout: the rank file can be neither imported nor read, so the tables come from
  // gpt-tokenizer's module of ranks (a registry copy run without -A is in that place).
  const page = `${ROOT_DIR}/fixtures/pages/handbook.html`;
  const args = [MAIN, "fetch", page, "--max-tokens", "300", "--format", "json"];
  const run = async (flags: string[]) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [...flags, ...args],
      env: childEnv(),
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    return { tokens: JSON.parse(text).frontmatter.returned_tokens, text, stderr };
  };
  const dir = await Deno.makeTempDir();
  try {
    const config = JSON.parse(await Deno.readTextFile(`${ROOT_DIR}/deno.json`));
    config.unstable = config.unstable.filter((u: string) => u !== "raw-imports");
    await Deno.writeTextFile(`${dir}/deno.json`, JSON.stringify(config));
    // Deno's debug log names each module evaluated (`--quiet` would silence it).
    const shipped = await run([
      ...taskFlags("fetch", false).filter((f) => f !== "--quiet"),
      "--log-level=debug",
    ]);
    const bare = await run([
      "run",
      "--no-prompt",
      "--no-lock",
      `--config=${dir}/deno.json`,
      "--log-level=debug",
      "--unstable-kv",
      "--allow-env",
      `--allow-read=${ROOT_DIR}`,
    ]);
    // The ranks module is evaluated where the rank file cannot be had, and only there.
    const ranksModule = /for ES module: \S*bpeRanks\/o200k_base\.js/;
    assert.match(bare.stderr, ranksModule);
    assert.doesNotMatch(shipped.stderr, ranksModule);
    assert.ok(
      typeof shipped.tokens === "number" && shipped.tokens > 200,
      shipped.text.slice(0, 300),
    );
    assert.equal(bare.tokens, shipped.tokens);
    const unfenced = (t: string) => t.replace(/\b[0-9a-f]{8}\b/g, "<fence>");
    assert.equal(unfenced(bare.text), unfenced(shipped.text));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("o200k: a token sequence cut inside a character decodes with U+FFFD at its end", async () => {
  const o200k = await tables();
  for (const text of ["😀😀", "漢字テキスト", "naïve café"]) {
    const tokens = o200k.encode(text);
    const bytes = new TextEncoder().encode(text).length;
    let sum = 0;
    for (let n = 0; n <= tokens.length; n++) {
      const prefix = o200k.decode(tokens.slice(0, n));
      const clean = prefix.replace(/\uFFFD+$/, "");
      assert.ok(text.startsWith(clean), `${JSON.stringify(prefix)} is a prefix of ${text}`);
      sum = new TextEncoder().encode(clean).length;
    }
    assert.equal(sum, bytes);
  }
  assert.throws(() => o200k.decode([o200k.size]), /not an o200k token/);
  assert.throws(() => o200k.decode([-1]), /not an o200k token/);
});

Deno.test("o200k: a broken rank file is refused with what is wrong", () => {
  const file = (text: string) => new TextEncoder().encode(text);
  const good = Array.from({ length: 256 }, (_, b) => `${btoa(String.fromCharCode(b))} ${b}`);
  // 256 single bytes make a vocabulary that encodes every text byte by byte.
  const bytesOnly = tablesFromRankFile(file(good.join("\n") + "\n"));
  assert.deepEqual(bytesOnly.encode("hé"), [104, 0xc3, 0xa9]);
  assert.throws(() => tablesFromRankFile(file("aGk=\n")), /a line is not `token rank`/);
  assert.throws(() => tablesFromRankFile(file("a*b= 0\n")), /line 1 is not base64/);
  assert.throws(() => tablesFromRankFile(file(`${good[0]}\n${good[0]}\n`)), /given twice/);
  assert.throws(
    () => tablesFromRankFile(file(good.slice(1).join("\n"))),
    /byte 0 has no token/,
  );
});

Deno.test("o200k: U+FEFF is read as OpenAI's tiktoken reads it, where gpt-tokenizer is wrong", async () => {
  const o200k = await tables();
  // gpt-tokenizer decodes each byte pair to look it up, and its decoder drops a leading byte
  // order mark: a pre-token starting with one is not merged past it, or becomes another token.
  const bom = o200k.encode("\uFEFF");
  assert.equal(bom.length, 1, "the byte order mark is a token of its own");
  assert.ok(theirs("\uFEFF").length > 1, "gpt-tokenizer splits it (if not, this test is stale)");
  for (const text of ["\uFEFF", "\uFEFFusing", "\uFEFF\n\n", "a \uFEFFb", "\uFEFF\uFEFF"]) {
    assert.equal(o200k.decode(o200k.encode(text)), text);
    assert.ok(o200k.encode(text).length <= theirs(text).length, JSON.stringify(text));
  }
});
