/**
 * A block's plain text (`plainText`): link targets, markup and list markers
 * go, spaces collapse; and the one pass gives what the chain of regular
 * expression replacements it stands for gives, on every character and on
 * random Markdown made of the characters that matter.
 */
import assert from "node:assert/strict";
import { plainText } from "../../../lib/content/extract/plain_text.ts";

/** The replacements, step by step: the definition the one pass follows. */
function byReplacements(text: string): string {
  return text.replace(/\]\([^)]*\)/g, "]")
    .replace(/[[\]*_`#>|]/g, " ")
    .replace(/^\s*(?:[-+]|\d+[.)])\s+/gm, " ")
    .replace(/\s+/g, " ")
    .trim();
}

const plain = (text: string) => plainText(`<<${text}>>`, 2, text.length + 2);

Deno.test("plainText drops link targets, markup and list markers, and collapses spaces", () => {
  assert.equal(
    plain("- [**Subscribe**](https://x.example/a_b) to  our\n`newsletter`"),
    "Subscribe to our newsletter",
  );
  assert.equal(plain("12. Item\n  - nested item\n3) last"), "Item nested item last");
  assert.equal(plain("- - second dash stays"), "- second dash stays");
  assert.equal(plain("> quoted | cell # not a heading"), "quoted cell not a heading");
  assert.equal(plain("see [a](unclosed and [b]"), "see a (unclosed and b");
  assert.equal(plain("   "), "");
});

Deno.test("plainText agrees with the replacements around every UTF-16 code unit", () => {
  const differ: string[] = [];
  for (let c = 0; c < 0x10000; c++) {
    const ch = String.fromCharCode(c);
    const text = `- a${ch}- b${ch}1. c${ch}](d)${ch}`;
    if (plain(text) !== byReplacements(text)) differ.push(c.toString(16));
  }
  assert.deepEqual(differ, []);
});

Deno.test("plainText agrees with the replacements on random Markdown", () => {
  const pieces = [
    "-",
    "+",
    "1",
    "23",
    ".",
    ")",
    "(",
    " ",
    " ",
    "  ",
    "\n",
    "\r\n",
    "\u2028",
    "\t",
    "\u00a0",
    "[",
    "]",
    "](",
    "](x)",
    "](y\nz)",
    "*",
    "_",
    "`",
    "#",
    ">",
    "|",
    "a",
    "word",
  ];
  let seed = 38;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const differ: string[] = [];
  for (let k = 0; k < 100_000 && differ.length < 5; k++) {
    let text = "";
    for (let i = random(16); i > 0; i--) text += pieces[random(pieces.length)];
    if (plain(text) !== byReplacements(text)) differ.push(JSON.stringify(text));
  }
  assert.deepEqual(differ, []);
});
