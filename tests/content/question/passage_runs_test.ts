/**
 * The passage stage counts the passages it took from a section, not their
 * units: read through the CLI (`fetch FILE --query`) on
 * `fixtures/pages/passage_runs_spec.html`, an invented specification of a
 * tide gauge's readings. The question's words rank a conformance section
 * first; the algorithm that answers ranks second, and its best step (9, on
 * writing the fractional digits) is taken with its neighbours as context.
 * The step that answers (2, on rounding extra digits) stands apart: counted
 * by units, three taken halved its weight three times and a bare
 * neighbouring step ("Append a point to output") came before it; counted by
 * passages, it pays for one passage taken, and comes before it.
 */
import assert from "node:assert/strict";
import { askPage } from "../../support/ask.ts";

const QUESTION =
  "what does the encoder do with a gauge reading that has more than two fractional digits";

Deno.test("passages: a second passage of a section pays for the passages taken there, not for their units", async () => {
  for (const budget of [350, 400]) {
    const text = await askPage("passage_runs_spec.html", QUESTION, budget);
    assert.match(
      text,
      /If the reading has more than two fractional digits, round it to two digits, halves going to the even neighbour\./,
      `at ${budget} tokens`,
    );
    // The best step is there too, and the answer is not the whole algorithm.
    assert.match(text, /append the fractional digits of the gauge reading/);
    assert.doesNotMatch(text, /Let output be an empty string/);
  }
});
