/**
 * Answer shapes in query-scoped extraction (`lib/content/question/intent.ts`),
 * read through the CLI (`fetch FILE --query`) on
 * `fixtures/pages/answer_shape_spec.html`, an invented specification of a
 * lighthouse lamp: in each section a dozen short paragraphs hold the
 * question's words, and the one that answers holds as many of them but is
 * longer, so its words alone rank it below the others and a budget of 150
 * tokens ran out before it. The question says what kind of answer it wants:
 *
 * - a default ("if I don't set one"), given by a sentence about what holds
 *   when the attribute is omitted, or about the value it is initially set to;
 * - a quantity ("how many"), given by a number;
 * - a reason ("why"), given by "so that";
 * - a measure ("how wide"), given by the noun the page measures by ("the
 *   walkway's width"), which the question does not write;
 * - an error ("what error"), given by a thrown error (this one was found
 *   before answer shapes too: a guard that they keep it).
 *
 * A section whose every paragraph says "by default" (the fog bell) is not
 * taken for a default question about something else: the shape chooses
 * among the passages of the sections the words found.
 */
import assert from "node:assert/strict";
import { askPage } from "../../support/ask.ts";
import { htmlDocument } from "../../../lib/content/pipeline.ts";
import {
  extractForQuery,
  hasQueryIndex,
  shapeUnitsLater,
} from "../../../lib/content/question/extract.ts";
import {
  answerShapeNames,
  answerShapes,
  dimensionWords,
  shapeMatches,
} from "../../../lib/content/question/intent.ts";

const ask = (question: string) => askPage("answer_shape_spec.html", question, 150);

Deno.test("answer shapes: a question about a default finds the sentence about the value left out", async () => {
  const text = await ask("what colour is a lamp if I don't set one");
  assert.match(
    text,
    /When the colour attribute of a lamp is omitted, the keeper's amber is used\./,
  );
  assert.doesNotMatch(text, /fog bell/, "a section that only says 'by default' is not an answer");
});

Deno.test("answer shapes: a question about a default finds the value a thing is initially set to", async () => {
  const text = await ask("which shutter mode does a lamp use if I don't give one");
  assert.match(text, /Every lamp's shutter mode is initially set to sweeping/);
});

Deno.test("answer shapes: a question asking how many finds the number", async () => {
  const text = await ask("how many wicks fit in a lamp");
  assert.match(text, /A lamp burner holds no more than 12 wicks/);
});

Deno.test("answer shapes: 'how wide' finds the width", async () => {
  const text = await ask("how wide is the gallery walkway");
  assert.match(text, /The walkway's width matches the lamp room door/);
});

Deno.test("answer shapes: a question asking why finds the reason", async () => {
  const text = await ask("why does the keeper trim the wick");
  assert.match(text, /so that the flame does not smoke the lens/);
});

Deno.test("answer shapes: a question asking for the error finds the thrown error", async () => {
  const text = await ask("what error do I get when lighting a wet wick");
  assert.match(text, /Lighting a damp wick throws a DampWickError\./);
});

Deno.test("answer shapes: what a question asks for is read from its form", () => {
  assert.deepEqual(
    answerShapeNames("what target origin does postMessage use if I don't pass one"),
    [
      "default",
    ],
  );
  assert.deepEqual(answerShapeNames("how long should a tooltip take to show up"), ["quantity"]);
  assert.deepEqual(answerShapeNames("why do nested timers get clamped"), ["reason"]);
  assert.deepEqual(answerShapeNames("what does the a element represent"), []);
});

Deno.test("answer shapes: a list marker or a link target is not a number, a step's own number is", () => {
  const quantity = answerShapes("how many steps are there");
  assert.equal(shapeMatches(quantity, "1. Let [x](#sec-4-2-7) be the result."), 0);
  assert.equal(shapeMatches(quantity, "1. Repeat at most 16 times."), 1);
  assert.equal(shapeMatches(quantity, "There is no limit on the depth."), 1);
});

Deno.test("answer shapes: the nouns a 'how ...' question measures by", () => {
  assert.deepEqual(dimensionWords("how wide is a textarea by default"), ["width"]);
  assert.deepEqual(dimensionWords("How many values can a function return"), ["number"]);
  assert.deepEqual(dimensionWords("how do I make a list count down"), []);
});

/** The lamp specification (a page of answer shapes), converted anew at each call. */
async function lampPage(): Promise<() => ReturnType<typeof htmlDocument>> {
  const html = await Deno.readTextFile(
    new URL("../../../fixtures/pages/answer_shape_spec.html", import.meta.url),
  );
  return () => htmlDocument(html, "https://example.org/lamp.html");
}

/** Questions over the lamp specification, each answered by another shape. */
const LAMP_QUESTIONS = [
  "what colour is a lamp if I don't set one",
  "how many wicks fit in a lamp",
  "why does the keeper trim the wick",
  "what error does lighting a wet wick throw",
];

Deno.test("answer shapes: the shapes kept with the page give the answers a fresh page gives, in any order", async () => {
  const page = await lampPage();
  const questions = [...LAMP_QUESTIONS, "how many lamps are lit by default, and why"];
  const kept = page();
  // Each question on a page of its own, then all of them on one page, twice, in two orders.
  const fresh = questions.map((q) => extractForQuery(page(), q, 150).text);
  for (const order of [questions, [...questions].reverse(), questions]) {
    for (const q of order) {
      assert.equal(extractForQuery(kept, q, 150).text, fresh[questions.indexOf(q)], q);
    }
  }
});

Deno.test("answer shapes: the shapes worked out in the background give the answers a fresh page gives", async () => {
  const page = await lampPage();
  const questions = LAMP_QUESTIONS;
  const fresh = questions.map((q) => extractForQuery(page(), q, 150).text);
  const kept = page();
  // A question makes the page's index and shapes; every unit is then shaped between requests.
  // ("how wide" asks for a quantity: the picking weighs units by their shapes.)
  assert.equal(extractForQuery(kept, "how wide is the walkway", 150).extracted, true);
  assert.ok(hasQueryIndex(kept));
  shapeUnitsLater(kept);
  await new Promise((resolve) => setTimeout(resolve, 100));
  for (const q of questions) {
    assert.equal(extractForQuery(kept, q, 150).text, fresh[questions.indexOf(q)], q);
  }
});
