/**
 * The token estimate's features (`tokenFeatures`), counted from tables of
 * character classes and class pairs with small ASCII letters taken a run at
 * a time, are the counts of the plain definition: one character at a time,
 * a run starting where the class changes (a Latin word going on across
 * small, capital and accented letters, a capital after a small letter
 * starting a new one), a combining mark counted as an accented letter
 * without ending any run, and two or more spaces in a row counted once.
 * The reference below is that definition, written out; the slots are
 * named by `FEATURE_NAMES`.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  estimateTokens,
  FEATURE_COUNT,
  FEATURE_NAMES,
  tokenFeatures,
} from "../../../lib/content/tokens/count.ts";

const slot = (name: string) => {
  const i = FEATURE_NAMES.indexOf(name);
  assert.ok(i >= 0, name);
  return i;
};

type Kind =
  | "space"
  | "newline"
  | "lower"
  | "upper"
  | "digit"
  | "punct"
  | "latin_ext"
  | "mark"
  | "cyrillic"
  | "greek"
  | "arabic"
  | "han"
  | "kana"
  | "hangul"
  | "other"
  | "symbol"
  | "cjk_punct"
  | "astral";

/** The class of one code point, by the ranges the estimate's notes give. */
function kindOf(c: number): Kind {
  if (c === 10 || c === 13 || c === 0x2028 || c === 0x2029) return "newline";
  if (c === 32 || c === 9 || c === 11 || c === 12 || c === 0xa0) return "space";
  if (c >= 97 && c <= 122) return "lower";
  if (c >= 65 && c <= 90) return "upper";
  if (c >= 48 && c <= 57) return "digit";
  if (c < 0x80) return "punct";
  if (c < 0xc0 || c === 0xd7 || c === 0xf7) return "symbol";
  if (c < 0x300) return "latin_ext";
  if (c < 0x370) return "mark";
  if (c < 0x400) return "greek";
  if (c < 0x530) return "cyrillic";
  if (c < 0x590) return "other";
  if (c < 0x900) return "arabic";
  if (c < 0x1100) return "other";
  if (c < 0x1200) return "hangul";
  if (c < 0x1e00) return "other";
  if (c < 0x1f00) return "latin_ext";
  if (c < 0x2000) return "greek";
  if (c < 0x3000) return "symbol";
  if (c < 0x3040) return "cjk_punct";
  if (c < 0x3100) return "kana";
  if (c < 0x3190) return "hangul";
  if (c < 0x3400) return c >= 0x31f0 && c < 0x3200 ? "kana" : "symbol";
  if (c < 0xa000) return "han";
  if (c < 0xac00) return "other";
  if (c < 0xd800) return "hangul";
  if (c < 0xe000) return "astral";
  if (c < 0xf900) return "symbol";
  if (c < 0xfb00) return "han";
  if (c < 0xfe00) return "arabic";
  if (c < 0xfe70) return "symbol";
  if (c < 0xff00) return "arabic";
  if (c < 0xff66) return "cjk_punct";
  if (c < 0xffa0) return "kana";
  if (c < 0x10000) return "symbol";
  return c >= 0x20000 && c < 0x40000 ? "han" : "astral";
}

/** Per class: the slot its runs count in and the slot its characters count in. */
const SLOTS: Partial<Record<Kind, [string | undefined, string | undefined]>> = {
  newline: ["newline_runs", undefined],
  lower: ["latin_runs", "latin_chars"],
  upper: ["latin_runs", "latin_chars"],
  latin_ext: ["latin_runs", "latin_ext"],
  digit: ["digit_runs", "digits"],
  punct: ["punct_runs", "punct"],
  cyrillic: ["cyrillic_runs", "cyrillic"],
  greek: ["greek_runs", "greek"],
  arabic: ["arabic_runs", "arabic"],
  han: [undefined, "han"],
  kana: [undefined, "kana"],
  hangul: [undefined, "hangul"],
  other: ["other_runs", "other"],
  symbol: [undefined, "symbol"],
  cjk_punct: [undefined, "cjk_punct"],
  astral: [undefined, "astral"],
};

const LATIN = new Set<Kind | undefined>(["lower", "upper", "latin_ext"]);

/** The features, one code point at a time. */
function reference(text: string): number[] {
  const out = new Array(FEATURE_COUNT).fill(0);
  let prev: Kind | undefined;
  let spaces = 0;
  for (const ch of text) {
    const kind = kindOf(ch.codePointAt(0)!);
    if (kind === "mark") {
      out[slot("latin_ext")]++;
      continue;
    }
    if (kind === "space") {
      spaces++;
      prev = kind;
      continue;
    }
    if (spaces >= 2) out[slot("space_runs")]++;
    spaces = 0;
    const [run, char] = SLOTS[kind]!;
    const starts = kind === "upper"
      ? prev !== "upper" && prev !== "latin_ext"
      : LATIN.has(kind)
      ? !LATIN.has(prev)
      : prev !== kind;
    if (run && starts) out[slot(run)]++;
    if (char) out[slot(char)]++;
    prev = kind;
  }
  if (spaces >= 2) out[slot("space_runs")]++;
  return out;
}

const counted = (text: string) => [...tokenFeatures(text, new Float64Array(FEATURE_COUNT))];

/** Pieces from every class, their borders, lone and paired surrogates. */
const PIECES = [
  "word",
  "Word",
  "camelCase",
  "ABC",
  "é",
  "e\u0301",
  "\u0301",
  "42",
  "3.14",
  "--",
  "#",
  " ",
  "  ",
  "\t",
  "\u00a0",
  "\n",
  "\r\n",
  "\u2028",
  "жизнь",
  "λόγος",
  "שלום",
  "سلام",
  "漢字",
  "かな",
  "한국",
  "ไทย",
  "—",
  "…",
  "×",
  "、",
  "！",
  "ｶ",
  "😀",
  "𠀀",
  "\ud800",
  "\udc00",
  "\uffff",
  "\u0000",
];

Deno.test("tokenFeatures: the counts of the one-character-at-a-time definition", () => {
  fc.assert(
    fc.property(fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }), (pieces) => {
      const text = pieces.join("");
      assert.deepEqual(counted(text), reference(text), JSON.stringify(text));
    }),
    { numRuns: 2000 },
  );
  fc.assert(
    fc.property(fc.string({ unit: "binary", maxLength: 60 }), (text) => {
      assert.deepEqual(counted(text), reference(text), JSON.stringify(text));
    }),
    { numRuns: 2000 },
  );
});

Deno.test("tokenFeatures: every BMP code unit in its class, and a long page", () => {
  let all = "";
  for (let c = 0; c < 0x10000; c++) all += String.fromCharCode(c) + (c % 7 === 0 ? " " : "");
  assert.deepEqual(counted(all), reference(all));
  const page = "# Title\n\nSome text, with **marks** and `code()` — 42 times.\n\n".repeat(2000);
  assert.deepEqual(counted(page), reference(page));
  // The count fills the slots it is given and leaves no state behind.
  const out = new Float64Array(FEATURE_COUNT).fill(7);
  tokenFeatures("ab", out);
  assert.deepEqual([...out], reference("ab"));
  assert.equal(estimateTokens(""), 0);
  assert.equal(estimateTokens("ab cd"), estimateTokens("ab cd"));
});
