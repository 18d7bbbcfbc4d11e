/**
 * Tracking and merging: one record per work whatever DOI it was seen
 * under, the version of record as primary, the retracted bucket apart and
 * sticky, the user's fields kept, the status line.
 */
import assert from "node:assert/strict";
import { setLogLevel } from "../../lib/log.ts";
import { Shelf } from "../../lib/shelf/shelf.ts";
import { keyPriority, normalizeKey } from "../../lib/shelf/merge.ts";
import {
  ATTENTION_ARXIV,
  ATTENTION_JOURNAL,
  NATURE,
  REPO,
  RETRACTED,
  RFC9110,
} from "./fixtures.ts";

Deno.test("an arXiv paper and its journal version become one record under the journal DOI", async () => {
  const shelf = new Shelf();
  await shelf.track(ATTENTION_ARXIV);
  await shelf.score("10.48550/arxiv.1706.03762", 9);
  await shelf.confirm("10.48550/ARXIV.1706.03762");
  const result = await shelf.track(ATTENTION_JOURNAL);
  const state = await shelf.snapshot();
  assert.equal(state.active.size, 1);
  const record = state.active.get("10.5555/3295222.3295349")!;
  assert.ok(record, "primary is the journal DOI");
  assert.deepEqual(record.alt_dois, ["10.48550/arxiv.1706.03762"]);
  // Metadata follows the version of record; user fields survive.
  assert.equal(record.venue, "Advances in Neural Information Processing Systems");
  assert.equal(record.kind, "inproceedings");
  assert.equal(record.arxiv_id, "1706.03762", "filled from the arXiv sighting");
  assert.equal(record.score, 9);
  assert.equal(record.confirmed, true);
  assert.equal(String(result.status), "1 tracked (1 confirmed) — use research_shelf to review");
  // Seeing the arXiv version again changes nothing about the primary or the metadata.
  await shelf.track(ATTENTION_ARXIV);
  const again = (await shelf.snapshot()).active;
  assert.equal(again.size, 1);
  assert.equal(again.get("10.5555/3295222.3295349")!.title, "Attention is all you need");
});

Deno.test("the journal version first, the arXiv version later: still one record", async () => {
  const shelf = new Shelf();
  await shelf.track(ATTENTION_JOURNAL);
  await shelf.track({ ...ATTENTION_ARXIV, altDois: [] });
  const state = await shelf.snapshot();
  assert.deepEqual([...state.active.keys()], ["10.5555/3295222.3295349"]);
});

Deno.test("a record linking two existing records merges all three", async () => {
  const shelf = new Shelf();
  await shelf.track({ ...ATTENTION_ARXIV });
  await shelf.track({ ...NATURE, doi: "10.1101/2020.01.01.000001", altDois: [] });
  await shelf.track({
    ...NATURE,
    doi: "10.1038/x1",
    altDois: ["10.48550/arXiv.1706.03762", "10.1101/2020.01.01.000001"],
  });
  const state = await shelf.snapshot();
  assert.equal(state.active.size, 1);
  const [record] = state.active.values();
  assert.equal(record.doi, "10.1038/x1");
  assert.deepEqual(record.alt_dois, ["10.1101/2020.01.01.000001", "10.48550/arxiv.1706.03762"]);
});

Deno.test("DOI priority: version of record > bioRxiv > arXiv > github keys", () => {
  assert.ok(keyPriority("10.1038/nature14539") > keyPriority("10.1101/2020.01.01.1"));
  assert.ok(keyPriority("10.1101/2020.01.01.1") > keyPriority("10.48550/arxiv.1706.03762"));
  assert.ok(keyPriority("10.48550/arxiv.1706.03762") > keyPriority("github:a/b"));
  assert.equal(normalizeKey("https://doi.org/10.1038/NATURE14539"), "10.1038/nature14539");
  assert.equal(normalizeKey("doi:10.1038/x"), "10.1038/x");
  assert.equal(normalizeKey("GitHub:DenoLand/Deno"), "github:denoland/deno");
  assert.equal(normalizeKey("not a doi"), undefined);
  assert.equal(normalizeKey("10.1/x"), undefined, "registrant codes have 4-9 digits");
  assert.equal(normalizeKey("10.1234/has space"), undefined);
});

Deno.test("a retracted work goes to the retracted bucket, with a note", async () => {
  const shelf = new Shelf();
  await shelf.track(NATURE);
  const result = await shelf.track(RETRACTED);
  assert.match(String(result.note), /retracted shelf bucket/);
  assert.equal(
    String(result.status),
    "1 tracked (0 confirmed, 1 retracted) — use research_shelf to review",
  );
  const state = await shelf.snapshot();
  assert.deepEqual([...state.active.keys()], ["10.1038/nature14539"]);
  assert.deepEqual([...state.retracted.keys()], ["10.1016/s0140-6736(20)31180-6"]);
});

Deno.test("an active work later found retracted moves out of the active set, keeping the user's fields", async () => {
  const shelf = new Shelf();
  const { retraction: _, ...clean } = RETRACTED;
  await shelf.track(clean);
  await shelf.score(clean.doi, 7);
  const result = await shelf.track(RETRACTED);
  assert.match(String(result.note), /moved to the retracted bucket/);
  const state = await shelf.snapshot();
  assert.equal(state.active.size, 0);
  const record = state.retracted.get("10.1016/s0140-6736(20)31180-6")!;
  assert.equal(record.score, 7);
  assert.equal(record.retraction?.notice_doi, "10.1016/s0140-6736(20)31324-6");
});

Deno.test("retraction is sticky: a clean sighting of a retracted work, even under another DOI, stays retracted", async () => {
  const shelf = new Shelf();
  await shelf.track(RETRACTED);
  const { retraction: _, ...clean } = RETRACTED;
  const result = await shelf.track(clean);
  assert.match(String(result.note), /already lists this work as retracted/);
  await shelf.track({ ...clean, doi: "10.1101/2020.05.01.1", altDois: [RETRACTED.doi] });
  const state = await shelf.snapshot();
  assert.equal(state.active.size, 0, "the active set is never contaminated");
  assert.equal(state.retracted.size, 1);
});

Deno.test("an expression of concern is upgraded by a later retraction, never downgraded", async () => {
  const shelf = new Shelf();
  const concern = {
    ...RETRACTED,
    retraction: { ...RETRACTED.retraction!, kind: "expression_of_concern" as const },
  };
  await shelf.track(concern);
  await shelf.track(RETRACTED);
  await shelf.track(concern);
  const [record] = (await shelf.snapshot()).retracted.values();
  assert.equal(record.retraction?.kind, "retraction");
});

Deno.test("tracking never throws and ignores keys that are not DOIs", async () => {
  const shelf = new Shelf();
  setLogLevel("off"); // the failure is logged; keep the test output clean
  try {
    assert.deepEqual(await shelf.track({ ...NATURE, doi: "nonsense" }), {});
    assert.deepEqual(await shelf.track({ ...NATURE, title: null as unknown as string }), {});
  } finally {
    setLogLevel("info");
  }
  assert.equal((await shelf.snapshot()).active.size, 0);
});

Deno.test("status line names the tool of the active profile; none when empty", async () => {
  const shelf = new Shelf(undefined, "code");
  assert.equal(shelf.status(await shelf.snapshot()), undefined);
  const result = await shelf.track(RFC9110);
  assert.equal(String(result.status), "1 tracked (0 confirmed) — use ResearchShelf to review");
});

Deno.test("confirm, score, note and remove find a work by any of its DOIs", async () => {
  const shelf = new Shelf();
  await shelf.track(ATTENTION_JOURNAL);
  await shelf.track(REPO);
  assert.ok(await shelf.confirm("https://doi.org/10.48550/arXiv.1706.03762"));
  assert.ok(await shelf.note("github:denoland/deno", "runtime"));
  assert.equal(await shelf.score("10.9999/missing", 3), undefined);
  const removed = await shelf.remove(["10.48550/arxiv.1706.03762", "10.9999/missing"]);
  assert.deepEqual(removed, ["10.5555/3295222.3295349"]);
  const state = await shelf.snapshot();
  assert.deepEqual([...state.active.keys()], ["github:denoland/deno"]);
  assert.equal(state.active.get("github:denoland/deno")!.notes, "runtime");
});
