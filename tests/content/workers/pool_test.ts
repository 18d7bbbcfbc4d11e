/**
 * The conversion pool (lib/content/workers/pool.ts) in this process: a page
 * that comes while every worker only builds the indexes of a page it has
 * answered gets a worker of its own at once, instead of waiting for those
 * indexes (the 16 MB page of `attributes` waited 7.8 s behind the indexes
 * of 463,000 tiny sections); the extra worker ends once no page waits.
 */
import assert from "node:assert/strict";
import {
  closeWorkers,
  convertInWorker,
  poolSize,
  poolState,
  workersUsable,
} from "../../../lib/content/workers/pool.ts";

/** A page of many short sections: its indexes take a while after its answer. */
function sections(count: number): string {
  const parts = ["<!doctype html><title>Sections</title><body>"];
  for (let i = 0; i < count; i++) parts.push(`<h2>Part ${i}</h2><p>Words of part ${i}.</p>`);
  return parts.join("");
}

Deno.test({
  name: "pool: a page does not wait for the indexes of the page answered before it",
  ignore: !workersUsable(),
  async fn() {
    try {
      const first = await convertInWorker({ html: sections(20_000) }, "https://a.test/", {});
      assert.ok(first, "the page was not converted in a worker");
      // The first page is answered and its worker builds its indexes: they come in a later
      // message, so this runs before them, whatever the machine's speed.
      assert.equal(poolState().indexing, 1);
      const second = convertInWorker({ html: sections(10) }, "https://b.test/", {});
      second.catch(() => {}); // rejected by closeWorkers when an assertion fails first
      const state = poolState();
      assert.equal(state.waiting, 0, `the second page waits: ${JSON.stringify(state)}`);
      assert.equal(state.converting, 1);
      const converted = await second;
      assert.ok(converted);
      assert.ok((await first.indexes) !== undefined, "the first page's indexes were not built");
      await converted.indexes;
      // The worker started beside the pool's own ended once no page waited.
      assert.ok(poolState().workers <= poolSize(), JSON.stringify(poolState()));
      assert.equal(poolState().converting + poolState().indexing, 0);
    } finally {
      closeWorkers();
    }
  },
});
