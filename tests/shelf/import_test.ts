/**
 * Import: a JSON export merges back; the shelf's own scores, notes and
 * confirmations win; malformed data changes nothing and says what is wrong;
 * parkour-mcp's export format is accepted.
 */
import assert from "node:assert/strict";
import { ImportError, parseImport, toJson } from "../../lib/shelf/json.ts";
import { byAdded } from "../../lib/shelf/merge.ts";
import { Shelf } from "../../lib/shelf/shelf.ts";
import { ATTENTION_ARXIV, NATURE, REPO, RETRACTED, RFC9110 } from "./fixtures.ts";

async function exported(): Promise<string> {
  const shelf = new Shelf();
  for (const input of [NATURE, RFC9110, REPO, RETRACTED]) await shelf.track(input);
  await shelf.score(NATURE.doi, 8);
  await shelf.note(NATURE.doi, "seminal review");
  await shelf.confirm(RFC9110.doi);
  const state = await shelf.snapshot();
  return toJson(byAdded(state.active), byAdded(state.retracted));
}

Deno.test("an export imports into an empty shelf unchanged", async () => {
  const json = await exported();
  const shelf = new Shelf();
  assert.deepEqual(await shelf.import(json), { created: 4, updated: 0, retracted: 1 });
  const state = await shelf.snapshot();
  assert.equal(toJson(byAdded(state.active), byAdded(state.retracted)), json);
  assert.equal(state.active.get("10.1038/nature14539")!.score, 8);
});

Deno.test("importing merges: existing scores, notes and confirmations win; missing ones are filled", async () => {
  const json = await exported();
  const shelf = new Shelf();
  await shelf.track(NATURE);
  await shelf.score(NATURE.doi, 3);
  await shelf.track(RFC9110);
  await shelf.track(ATTENTION_ARXIV);
  const summary = await shelf.import(json);
  assert.deepEqual(summary, { created: 2, updated: 2, retracted: 1 });
  const state = await shelf.snapshot();
  const nature = state.active.get("10.1038/nature14539")!;
  assert.equal(nature.score, 3, "the shelf's own score wins");
  assert.equal(nature.notes, "seminal review", "a note the shelf lacked is filled in");
  assert.equal(state.active.get("10.17487/rfc9110")!.confirmed, true);
  assert.equal(state.active.size, 4);
  assert.equal(state.retracted.size, 1);
});

Deno.test("malformed import data is refused whole, naming the problem", async () => {
  const shelf = new Shelf();
  await shelf.track(NATURE);
  const before = JSON.stringify([...(await shelf.snapshot()).active]);
  const cases: [string, RegExp][] = [
    ["{not json", /not valid JSON/],
    ["[1,2]", /must be a JSON object/],
    ['{"active": []}', /"active" must be an object/],
    ['{"active": {"x": {"doi": "nonsense", "title": "T"}}}', /active\["x"\]\.doi: not a DOI/],
    ['{"active": {"x": {"doi": "10.1234/a"}}}', /active\["x"\]\.title/],
    [
      '{"active": {"x": {"doi": "10.1234/a", "title": "T", "year": "2020"}}}',
      /active\["x"\]\.year/,
    ],
    [
      '{"active": {"a": {"doi": "10.1234/a", "title": "ok"}, "b": {"doi": "10.1234/b", "title": "T", "score": 1.5}}}',
      /active\["b"\]\.score/,
    ],
    ['{"retracted": {"x": {"doi": "10.1234/a", "title": "T"}}}', /needs its retraction notice/],
    [
      '{"active": {"x": {"doi": "10.1234/a", "title": "T", "retraction": {"notice_doi": "no"}}}}',
      /retraction\.notice_doi: not a DOI/,
    ],
    [
      JSON.stringify({
        active: {
          big: {
            doi: "10.1234/big",
            title: "Big",
            authors: Array.from({ length: 100 }, () => "x".repeat(300)),
            notes: "n".repeat(4000),
            alt_dois: Array.from({ length: 50 }, (_, i) => `10.1234/${i}${"y".repeat(240)}`),
          },
        },
      }),
      /active\["big"\]: the record is \d+ bytes, more than the 40000 accepted/,
    ],
  ];
  for (const [data, message] of cases) {
    await assert.rejects(shelf.import(data), (e: Error) => {
      assert.ok(e instanceof ImportError, `${data}: ${e}`);
      assert.match(e.message, message, data);
      assert.match(e.message, /nothing was imported|not valid JSON|must be/);
      return true;
    });
  }
  assert.equal(JSON.stringify([...(await shelf.snapshot()).active]), before, "nothing changed");
});

Deno.test("parkour-mcp exports (extra fields, no kind) and the legacy flat map import", () => {
  const python = {
    active: {
      "10.48550/arXiv.1706.03762": {
        doi: "10.48550/arXiv.1706.03762",
        title: "Attention Is All You Need",
        authors: ["Vaswani, Ashish"],
        year: 2017,
        venue: null,
        alt_dois: [],
        source_tool: "arxiv",
        bibtex: "@misc{x, title={y}}",
        orcids: null,
        added: "2026-01-02T03:04:05Z",
        score: 9,
        confirmed: true,
        notes: null,
        retraction: null,
      },
    },
    retracted: {
      "10.1016/S0140-6736(20)31180-6": {
        doi: "10.1016/S0140-6736(20)31180-6",
        title: "Hydroxychloroquine ...",
        authors: [],
        retraction: {
          notice_doi: "10.1016/S0140-6736(20)31324-6",
          date: "2020-06-05",
          source: "retraction-watch",
          label: "Retraction",
        },
      },
    },
  };
  const records = parseImport(JSON.stringify(python));
  assert.equal(records.length, 2);
  assert.equal(records[0].record.doi, "10.48550/arxiv.1706.03762");
  assert.equal(records[0].record.score, 9);
  assert.equal(records[0].record.added, "2026-01-02T03:04:05Z");
  assert.equal(records[1].record.retraction?.kind, "retraction");
  const flat = parseImport(JSON.stringify({ "10.1038/x1": { doi: "10.1038/x1", title: "T" } }));
  assert.equal(flat[0].record.doi, "10.1038/x1");
  assert.deepEqual(parseImport("{}"), []);
});
