/**
 * One slow page does not hold other callers behind it. While a page of
 * 200,000 links (6.8 MB) converts in the server's conversion worker (on two
 * cores the pool has one), a question on a small cached page is answered,
 * a small uncached page converts (on the main thread), and a 600 kB
 * uncached page, which goes to the pool, converts in its second lane
 * (lib/content/workers/pool.ts): each answer arrives before the slow
 * page's. Through MCP, with a real client and the start task's flags; the
 * test asserts the order only (without the second lane the 600 kB page
 * waited for the slow page's conversion and indexes: 5.1 s against 1.5).
 */
import assert from "node:assert/strict";
import { callTool, startServer } from "../support/mcp_client.ts";
import { largeHtml } from "../support/clients.ts";

/** `<a href='/lN'>link N</a> ` 200,000 times in one paragraph. */
function links(count: number): string {
  const parts = ["<!doctype html><html><head><title>Links</title></head><body><p>"];
  for (let i = 0; i < count; i++) parts.push(`<a href='/l${i}'>link ${i}</a> `);
  parts.push("</p></body></html>");
  return parts.join("");
}

const BIG = new TextEncoder().encode(links(200_000));
/** About 600 kB: at least 512 KiB, so it converts in a worker. */
const MEDIUM = new TextEncoder().encode(largeHtml(1_400));
const SMALL = (id: string) =>
  new TextEncoder().encode(
    `<!doctype html><title>Small ${id}</title><h1>Small page ${id}</h1>` +
      `<h2>Tides</h2><p>The tide in the bay of ${id} turns twice a day, at the new and full moon highest.</p>` +
      `<h2>Boats</h2><p>Boats of ${id} leave at dawn.</p>`,
  );

const upstream = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
  const path = new URL(req.url).pathname;
  const body = path === "/big" ? BIG : path === "/medium" ? MEDIUM : SMALL(path.slice(1));
  return new Response(body, { headers: { "content-type": "text/html; charset=utf-8" } });
});
const BASE = `http://127.0.0.1:${upstream.addr.port}`;

Deno.test("slow page: while 200,000 links convert, a cached question, a small page and a 600 kB page are answered first", async () => {
  assert.ok(BIG.length > 6_500_000 && MEDIUM.length > 512 * 1024, `${BIG.length} ${MEDIUM.length}`);
  const { client } = await startServer({ env: { MCP_ALLOW_PRIVATE_IPS: "1" }, replay: false });
  try {
    const primed = await callTool(client, "web_fetch_sections", { url: `${BASE}/cached` });
    assert.equal(primed.isError, false, primed.text);

    const t0 = performance.now();
    let converting!: () => void;
    const started = new Promise<void>((resolve) => converting = resolve);
    let bigAt = Infinity;
    const big = callTool(client, "web_fetch_sections", { url: `${BASE}/big` }, {
      timeout: 120_000,
      onprogress: (p) => {
        if (/converting \d+ bytes/.test(p.message ?? "")) converting();
      },
    }).then((a) => {
      bigAt = performance.now() - t0;
      return a;
    });
    await started;

    const timed = async (name: string, args: Record<string, unknown>) => {
      const a = await callTool(client, name, args, { timeout: 120_000 });
      return { a, at: performance.now() - t0, settledBig: bigAt !== Infinity };
    };
    const [question, small, medium] = await Promise.all([
      timed("web_fetch_incisive", { url: `${BASE}/cached`, query: "when does the tide turn?" }),
      timed("web_fetch_incisive", { url: `${BASE}/fresh` }),
      timed("web_fetch_sections", { url: `${BASE}/medium` }),
    ]);
    const slow = await big;
    const took = (x: { at: number }) => `${Math.round(x.at)} ms`;
    console.log(
      `slow page ${Math.round(bigAt)} ms; question ${took(question)}, small ${
        took(small)
      }, 600 kB ${took(medium)}`,
    );

    assert.equal(question.a.isError, false, question.a.text);
    assert.equal(question.a.fm.cached, true);
    assert.ok(question.a.body.some((l) => /tide in the bay of cached turns twice/.test(l)));
    assert.equal(small.a.isError, false, small.a.text);
    assert.ok(
      small.a.body.some((l) => /tide in the bay of fresh turns twice/.test(l)),
      small.a.text,
    );
    assert.equal(medium.a.isError, false, medium.a.text);
    assert.equal(medium.a.fm.total_sections, 1_400, medium.a.text.slice(0, 600));
    // Each answer came while the slow page was still converting (or it was refused at the deadline).
    if (slow.isError) assert.match(slow.text, /did not convert within/);
    else {
      assert.match(slow.text, /^---\n/);
      for (
        const [label, x] of [["question", question], ["small", small], ["600 kB", medium]] as const
      ) {
        assert.equal(x.settledBig, false, `${label} answered after the slow page (${took(x)})`);
      }
    }
  } finally {
    await client.close();
  }
});

Deno.test({
  name: "slow page: shutdown",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await upstream.shutdown();
  },
});
