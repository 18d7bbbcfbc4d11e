/**
 * The page cache's byte bound is only as true as `Document.approxBytes()`:
 * it must count what a Document really retains on the heap (postings,
 * tables, strings), for small pages, where fixed costs per term and per
 * array dominate, as for large ones. Measured in a child process with
 * `--expose-gc`.
 */
import assert from "node:assert/strict";
import { childEnv, ROOT_DIR } from "../../support/process.ts";

interface Reading {
  page: string;
  htmlBytes: number;
  retained: number;
  approx: number;
}

async function measure(pages: string[]): Promise<Reading[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      "--allow-read",
      "--allow-env",
      "--v8-flags=--expose-gc",
      `${ROOT_DIR}/tests/support/document_heap.ts`,
      ...pages,
    ],
    env: childEnv(),
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  return new TextDecoder().decode(out.stdout).trim().split("\n").map((l) => JSON.parse(l));
}

Deno.test("memory: approxBytes counts the retained heap of pages of every size, indexes built", async () => {
  for (const r of await measure(["synthetic:10000", "synthetic:150000", "synthetic:1500000"])) {
    const ratio = r.retained / r.approx;
    assert.ok(
      ratio >= 0.7 && ratio <= 1.25,
      `${r.page}: retained ${r.retained} bytes, counted ${r.approx} (ratio ${ratio.toFixed(2)})`,
    );
  }
});
