/**
 * A page's anchors as flat parts (lib/content/document/anchors.ts): the same answers
 * as the Map they were made from, for every id and after crossing to
 * another thread's form, with hostile ids included.
 */
import assert from "node:assert/strict";
import { AnchorTable } from "../../../lib/content/document/anchors.ts";

/** A seeded generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHABET = ["a", "b", "A", "-", "_", "1", "é", "ж", "😀", "\n", "\0", " ", "#"];

function randomIds(next: () => number, count: number): Map<string, number> {
  const map = new Map<string, number>();
  while (map.size < count) {
    const length = Math.floor(next() * 8);
    let id = "";
    for (let i = 0; i < length; i++) id += ALPHABET[Math.floor(next() * ALPHABET.length)];
    if (!map.has(id)) map.set(id, Math.floor(next() * 1e6));
  }
  return map;
}

/** The table after a trip to another thread: parts cloned, buffers moved. */
function crossed(table: AnchorTable): AnchorTable {
  const parts = table.toParts();
  return AnchorTable.fromParts(structuredClone(parts, { transfer: AnchorTable.buffersOf(parts) }));
}

Deno.test("anchors: every id is found at its offset, others are not, order is the page's", () => {
  for (const seed of [1, 2, 3]) {
    const next = random(seed);
    const map = randomIds(next, 500);
    const table = AnchorTable.from(map);
    assert.equal(table.size, map.size);
    assert.deepEqual([...table], [...map], `seed ${seed}: iteration in page order`);
    assert.deepEqual([...table.keys()], [...map.keys()]);
    for (const [id, offset] of map) {
      assert.equal(table.get(id), offset, `seed ${seed}: ${JSON.stringify(id)}`);
    }
    // Ids that are not there: neighbours in sort order, prefixes and extensions of real ones.
    const absent = randomIds(next, 500);
    for (const id of absent.keys()) {
      for (const probe of [id, `${id}x`, id.slice(0, -1)]) {
        assert.equal(table.get(probe), map.get(probe), `seed ${seed}: ${JSON.stringify(probe)}`);
        assert.equal(table.has(probe), map.has(probe));
      }
    }
  }
});

Deno.test("anchors: a table crosses threads as parts and answers the same", () => {
  const map = randomIds(random(7), 2000);
  const table = AnchorTable.from(new Map(map));
  const copy = crossed(table);
  assert.deepEqual([...copy], [...map]);
  for (const [id, offset] of map) assert.equal(copy.get(id), offset);
  // The sender's buffers moved: its table is empty, as documented.
  assert.equal(table.size, 0);
});

Deno.test("anchors: the order by id is sorted at the first lookup, with the same answers", () => {
  const map = randomIds(random(11), 1000);
  const table = AnchorTable.from(map);
  const bytes = table.approxBytes();
  // Iterating (as the section tree does) needs no order by id.
  assert.deepEqual([...table], [...map]);
  assert.equal(table.sorted, false, "not sorted before a lookup");
  assert.equal(table.get([...map.keys()][500]), [...map.values()][500]);
  assert.equal(table.sorted, true, "sorted by the first lookup");
  assert.equal(table.approxBytes(), bytes, "the page cache's count does not move with a lookup");
  for (const [id, offset] of map) assert.equal(table.get(id), offset);
  // Parts taken before any lookup carry the order: the other thread's table answers at once.
  const fresh = AnchorTable.from(map);
  const copy = crossed(fresh);
  assert.equal(copy.sorted, true);
  for (const [id, offset] of map) assert.equal(copy.get(id), offset);
  for (const id of randomIds(random(12), 300).keys()) assert.equal(copy.get(id), map.get(id));
});

Deno.test("anchors: prefixes, case and wide characters are told apart", () => {
  const map = new Map([["a", 1], ["ab", 2], ["a-b", 3], ["A", 4], ["", 5], ["日本", 6], ["日", 7]]);
  const table = crossed(AnchorTable.from(map));
  for (const [id, offset] of map) assert.equal(table.get(id), offset);
  assert.equal(table.get("abc"), undefined);
  assert.equal(table.get("B"), undefined);
  assert.ok(table.approxBytes() > 0);
});

Deno.test("anchors: no ids is the empty table; parts that do not fit are refused", () => {
  const empty = AnchorTable.from(new Map());
  assert.equal(empty.size, 0);
  assert.equal(empty.get("x"), undefined);
  assert.deepEqual([...crossed(empty)], []);
  const parts = AnchorTable.from(new Map([["a", 1], ["b", 2]])).toParts();
  assert.throws(
    () => AnchorTable.fromParts({ ...parts, ids: "abc" }),
    /anchor parts that do not fit together/,
  );
  assert.throws(
    () => AnchorTable.fromParts({ ...parts, order: new Int32Array(1) }),
    /do not fit/,
  );
});

Deno.test({
  name: "anchors: large pages with and without ids convert one after another in one worker",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const { htmlDocumentOffThread } = await import("../../../lib/content/pipeline.ts");
    const { closeWorkers, workersUsable } = await import("../../../lib/content/workers/pool.ts");
    assert.ok(workersUsable(), "this test needs the conversion worker");
    // Over the worker threshold (512 K characters), with ids or none (the shared empty table).
    const body = (ids: boolean) =>
      Array.from(
        { length: 3000 },
        (_, i) =>
          `<h2${ids ? ` id="s${i}"` : ""}>Part ${i}</h2><p>${"words of the page ".repeat(12)}</p>`,
      ).join("");
    try {
      for (const ids of [false, false, true, false]) {
        const doc = await htmlDocumentOffThread(
          `<html><body><main>${body(ids)}</main></body></html>`,
          `https://example.test/${ids}`,
        );
        assert.equal(doc.anchors.size, ids ? 3000 : 0);
        assert.equal(doc.sections.length, 3000);
        if (ids) {
          assert.equal(doc.sectionOfAnchor("s2999"), 2999);
          assert.equal(doc.sections[17].id, "s17");
        } else assert.equal(doc.sectionOfAnchor("s1"), undefined);
      }
    } finally {
      closeWorkers();
    }
  },
});
