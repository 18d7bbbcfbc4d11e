/**
 * The passage stage of query-scoped extraction, read through the CLI
 * (`fetch FILE --query`) on `fixtures/pages/passage_spec.html`, an invented
 * specification with one failure kind per section (both answered wrong by
 * the method before the passage stage, which spent the budget on the best
 * section alone):
 *
 * - the sentence that answers sits in the runner-up section, while the best
 *   section is long and repeats the question's words in every paragraph;
 * - the answer is one step of a twelve-step algorithm (a list larger than a
 *   third of the budget is read as steps, not as one block).
 */
import assert from "node:assert/strict";
import { askPage } from "../../support/ask.ts";

const ask = (question: string, maxTokens: number) =>
  askPage("passage_spec.html", question, maxTokens);

Deno.test("query passages: the answer in the runner-up section is not crowded out by the best one", async () => {
  const text = await ask("when does the ferry depart in fog", 250);
  assert.match(
    text,
    /In fog, a ferry departs only after the harbour master has rung the bell twice\./,
  );
  // The best section still comes first: the question's words are its subject.
  assert.match(text, /## 1 Ferry departures/);
  assert.match(text, /## 2 Weather/);
});

Deno.test("query passages: one step of a long algorithm is quoted under its section", async () => {
  const text = await ask("what happens to a passenger with no ticket when boarding", 120);
  assert.match(text, /If the passenger holds no ticket, send the passenger to the ticket office/);
  assert.match(text, /## 5 Boarding/);
  // Not the whole algorithm: the other steps stay out of a budget this size.
  assert.ok(text.split("\n").filter((l) => /^\d+\. /.test(l)).length < 12);
});
