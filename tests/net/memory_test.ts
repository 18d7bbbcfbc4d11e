/**
 * After large work the heap's garbage is given back: reclaimMemory runs a
 * full collection when the heap holds far more than the caches do, and not
 * when it does not.
 */
import assert from "node:assert/strict";
import { RECLAIM_SLACK_BYTES, reclaimMemory } from "../../lib/net/memory.ts";

Deno.test("memory: a heap well above what is retained is collected, and shrinks", async () => {
  let garbage: unknown[] | null = Array.from({ length: 2_000_000 }, (_, i) => ({ i, s: `x${i}` }));
  const before = Deno.memoryUsage();
  assert.ok(before.heapTotal > RECLAIM_SLACK_BYTES, "the test made a large heap");
  garbage = null;
  // The collection's timer does not hold the process open (a server's listener does): hold it.
  const hold = setInterval(() => {}, 50);
  try {
    assert.equal(await reclaimMemory(0), true);
  } finally {
    clearInterval(hold);
  }
  const after = Deno.memoryUsage();
  assert.equal(garbage, null);
  assert.ok(
    after.heapUsed < before.heapUsed / 2,
    `heap used ${after.heapUsed} after, ${before.heapUsed} before`,
  );
  // Now the heap is small: nothing to do.
  assert.equal(await reclaimMemory(Deno.memoryUsage().heapTotal), false);
});
