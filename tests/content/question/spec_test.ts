/**
 * Questions on a specification, read through the CLI (`fetch FILE --query`):
 * the answer-bearing kinds of text a question asks for. The page is
 * `fixtures/pages/signal_spec.html`, an invented specification with one
 * failure kind per section:
 *
 * - a rule stated in prose beside a code example that repeats the
 *   question's words more often (fixed: code weighs half unless the
 *   question asks for code);
 * - an attribute's default in a short sentence beside a paragraph that
 *   repeats the question's words without saying it (fixed by answer shapes,
 *   `lib/content/question/intent.ts`: the question asks what holds when
 *   something is missing, the sentence says what holds when it is omitted);
 * - a term defined once (`<dfn id>`) and linked from sections whose links
 *   repeat its words more often than the definition does (not fixed: the
 *   rule tried, the page's link texts as names of their targets, gained on
 *   the tuned question set and lost on the held-out one; see
 *   bench/questions/heldout.json). That test is ignored until a method
 *   fixes it without that loss.
 */
import assert from "node:assert/strict";
import { askPage } from "../../support/ask.ts";

const ask = (question: string, maxTokens: number) =>
  askPage("signal_spec.html", question, maxTokens);

const UNSOLVED = "unsolved failure kind: the rules tried lost on the held-out question set";

Deno.test({
  name: "query on a spec: a term's definition is found through the page's links to it",
  ignore: true,
}, async () => {
  console.log(UNSOLVED);
  const text = await ask("what is a quiet period", 60);
  assert.match(text, /A quiet period is the span between dusk and the first bell\./);
  assert.doesNotMatch(text, /stay still through the/, "a sentence that only links to the term");
});

Deno.test({
  name: "query on a spec: a question about what holds when something is missing finds the default",
}, async () => {
  const text = await ask("what interval does a beacon get when the attribute is missing", 50);
  assert.match(text, /If the interval attribute is omitted, a beacon flashes every 30 seconds\./);
  assert.doesNotMatch(text, /tell one beacon from another/);
});

Deno.test("query on a spec: a rule in prose comes before a code example with the same words", async () => {
  const text = await ask("what about a nested lamp", 70);
  assert.match(text, /A lamp element must not be nested inside another lamp element/);
  assert.doesNotMatch(text, /<lamp><lamp>/);
});

Deno.test("query on a spec: a question that asks for an example gets the code", async () => {
  const text = await ask("show an example of a nested lamp", 70);
  assert.match(text, /<lamp><lamp>nested lamp<\/lamp><\/lamp>/);
});
