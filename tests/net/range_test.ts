/**
 * Byte ranges through the guarded fetch (what the Hugging Face safetensors
 * header reader relies on), against a local server on 127.0.0.1: the Range
 * header reaches the server with `accept-encoding: identity`, a 206 with a
 * small cap comes back whole, and a server that ignores the range is
 * stopped by the cap instead of streaming the whole file. Replay serves
 * ranges of recorded bodies the same way.
 */
import assert from "node:assert/strict";
import { classifyAddress } from "../../lib/net/address.ts";
import { NetError } from "../../lib/net/errors.ts";
import { Net } from "../../lib/net/fetch.ts";
import { ReplayStore } from "../../lib/net/replay.ts";
import { tableResolver } from "../../lib/net/resolver.ts";

const FILE = new Uint8Array(4096).map((_, i) => i % 251);

function localNet(): Net {
  return new Net({
    resolver: tableResolver({ "site.test": ["127.0.0.1"] }),
    classify: (a) => (a === "127.0.0.1" ? undefined : classifyAddress(a)),
  });
}

async function serve(
  handler: (req: Request) => Response,
  fn: (base: string) => Promise<void>,
): Promise<void> {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handler);
  try {
    await fn(`http://site.test:${server.addr.port}`);
  } finally {
    await server.shutdown();
  }
}

Deno.test("range: a 206 partial answer under a small cap, asked for unencoded", async () => {
  let seen: { range: string | null; encoding: string | null } | undefined;
  await serve((req) => {
    seen = { range: req.headers.get("range"), encoding: req.headers.get("accept-encoding") };
    const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.get("range") ?? "")!;
    const part = FILE.slice(Number(m[1]), Number(m[2]) + 1);
    return new Response(part, {
      status: 206,
      headers: { "content-range": `bytes ${m[1]}-${m[2]}/${FILE.length}` },
    });
  }, async (base) => {
    const r = await localNet().fetch(`${base}/model.safetensors`, {
      headers: { range: "bytes=0-7" },
      maxBytes: 8,
    });
    assert.equal(r.status, 206);
    assert.deepEqual([...r.bytes], [...FILE.slice(0, 8)]);
    assert.equal(seen?.range, "bytes=0-7");
    assert.equal(seen?.encoding, "identity");
  });
});

Deno.test("range: a server that ignores the range is stopped by the cap", async () => {
  await serve(() => new Response(FILE), async (base) => {
    await assert.rejects(
      () =>
        localNet().fetch(`${base}/model.safetensors`, {
          headers: { range: "bytes=0-7" },
          maxBytes: 8,
        }),
      (e: unknown) => e instanceof NetError && e.kind === "too_large",
    );
  });
});

Deno.test("range: requests without a range still ask for compression", async () => {
  let encoding: string | null = null;
  await serve((req) => {
    encoding = req.headers.get("accept-encoding");
    return new Response("ok");
  }, async (base) => {
    await localNet().fetch(`${base}/a`);
    assert.match(String(encoding), /gzip/);
  });
});

Deno.test("range: replay serves a slice of a recorded body as 206", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeFile(`${dir}/file.bin`, FILE);
    await Deno.writeTextFile(
      `${dir}/x.json`,
      JSON.stringify({
        request: { method: "GET", url: "https://example.org/file.bin" },
        response: { status: 200, bodyFile: "file.bin" },
        provenance: "test",
      }),
    );
    const store = new ReplayStore(dir);
    const net = new Net({ transport: store.transport(), resolver: store.resolver() });
    const part = await net.fetch("https://example.org/file.bin", {
      headers: { range: "bytes=8-15" },
      maxBytes: 8,
    });
    assert.equal(part.status, 206);
    assert.equal(part.headers.get("content-range"), `bytes 8-15/${FILE.length}`);
    assert.deepEqual([...part.bytes], [...FILE.slice(8, 16)]);
    const whole = await net.fetch("https://example.org/file.bin");
    assert.equal(whole.status, 200);
    assert.equal(whole.bytes.length, FILE.length);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
