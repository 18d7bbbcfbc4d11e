/**
 * Looking up section names: the heading forms are indexed once per
 * Document (a name costs a few map reads, not passes over every heading),
 * and the closest-heading pass, which reads every heading, is bounded per
 * request (MAX_SUGGESTED_NAMES names, SUGGEST_WORK headings compared): it
 * runs on the thread that serves every other call.
 */
import assert from "node:assert/strict";
import { htmlDocument } from "../../../lib/content/pipeline.ts";
import {
  findSections,
  MAX_SUGGESTED_NAMES,
  SUGGEST_WORK,
} from "../../../lib/content/document/views.ts";

const page = (n: number) =>
  htmlDocument(
    "<html><body>" +
      Array.from({ length: n }, (_, i) => `<h2>${i % 9}.${i} Heading ${i}</h2><p>t${i}</p>`)
        .join("") +
      "</body></html>",
    "https://example.org/",
  );

Deno.test("find sections: names, numbers, slugs and prefixes are found through the index", () => {
  const doc = page(2000);
  const [byName, byLower, byNumber, bySlug, byPrefix] = findSections(doc, [
    "5.1499 Heading 1499",
    "5.1499 HEADING 1499",
    "Heading 1499",
    "#5-1499-heading-1499",
    "Heading 1999",
  ]);
  assert.deepEqual([byName.index, byName.via], [1499, "name"]);
  assert.deepEqual([byLower.index, byLower.via], [1499, "name"]);
  assert.deepEqual([byNumber.index, byNumber.via], [1499, "number-stripped name"]);
  assert.equal(bySlug.index, 1499);
  assert.equal(byPrefix.index, 1999);
});

Deno.test("find sections: the closest-heading pass is bounded per request", () => {
  const misspelt = (n: number) => Array.from({ length: n }, (_, i) => `Hedaing ${i}`);
  // A page of 2,000 headings: the first MAX_SUGGESTED_NAMES names are compared.
  const small = findSections(page(2000), misspelt(12));
  assert.equal(small.filter((l) => !l.unsearched).length, MAX_SUGGESTED_NAMES);
  assert.ok(small[0].suggestions.length > 0);
  // A page of 50,000: as many names as SUGGEST_WORK comparisons allow.
  const large = findSections(page(50_000), misspelt(50));
  const compared = large.filter((l) => !l.unsearched).length;
  assert.equal(compared, Math.floor(SUGGEST_WORK / 50_000));
  assert.ok(large[0].suggestions.length > 0);
  assert.ok(large.slice(compared).every((l) => l.unsearched && l.suggestions.length === 0));
});
