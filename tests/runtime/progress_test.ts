/**
 * One series of progress notifications out of a call's stages: every
 * notification carries the same total, progress only rises and never
 * reaches it, whatever the stages count in and in whatever order they come
 * (the series that once read 3013/3013, then 3014 with no total, then
 * 3015/3015); a tool's own steps keep their places with downloads inside
 * them; notifications are rate-limited within a stage.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  MIN_INTERVAL_MS,
  PROGRESS_TOTAL,
  ProgressReporter,
  STAGE_SHARE,
} from "../../lib/runtime/progress.ts";

interface Sent {
  progress: number;
  total?: number;
  message?: string;
}

/** A reporter whose clock the test moves, and what it sent. */
function reporter(): { r: ProgressReporter; sent: Sent[]; tick: (ms: number) => void } {
  const sent: Sent[] = [];
  let now = 0;
  const r = new ProgressReporter(
    (progress, total, message) => {
      sent.push({ progress, total, message });
    },
    () => now,
  );
  return { r, sent, tick: (ms) => (now += ms) };
}

function assertSeries(sent: Sent[], where = ""): void {
  for (const [i, s] of sent.entries()) {
    assert.equal(s.total, PROGRESS_TOTAL, `${where} total at ${i}: ${JSON.stringify(sent)}`);
    assert.ok(s.progress >= 0 && s.progress < PROGRESS_TOTAL, `${where} within the total at ${i}`);
    if (i > 0) assert.ok(s.progress > sent[i - 1].progress, `${where} rises at ${i}`);
  }
}

Deno.test("progress: a download then a conversion is one rising series of one total", () => {
  const { r, sent, tick } = reporter();
  for (let n = 0; n <= 3013; n += 1000) {
    r.report("download", Math.min(n, 3013), 3013, `downloaded ${n}`);
    tick(MIN_INTERVAL_MS);
  }
  r.report("download", 3013, 3013, "downloaded 3013");
  r.report("convert", 0, undefined, "converting");
  r.report("convert", 1, 1, "converted");
  assertSeries(sent);
  const end = sent.find((s) => s.message === "downloaded 3013")!;
  assert.equal(end.progress, PROGRESS_TOTAL * STAGE_SHARE.download, "the download's share");
  assert.deepEqual(sent.slice(-2).map((s) => s.message), ["converting", "converted"]);
});

Deno.test("progress: a second download in the same call takes a new share", () => {
  const { r, sent } = reporter();
  r.report("download", 500, 1000);
  r.report("download", 1000, 1000);
  r.report("download", 10, 2000, "second");
  r.report("download", 2000, 2000, "second done");
  assertSeries(sent);
  assert.equal(sent.length, 4, JSON.stringify(sent));
});

Deno.test("progress: a download of unknown length approaches its share without reaching it", () => {
  const { r, sent, tick } = reporter();
  for (let n = 0; n <= 50_000_000; n += 5_000_000) {
    r.report("download", n, undefined);
    tick(MIN_INTERVAL_MS);
  }
  assertSeries(sent);
  assert.ok(sent.at(-1)!.progress < PROGRESS_TOTAL * STAGE_SHARE.download);
});

Deno.test("progress: a tool's steps keep their places with downloads inside them", () => {
  const { r, sent, tick } = reporter();
  const steps: number[] = [];
  for (let k = 0; k < 4; k++) {
    r.report("tool", k, 4, `step ${k}`);
    steps.push(sent.at(-1)!.progress);
    for (let n = 0; n <= 100; n += 25) {
      tick(MIN_INTERVAL_MS);
      r.report("download", n, 100, `download in step ${k}`);
    }
    tick(MIN_INTERVAL_MS);
  }
  assertSeries(sent);
  const room = PROGRESS_TOTAL * STAGE_SHARE.tool;
  assert.deepEqual(steps.slice(1), [1, 2, 3].map((k) => (room * k) / 4));
  for (const s of sent.filter((s) => s.message === "download in step 1")) {
    assert.ok(s.progress > steps[1] && s.progress < steps[2], `${s.progress} inside step 1`);
  }
});

Deno.test("progress: within a stage, one notification per interval; the first and the end go", () => {
  const { r, sent, tick } = reporter();
  for (let n = 1; n <= 100; n++) {
    r.report("download", n, 100);
    tick(10);
  }
  assertSeries(sent);
  // 1 s of reports: the first, one per 200 ms, and the end.
  assert.ok(sent.length <= 1 + 1_000 / MIN_INTERVAL_MS + 1, `${sent.length} sent`);
  assert.equal(sent.at(-1)!.progress, PROGRESS_TOTAL * STAGE_SHARE.download);
});

Deno.test("progress: each step of a tool goes out, however close they come", () => {
  // A render of a quick page: its steps (load, read) within one interval of each other, a
  // conversion inside the last; repeats of a step and a download inside it stay rate-limited.
  const { r, sent, tick } = reporter();
  r.report("tool", 0, 3, "loading the page");
  tick(5);
  r.report("download", 10, 1000, "download in step 0");
  tick(5);
  r.report("download", 20, 1000, "download in step 0");
  tick(5);
  r.report("tool", 0, 3, "loading the page");
  tick(5);
  r.report("tool", 2, 3, "reading the page");
  tick(5);
  r.report("convert", 0, undefined, "converting");
  assertSeries(sent);
  assert.deepEqual(
    sent.map((s) => s.message),
    ["loading the page", "download in step 0", "reading the page", "converting"],
  );
});

Deno.test("progress: any sequence of reports is one rising series under one total", () => {
  const report = fc.record({
    stage: fc.constantFrom("download", "convert", "render", "tool", "other"),
    done: fc.oneof(fc.nat(5_000_000), fc.double({ noNaN: false })),
    total: fc.option(fc.oneof(fc.nat(5_000_000), fc.double()), { nil: undefined }),
    wait: fc.nat(400),
  });
  fc.assert(fc.property(fc.array(report, { maxLength: 60 }), (reports) => {
    const { r, sent, tick } = reporter();
    for (const { stage, done, total, wait } of reports) {
      tick(wait);
      r.report(stage, done, total);
    }
    assertSeries(sent);
  }));
});

Deno.test("progress: sent() settles once every notification so far is on its way", async () => {
  const pending: (() => void)[] = [];
  const r = new ProgressReporter(() => new Promise<void>((resolve) => pending.push(resolve)));
  r.report("tool", 1, 2, "halfway");
  let settled = false;
  const sent = r.sent().then(() => (settled = true));
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(settled, false, "waits for the notification");
  pending.forEach((resolve) => resolve());
  await sent;
  assert.equal(settled, true);
  // A sink that fails does not fail the call.
  const failing = new ProgressReporter(() => Promise.reject(new Error("gone")));
  failing.report("tool", 1, 2);
  await failing.sent();
});
