/**
 * The scan for wide characters (`nextWide`) finds exactly the characters
 * that measure wider than a Latin one (`textWidth`), in every script, and
 * finds them where they are.
 */
import assert from "node:assert/strict";
import { nextWide, textWidth } from "../../../lib/content/extract/width.ts";

Deno.test("nextWide finds exactly the code units textWidth counts wider than one", () => {
  const missed: string[] = [];
  for (let c = 0; c < 0x10000; c++) {
    const ch = String.fromCharCode(c);
    // A low surrogate measures nothing: its high surrogate was measured.
    const wide = c >= 0xdc00 && c < 0xe000 ? false : textWidth(ch) !== 1;
    if ((nextWide(ch) === 0) !== wide) missed.push(c.toString(16));
  }
  assert.deepEqual(missed, []);
});

Deno.test("nextWide gives the offset of the next wide character from a position", () => {
  const text = "Latin — “quoted” 日本語 and 한국어 𠀋";
  assert.equal(nextWide(text), text.indexOf("日"));
  assert.equal(nextWide(text, text.indexOf("語") + 1), text.indexOf("한"));
  assert.equal(nextWide(text, text.indexOf("어") + 1), text.indexOf("𠀋"));
  assert.equal(nextWide(text, text.length), -1);
  assert.equal(nextWide("plain ASCII, Ελληνικά, кириллица — and ‘quotes’"), -1);
});
