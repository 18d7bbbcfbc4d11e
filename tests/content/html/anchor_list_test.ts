/**
 * The converter's list of anchors (lib/content/html/anchor_list.ts): the
 * same answers as a Map filled the same way (the first offset of an id
 * wins, page order kept), ids that agree on every sampled character, the
 * Map it falls back to when they collide too often, and `retain`.
 */
import assert from "node:assert/strict";
import { AnchorList } from "../../../lib/content/html/anchor_list.ts";
import { AnchorTable } from "../../../lib/content/document/anchors.ts";

/** Fills a list and a Map with the same calls, and checks they agree. */
function same(ids: string[]): AnchorList {
  const list = new AnchorList();
  const map = new Map<string, number>();
  ids.forEach((id, i) => {
    list.add(id, i);
    if (!map.has(id)) map.set(id, i);
  });
  assert.deepEqual([...list], [...map]);
  assert.equal(list.size, map.size);
  for (const id of ids) assert.equal(list.get(id), map.get(id));
  assert.equal(list.get("absent"), undefined);
  assert.equal(list.has("absent"), false);
  return list;
}

Deno.test("anchor list: first offset wins, page order, lookups as a Map", () => {
  same(["a", "b", "a", "long-id-of-a-specification", "b", "", "é", "😀", "x".repeat(100)]);
  // Thousands of ids, with repeats, across the table's growth.
  same(Array.from({ length: 5000 }, (_, i) => `section-${i % 3000}-${"z".repeat(i % 17)}`));
});

Deno.test("anchor list: ids that agree on the sampled characters are told apart", () => {
  // Only the middle differs, where none of the eight sampled characters falls: every id
  // collides, and the list turns to a Map rather than compare each with all the others.
  const ids = Array.from(
    { length: 3000 },
    (_, i) => `${"a".repeat(20)}${String(i).padStart(4, "0")}${"b".repeat(20)}`,
  );
  same([...ids, ...ids.slice(0, 100)]);
});

Deno.test("anchor list: retain keeps the moved ids in order, and lookups follow", () => {
  const list = same(["p", "q", "r", "s"]);
  list.retain(Int32Array.from([5, -1, 7, -1]));
  assert.deepEqual([...list], [["p", 5], ["r", 7]]);
  assert.equal(list.get("q"), undefined);
  assert.equal(list.get("r"), 7);
  assert.deepEqual([...AnchorTable.from(list)], [["p", 5], ["r", 7]]);
});
