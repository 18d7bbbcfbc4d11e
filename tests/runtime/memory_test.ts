/**
 * After large work the heap's garbage is given back: reclaimMemory runs a
 * full collection when the heap holds far more than the caches do, and not
 * when it does not.
 */
import assert from "node:assert/strict";
import {
  answerFirst,
  collectBetweenStages,
  expectedLive,
  prepareCollector,
  RECLAIM_AFTER_ANSWER_MS,
  RECLAIM_INTERVAL_MS,
  RECLAIM_SLACK_BYTES,
  reclaimMemory,
} from "../../lib/runtime/memory.ts";

Deno.test("memory: a collection between stages of synchronous work frees the garbage at once", async () => {
  assert.equal(await prepareCollector(), true);
  let garbage: unknown[] | null = Array.from({ length: 2_000_000 }, (_, i) => ({ i, s: `x${i}` }));
  const before = Deno.memoryUsage().heapUsed;
  garbage = null;
  assert.equal(collectBetweenStages(), true);
  const after = Deno.memoryUsage().heapUsed;
  assert.equal(garbage, null);
  assert.ok(after < before / 2, `heap used ${after} after, ${before} before`);
});

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

Deno.test("memory: pages stored since the last collection are live, pages evicted are garbage", async () => {
  const MB = 1024 * 1024;
  // The last collection left 200 MB while the caches held 150 MB.
  assert.equal(expectedLive(150 * MB, 200 * MB, 150 * MB), 200 * MB);
  // A 32 MB page stored since is live, not garbage: it moves the expectation up.
  assert.equal(expectedLive(182 * MB, 200 * MB, 150 * MB), 232 * MB);
  // A page evicted since is garbage: the expectation goes down with it.
  assert.equal(expectedLive(118 * MB, 200 * MB, 150 * MB), 168 * MB);
  // Never below what the caches hold (an estimate of the heap may undercount).
  assert.equal(expectedLive(300 * MB, 100 * MB, 250 * MB), 300 * MB);
  // Through reclaimMemory: a heap the caches account for (they hold what it holds beyond the
  // last collection's floor, the first call's 0) is not collected, however large.
  let pages: unknown[] | null = Array.from({ length: 1_000_000 }, (_, i) => ({ i, s: `y${i}` }));
  const usage = Deno.memoryUsage();
  assert.equal(await reclaimMemory(usage.heapTotal + usage.external), false);
  pages = null;
  assert.equal(pages, null);
});

Deno.test("memory: a collection asked for during a call runs once the call has answered", async () => {
  // Past the least interval since the last collection: only the call can hold this one back.
  await new Promise((resolve) => setTimeout(resolve, RECLAIM_INTERVAL_MS));
  let garbage: unknown[] | null = Array.from({ length: 2_000_000 }, (_, i) => ({ i, s: `z${i}` }));
  assert.ok(Deno.memoryUsage().heapTotal > RECLAIM_SLACK_BYTES, "the test made a large heap");
  garbage = null;
  const hold = setInterval(() => {}, 50);
  try {
    let asked: Promise<boolean> | undefined;
    let ranAt = 0;
    let answeredAt = 0;
    let settledInCall = false;
    const answer = await answerFirst(async () => {
      // The load asks; the call goes on to make its answer (100 ms of it here).
      asked = reclaimMemory(0).then((ran) => {
        ranAt = performance.now();
        return ran;
      });
      asked.then(() => settledInCall = answeredAt === 0);
      await new Promise((resolve) => setTimeout(resolve, 100));
      answeredAt = performance.now();
      return "the answer";
    });
    assert.equal(answer, "the answer");
    assert.equal(await asked, true, "the collection ran");
    assert.equal(settledInCall, false, "not while the call was being answered");
    assert.ok(
      ranAt - answeredAt >= RECLAIM_AFTER_ANSWER_MS - 5,
      `ran ${ranAt - answeredAt} ms after the answer`,
    );
    assert.equal(garbage, null);
  } finally {
    clearInterval(hold);
  }
});
