/**
 * Progress notifications, through real clients (SDK v2 in the 2025 era and
 * pinned to 2026-07-28, SDK v1) over stdio and HTTP: a client that passes
 * `onprogress` (so its request carries a progress token) hears about a slow
 * download (its bytes of the length the upstream announced, in the
 * messages) and the conversion of the large page that follows, as one
 * series: every notification has the same total, the values only grow and
 * never pass it, and within a stage the notifications are rate-limited.
 */
import assert from "node:assert/strict";
import {
  CLIENT_KINDS,
  connectClient,
  largeHtml,
  type ProgressSeen,
  type TestClient,
  Upstream,
} from "../support/clients.ts";
import { HttpServerProcess, MAIN, ROOT_DIR } from "../support/process.ts";
import { PROGRESS_TOTAL } from "../../lib/runtime/progress.ts";
import { formatBytes } from "../../lib/net/body.ts";

const FLAGS = [`--allow-read=${ROOT_DIR}`];
const ENV = { MCP_ALLOW_PRIVATE_IPS: "1" };
const HTML = largeHtml(6_000);
const BYTES = new TextEncoder().encode(HTML).length;
const upstream = new Upstream(HTML);

async function checkProgress(client: TestClient, label: string): Promise<void> {
  const seen: ProgressSeen[] = [];
  const result = await client.call(
    "web_fetch_sections",
    { url: `${upstream.url}/page?slow=50&id=${label}` },
    { onprogress: (p) => seen.push(p) },
  );
  assert.ok(!result.isError, JSON.stringify(result.content).slice(0, 300));
  const where = `${label}: ${JSON.stringify(seen.map((p) => [p.progress, p.total, p.message]))}`;
  const downloads = seen.filter((p) => /^downloaded /.test(p.message ?? ""));
  assert.ok(downloads.length >= 3, `${where}: too few download notifications`);
  assert.ok(
    downloads.every((p) => p.message!.includes(` of ${formatBytes(BYTES)} from `)),
    `${where}: the download's length in its messages`,
  );
  const converts = seen.filter((p) => /^convert/.test(p.message ?? ""));
  assert.ok(converts.length >= 1, `${where}: no conversion stage`);
  assert.ok(seen.indexOf(converts[0]) > seen.indexOf(downloads.at(-1)!), `${where}: in order`);
  for (const [i, p] of seen.entries()) {
    assert.equal(p.total, PROGRESS_TOTAL, `${where}: one total, never dropped (at ${i})`);
    assert.ok(p.progress < PROGRESS_TOTAL, `${where}: the total is not passed (at ${i})`);
    if (i > 0) assert.ok(p.progress > seen[i - 1].progress, `${where}: went back at ${i}`);
  }
  // 40 pieces in 2 s, at most one notification per 200 ms (with slack for delivery jitter).
  assert.ok(downloads.length <= 2_000 / 200 + 6, `${where}: not rate-limited`);
}

for (const kind of CLIENT_KINDS) {
  Deno.test(`progress: ${kind} over stdio hears the download and the conversion`, async () => {
    const client = await connectClient(kind, { env: ENV, flags: FLAGS });
    try {
      await checkProgress(client, `stdio-${kind}`);
    } finally {
      await client.close();
    }
  });
}

Deno.test("progress: every client over HTTP hears the download and the conversion", async (t) => {
  const server = await HttpServerProcess.start(MAIN, [], ENV, FLAGS);
  try {
    for (const kind of CLIENT_KINDS) {
      await t.step(kind, async () => {
        const client = await connectClient(kind, { url: server.url });
        try {
          await checkProgress(client, `http-${kind}`);
        } finally {
          await client.close();
        }
      });
    }
  } finally {
    assert.equal(await server.stop(), 0);
  }
});

Deno.test("progress: no notification without a progress token", async () => {
  const client = await connectClient("v2-2025", { env: ENV, flags: FLAGS });
  try {
    const result = await client.call("web_fetch_sections", {
      url: `${upstream.url}/page?slow=20&id=no-token`,
    });
    assert.ok(!result.isError);
    assert.ok(!client.received.some((m) => m.method === "notifications/progress"));
  } finally {
    await client.close();
  }
});

Deno.test({ name: "progress: teardown", fn: async () => await upstream.close() });
