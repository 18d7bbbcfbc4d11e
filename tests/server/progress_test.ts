/**
 * Progress notifications, through real clients (SDK v2 in the 2025 era and
 * pinned to 2026-07-28, SDK v1) over stdio and HTTP: a client that passes
 * `onprogress` (so its request carries a progress token) hears about a slow
 * download (bytes of the total the upstream announced) and the conversion
 * of the large page that follows; the values only grow, and within a stage
 * the notifications are rate-limited.
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
  assert.ok(downloads.every((p) => p.total === BYTES), `${where}: download total is the length`);
  assert.ok(downloads.at(-1)!.progress <= BYTES);
  assert.ok(seen.some((p) => /^convert/.test(p.message ?? "")), `${where}: no conversion stage`);
  for (let i = 1; i < seen.length; i++) {
    assert.ok(seen[i].progress > seen[i - 1].progress, `${where}: progress went back at ${i}`);
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
