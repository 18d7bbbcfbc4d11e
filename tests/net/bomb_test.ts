/**
 * Compression bombs against the real `serve --http` process: gzip, deflate
 * and brotli bodies that decode to 256 MiB, and stacked codings, served by a
 * server this test starts on 127.0.0.1. Each request fails with a clear
 * error, the server's peak memory (VmHWM of the child, read from /proc)
 * stays within twice the page limit (set to 5 MiB) per request over its warm baseline, and
 * other requests are answered while the bombs are in flight.
 */
import assert from "node:assert/strict";
import zlib from "node:zlib";
import { HttpServerProcess } from "../support/process.ts";

const MIB = 1024 * 1024;
const CAP = 5 * MIB;
const DECODED = 256 * MIB;

/** Compresses `total` zero bytes with a node:zlib compressor, streaming. */
function compressZeros(
  compressor: zlib.Gzip | zlib.Deflate | zlib.DeflateRaw | zlib.BrotliCompress,
  total = DECODED,
): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const parts: Uint8Array[] = [];
    compressor.on("data", (d: Uint8Array) => parts.push(d));
    compressor.on("end", () => resolve(new Uint8Array(Buffer.concat(parts))));
    compressor.on("error", reject);
    const chunk = Buffer.alloc(MIB);
    let sent = 0;
    const pump = () => {
      while (sent < total) {
        sent += chunk.length;
        if (!compressor.write(chunk)) return void compressor.once("drain", pump);
      }
      compressor.end();
    };
    pump();
  });
}

const gzipZeros = () => compressZeros(zlib.createGzip({ level: 9 }));
const gzipped = await gzipZeros();
const bombs: Record<string, { coding: string; body: Uint8Array }> = {
  gzip: { coding: "gzip", body: gzipped },
  deflate: { coding: "deflate", body: await compressZeros(zlib.createDeflate({ level: 9 })) },
  "deflate-raw": {
    coding: "deflate",
    body: await compressZeros(zlib.createDeflateRaw({ level: 9 })),
  },
  br: {
    coding: "br",
    body: await compressZeros(
      zlib.createBrotliCompress({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } }),
    ),
  },
  "gzip-gzip": { coding: "gzip, gzip", body: zlib.gzipSync(gzipped) },
  "br-gzip": {
    coding: "gzip, br",
    body: zlib.brotliCompressSync(gzipped),
  },
};

/** A field of /proc/<pid>/status in KiB (VmRSS now, VmHWM the peak). */
function memoryKiB(pid: number, field: "VmRSS" | "VmHWM"): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)![1]);
}

/** Resets the peak (VmHWM) to the current resident size (Linux, `clear_refs` 5). */
function resetPeak(pid: number): number {
  Deno.writeTextFileSync(`/proc/${pid}/clear_refs`, "5");
  return memoryKiB(pid, "VmRSS");
}

Deno.test("bombs: every coding fails at the cap, memory stays bounded, others are answered", async () => {
  for (const [name, bomb] of Object.entries(bombs)) {
    assert.ok(bomb.body.length < 512 * 1024, `${name} is small on the wire (${bomb.body.length})`);
  }
  const upstream = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const name = new URL(req.url).pathname.slice(1);
    const bomb = bombs[name];
    if (!bomb) return new Response(`<h1>Plain</h1><p>a small page named ${name}</p>`);
    return new Response(bomb.body as BodyInit, {
      headers: { "content-encoding": bomb.coding, "content-type": "text/html" },
    });
  });
  // The page limit set to the cap this test bounds memory by (the default is 50 MiB).
  const server = await HttpServerProcess.start(undefined, [], {
    MCP_ALLOW_PRIVATE_IPS: "1",
    PARKOUR_MAX_PAGE_MB: String(CAP / MIB),
  });
  const base = `http://127.0.0.1:${upstream.addr.port}`;
  const api = (path: string) =>
    fetch(`${new URL("/api", server.url)}?url=${encodeURIComponent(base + path)}`, {
      signal: AbortSignal.timeout(60_000),
    });
  try {
    const warm = await api("/warm");
    assert.equal(warm.status, 200, await warm.text());
    const growth: Record<string, number> = {};
    for (const [name, bomb] of Object.entries(bombs)) {
      const before = resetPeak(server.pid);
      const attacks = [1, 2, 3].map(() => api(`/${name}`));
      const [health, page] = await Promise.all([
        fetch(new URL("/healthz", server.url), { signal: AbortSignal.timeout(60_000) }),
        api(`/beside-${name}`),
      ]);
      assert.equal(health.status, 200, `healthz answered beside ${name}`);
      await health.body?.cancel();
      assert.equal(page.status, 200, `a page answered beside ${name}`);
      assert.match(await page.text(), new RegExp(`beside-${name}`));
      const replies = await Promise.all(
        (await Promise.all(attacks)).map(async (r) => ({ status: r.status, body: await r.json() })),
      );
      growth[name] = Math.round((memoryKiB(server.pid, "VmHWM") - before) / 1024);
      for (const { status, body } of replies) {
        assert.equal(status, 502, `${name}: ${JSON.stringify(body)}`);
        if (bomb.coding.includes(",")) {
          assert.equal(body.kind, "transport", name);
          assert.match(body.error, /stacks 2 content codings \(gzip, (gzip|br)\)/, name);
        } else {
          assert.equal(body.kind, "too_large", name);
          assert.match(body.error, /exceeded the 5 MiB limit \(counted after decompression\)/);
        }
      }
    }
    console.log("peak growth over the resident size before each bomb (MiB):", growth);
    // Three bombs at once: at most twice the cap each, plus room for the runtime's own buffers.
    const bound = (3 * 2 * CAP + 32 * MIB) / MIB;
    for (const [name, mib] of Object.entries(growth)) {
      assert.ok(mib <= bound, `${name}: the peak grew ${mib} MiB, over the bound of ${bound} MiB`);
    }
  } finally {
    await server.stop();
    await upstream.shutdown();
  }
});
