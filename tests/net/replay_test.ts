/**
 * Recorded exchanges: replay from fixtures/, record mode, shared captures.
 */
import { sharedDir } from "../support/shared.ts";
import assert from "node:assert/strict";
import { classifyAddress } from "../../lib/net/address.ts";
import { NetError } from "../../lib/net/errors.ts";
import { Net } from "../../lib/net/fetch.ts";
import { recordingTransport, ReplayStore } from "../../lib/net/replay.ts";
import { tableResolver } from "../../lib/net/resolver.ts";
import { pinnedTransport } from "../../lib/net/transport.ts";
import { ROOT_DIR } from "../support/process.ts";

const FIXTURES = `${ROOT_DIR}/fixtures/http`;
const SHARED = sharedDir();

function replayNet(dir = FIXTURES, shared?: string): Net {
  const store = new ReplayStore(dir, shared);
  return new Net({ transport: store.transport(), resolver: store.resolver() });
}

Deno.test("replay: a committed exchange is served through the guarded fetch", async () => {
  const result = await replayNet().fetch("https://example.org/old-cafe");
  assert.equal(result.status, 200);
  assert.deepEqual(result.redirects, ["https://example.org/old-cafe"]);
  assert.equal(result.url, "https://example.org/cafe");
  assert.match(result.text(), /<title>Café notes<\/title>/);
  assert.match(result.text(), /“Quoted” text, 5€\./);
  assert.deepEqual(result.charset(), { encoding: "windows-1252", source: "meta" });
  assert.equal(result.remoteAddress, "93.184.215.14");
});

Deno.test("replay: a request with no recording fails with advice", async () => {
  const error = await replayNet().fetch("https://example.org/nothing-here").catch((e) => e);
  assert.ok(error instanceof NetError);
  assert.equal(error.kind, "replay_missing");
  assert.match(
    error.message,
    /no recorded exchange for GET https:\/\/example\.org\/nothing-here.*PARKOUR_RECORD_DIR/,
  );
});

Deno.test("replay: the address check still applies to replayed hosts", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${dir}/internal.json`,
      JSON.stringify({
        request: { method: "GET", url: "http://intranet.example/" },
        response: { status: 200, body: "secret" },
        address: "10.0.0.7",
        provenance: "test",
      }),
    );
    const error = await replayNet(dir).fetch("http://intranet.example/").catch((e) => e);
    assert.equal(error.kind, "blocked_address");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("record mode writes exchanges that replay identically", async () => {
  const dir = await Deno.makeTempDir();
  const body = "<html><body>" + "recorded ".repeat(200) + "</body></html>";
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async () => {
    const gz = await new Response(
      new Blob([body]).stream().pipeThrough(new CompressionStream("gzip")),
    ).arrayBuffer();
    return new Response(gz, {
      headers: { "content-type": "text/html", "content-encoding": "gzip", "x-custom": "yes" },
    });
  });
  try {
    const url = `http://recorded.test:${server.addr.port}/page?q=1`;
    const live = new Net({
      transport: recordingTransport(pinnedTransport, dir),
      resolver: tableResolver({ "recorded.test": ["127.0.0.1"] }),
      classify: (a) => (a === "127.0.0.1" ? undefined : classifyAddress(a)),
    });
    const first = await live.fetch(url);
    assert.equal(first.text(), body);
    await server.shutdown();
    const files = [...Deno.readDirSync(dir)].map((e) => e.name).sort();
    assert.equal(files.length, 2);
    const fixture = JSON.parse(
      await Deno.readTextFile(`${dir}/${files.find((f) => f.endsWith(".json"))}`),
    );
    assert.equal(fixture.request.url, url);
    assert.equal(fixture.address, "127.0.0.1");
    assert.match(fixture.provenance, /recorded .* by parkour record mode/);
    const store = new ReplayStore(dir);
    const replayed = await new Net({
      transport: store.transport(),
      resolver: store.resolver(),
      classify: (a) => (a === "127.0.0.1" ? undefined : classifyAddress(a)),
    }).fetch(url);
    assert.equal(replayed.text(), body);
    assert.equal(replayed.headers.get("x-custom"), "yes");
    assert.equal(replayed.status, 200);
  } finally {
    await server.shutdown().catch(() => {});
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: `replay: a real shared capture (arXiv Atom)${
    SHARED ? "" : " — SKIPPED: set PARKOUR_SHARED_DIR"
  }`,
  ignore: !SHARED,
  async fn() {
    const result = await replayNet(FIXTURES, SHARED).fetch(
      "https://export.arxiv.org/api/query?id_list=1706.03762",
    );
    assert.equal(result.contentType, "application/atom+xml");
    assert.match(result.text(), /<title>Attention Is All You Need<\/title>/);
  },
});

Deno.test("replay: without PARKOUR_SHARED_DIR a shared capture fails clearly", async () => {
  const error = await replayNet(FIXTURES, undefined).fetch(
    "https://export.arxiv.org/api/query?id_list=1706.03762",
  )
    .catch((e) => e);
  assert.equal(error.kind, "replay_missing");
  assert.match(error.message, /needs PARKOUR_SHARED_DIR/);
});
