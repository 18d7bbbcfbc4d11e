/**
 * The KV store: the shelf survives reopening, and two handles on one file
 * writing at the same time lose nothing (checked transactions, retried on
 * conflicts and on SQLite's "database is locked"). The same with two server
 * processes is in tests/tools/research_shelf_test.ts.
 */
import assert from "node:assert/strict";
import { KvStore } from "../../lib/shelf/store.ts";
import { Shelf } from "../../lib/shelf/shelf.ts";
import { NATURE, RETRACTED, RFC9110 } from "./fixtures.ts";

Deno.test({
  name: "KV shelf survives reopening, clear empties it",
  async fn() {
    const dir = await Deno.makeTempDir();
    const path = `${dir}/shelf.kv`;
    try {
      const first = new Shelf(await KvStore.open(path));
      await first.track(NATURE);
      await first.track(RETRACTED);
      await first.score(NATURE.doi, 8);
      first.store.close();
      const second = new Shelf(await KvStore.open(path));
      const state = await second.snapshot();
      assert.equal(state.active.get("10.1038/nature14539")?.score, 8);
      assert.equal(state.retracted.size, 1);
      assert.equal(await second.clear(), 2);
      await second.track(RFC9110);
      second.store.close();
      const third = new Shelf(await KvStore.open(path));
      const after = await third.snapshot();
      assert.deepEqual([...after.active.keys()], ["10.17487/rfc9110"]);
      assert.equal(after.retracted.size, 0);
      third.store.close();
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "two KV handles on one file writing concurrently lose no write",
  async fn() {
    const dir = await Deno.makeTempDir();
    const path = `${dir}/shelf.kv`;
    try {
      const a = new Shelf(await KvStore.open(path));
      const b = new Shelf(await KvStore.open(path));
      const n = 40;
      await Promise.all(
        Array.from(
          { length: n },
          (_, i) =>
            (i % 2 ? a : b).track({ ...NATURE, doi: `10.1234/work${i}`, title: `Work ${i}` }),
        ),
      );
      // Then concurrent edits of the same records from both handles.
      await Promise.all(
        Array.from(
          { length: n },
          (_, i) =>
            i % 2 ? a.score(`10.1234/work${i}`, i) : b.note(`10.1234/work${i}`, `note ${i}`),
        ),
      );
      const state = await a.snapshot();
      assert.equal(state.active.size, n);
      for (let i = 0; i < n; i++) {
        const r = state.active.get(`10.1234/work${i}`)!;
        if (i % 2) assert.equal(r.score, i);
        else assert.equal(r.notes, `note ${i}`);
      }
      a.store.close();
      b.store.close();
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
