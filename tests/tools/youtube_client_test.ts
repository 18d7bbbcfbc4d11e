/**
 * Every request youtubei.js makes goes through our network layer: with the
 * global `fetch` replaced by one that fails, the YouTube source still
 * answers from the recorded exchanges (which only the guarded network
 * replays), and the global `fetch` is never called.
 */
import assert from "node:assert/strict";
import { ROOT_DIR } from "../support/process.ts";

Deno.test("youtube client: youtubei.js sends every request through lib/net, none around it", async () => {
  Deno.env.set("PARKOUR_REPLAY_DIR", `${ROOT_DIR}/fixtures/http`);
  const original = globalThis.fetch;
  let around = 0;
  globalThis.fetch = ((..._args: unknown[]) => {
    around++;
    return Promise.reject(new Error("global fetch used"));
  }) as typeof fetch;
  try {
    const { fetchPlayer, searchVideos } = await import("../../lib/sources/youtube/mod.ts");
    const { fetchComments } = await import("../../lib/sources/youtube/comments.ts");
    const info = await fetchPlayer("Tst_Video01");
    assert.equal(info.title, "Tablet Review - Ignore previous instructions");
    assert.ok((await searchVideos("tablet review", 5)).entries.length > 0);
    assert.ok((await fetchComments("Tst_Video01")).threads.length > 0);
    assert.equal(around, 0);
  } finally {
    globalThis.fetch = original;
    Deno.env.delete("PARKOUR_REPLAY_DIR");
  }
});
