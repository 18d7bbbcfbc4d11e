/**
 * A page limit per call, within a ceiling: `max_page_mb` on the MCP page
 * tools, the REST API and the CLI. The deployment's limit
 * (`PARKOUR_MAX_PAGE_MB`) is each call's default; a call may ask for more,
 * up to the ceiling (`PARKOUR_MAX_PAGE_CEILING_MB`); a page over the call's
 * limit says which `max_page_mb` reads it (its size, when the server sent
 * it), or which operator setting does when it is over the ceiling; bad
 * values are refused with what to give. A page cached under a larger limit
 * serves later calls whatever their limit (nothing is downloaded again); a
 * refusal caches nothing; concurrent calls with different limits on one URL
 * do not fail each other. Real processes (`serve --http`, stdio servers, the
 * CLI) reading pages from an upstream this test serves on 127.0.0.1.
 */
import assert from "node:assert/strict";
import { childEnv, HttpServerProcess, runCli } from "../support/process.ts";
import { type ClientKind, connectClient, type TestClient } from "../support/clients.ts";
import { sizedPage } from "../support/sized_pages.ts";

/** About 1.9 MiB: over a 1 MiB default, under a 3 MiB ceiling. */
const MEDIUM = new TextEncoder().encode(sizedPage(2_000_000, 4));
/** About 3.8 MiB: over the ceiling. */
const HUGE = new TextEncoder().encode(sizedPage(4_000_000, 5));
/** A small page (converted on the main thread: a process reading it exits at once). */
const TINY = sizedPage(20_000, 6);

const ENV = {
  MCP_ALLOW_PRIVATE_IPS: "1",
  PARKOUR_MAX_PAGE_MB: "1",
  PARKOUR_MAX_PAGE_CEILING_MB: "3",
};

const HTML = { "content-type": "text/html; charset=utf-8" };

/** The body in chunks of 64 KiB, `pause` ms apart, with no length announced. */
function streamed(body: Uint8Array, pause = 0): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    async pull(controller) {
      if (pause) await new Promise((r) => setTimeout(r, pause));
      if (offset >= body.length) return controller.close();
      controller.enqueue(body.slice(offset, offset + 65536));
      offset += 65536;
    },
  });
}

/**
 * The upstream: `/sized/*` with its length announced (and uncompressed, so
 * the length is the page's size), `/streamed/*` without one, `/slow/*`
 * trickled over about a second, `/huge/*` over the ceiling, `/tiny/*` small.
 * Counts requests.
 */
function upstream() {
  const hits = new Map<string, number>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const path = new URL(req.url).pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const kind = path.split("/")[1];
    const exact = { ...HTML, "content-encoding": "identity", "cache-control": "no-transform" };
    switch (kind) {
      case "sized":
        return new Response(MEDIUM, { headers: exact });
      case "huge":
        return new Response(HUGE, { headers: exact });
      case "tiny":
        return new Response(TINY, { headers: HTML });
      case "streamed":
        return new Response(streamed(MEDIUM), { headers: HTML });
      case "slow":
        return new Response(streamed(MEDIUM, 30), { headers: HTML });
      default:
        return new Response("not here", { status: 404 });
    }
  });
  return {
    origin: `http://127.0.0.1:${server.addr.port}`,
    hits: (path: string) => hits.get(path) ?? 0,
    close: () => server.shutdown(),
  };
}

async function api(
  server: HttpServerProcess,
  path: string,
  params: readonly (readonly [string, string])[],
): Promise<{ status: number; cache: string | null; text: string }> {
  const url = new URL(path, server.url);
  for (const [k, v] of params) url.searchParams.append(k, v);
  const res = await fetch(url);
  return { status: res.status, cache: res.headers.get("x-cache"), text: await res.text() };
}

function errorOf(r: { text: string }): { error: string; kind: string } {
  return JSON.parse(r.text);
}

Deno.test("max_page_mb over REST: the default, a larger limit, the ceiling, the cache", async () => {
  const up = upstream();
  const server = await HttpServerProcess.start(undefined, [], ENV);
  try {
    const page = `${up.origin}/sized/a`;
    // Over the default (1 MiB), its size known: the exact value that reads it.
    const refused = await api(server, "/api", [["url", page]]);
    assert.equal(refused.status, 502, refused.text.slice(0, 300));
    const e = errorOf(refused);
    assert.equal(e.kind, "too_large");
    assert.match(e.error, /over the 1 MiB limit/);
    assert.match(e.error, /default \(PARKOUR_MAX_PAGE_MB\)/);
    assert.match(e.error, /ask again with max_page_mb=2 to read it/);
    // The refusal cached nothing: the value it named reads the page.
    const read = await api(server, "/api", [["url", page], ["max_page_mb", "2"]]);
    assert.equal(read.status, 200, read.text.slice(0, 300));
    assert.equal(read.cache, "miss");
    assert.ok(read.text.includes("Chapter 1"), "the page's text");
    // Cached: later calls are served whatever their limit, and nothing is downloaded again.
    for (const params of [[], [["max_page_mb", "1"]], [["section", "Chapter 2"]]] as const) {
      const again = await api(server, "/api", [["url", page], ...params]);
      assert.equal(again.status, 200, `${JSON.stringify(params)}: ${again.text.slice(0, 300)}`);
      assert.equal(again.cache, "hit");
    }
    const outline = await api(server, "/api/sections", [["url", page]]);
    assert.equal(outline.status, 200);
    assert.equal(outline.cache, "hit");
    assert.equal(up.hits("/sized/a"), 2, "one refused download, one read");

    // The outline view takes the parameter too.
    const sections = await api(server, "/api/sections", [
      ["url", `${up.origin}/sized/b`],
      ["max_page_mb", "2.5"],
    ]);
    assert.equal(sections.status, 200, sections.text.slice(0, 300));

    // Size unknown (no length sent): the ceiling is the value to ask for.
    const blind = await api(server, "/api", [["url", `${up.origin}/streamed/a`]]);
    assert.equal(blind.status, 502);
    assert.match(errorOf(blind).error, /exceeded the 1 MiB limit/);
    assert.match(errorOf(blind).error, /up to max_page_mb=3 \(this server's ceiling\)/);
    const blindRead = await api(server, "/api", [
      ["url", `${up.origin}/streamed/a`],
      ["max_page_mb", "3"],
    ]);
    assert.equal(blindRead.status, 200, blindRead.text.slice(0, 300));

    // Over the ceiling: the operator's setting, not a value a call could give.
    for (const params of [[], [["max_page_mb", "3"]]] as const) {
      const over = await api(server, "/api", [["url", `${up.origin}/huge/a`], ...params]);
      assert.equal(over.status, 502, over.text.slice(0, 300));
      const error = errorOf(over).error;
      assert.match(error, /3 MiB is the most this server reads/);
      assert.match(error, /PARKOUR_MAX_PAGE_CEILING_MB/);
      assert.doesNotMatch(error, /ask again/);
    }

    // Asking above the ceiling is refused before anything is fetched.
    const before = up.hits("/sized/c");
    const above = await api(server, "/api", [["url", `${up.origin}/sized/c`], [
      "max_page_mb",
      "4",
    ]]);
    assert.equal(above.status, 400, above.text.slice(0, 300));
    assert.match(errorOf(above).error, /max_page_mb 4 is over this server's ceiling of 3 MiB/);
    assert.match(errorOf(above).error, /PARKOUR_MAX_PAGE_CEILING_MB/);
    assert.equal(up.hits("/sized/c"), before);
  } finally {
    await server.stop();
    await up.close();
  }
});

Deno.test("max_page_mb over REST: bad values get 400 with what to give", async () => {
  const up = upstream();
  const server = await HttpServerProcess.start(undefined, [], ENV);
  try {
    const page = `${up.origin}/sized/a`;
    const bad: [string, RegExp][] = [
      ["-1", /max_page_mb must be a number such as 100 \(got -1\)/],
      ["0", /max_page_mb must be a number of MiB from 1 to 3 \(got 0\)/],
      ["0.5", /from 1 to 3 \(got 0.5\)/],
      ["abc", /max_page_mb must be a number such as 100 \(got abc\)/],
      ["NaN", /must be a number such as 100/],
      ["Infinity", /must be a number such as 100/],
      ["1e3", /must be a number such as 100/],
      ["0x10", /must be a number such as 100/],
      ["", /must be a number such as 100/],
      ["99999999999", /max_page_mb 99999999999 is over this server's ceiling of 3 MiB/],
      ["9".repeat(400), /must be a number such as 100/],
    ];
    for (const path of ["/api", "/api/sections"]) {
      for (const [value, pattern] of bad) {
        const r = await api(server, path, [["url", page], ["max_page_mb", value]]);
        assert.equal(r.status, 400, `${path} ${value}: ${r.text.slice(0, 300)}`);
        assert.equal(errorOf(r).kind, "bad_request");
        assert.match(errorOf(r).error, pattern, `${path} ${value}`);
      }
      const twice = await api(server, path, [["url", page], ["max_page_mb", "2"], [
        "max_page_mb",
        "3",
      ]]);
      assert.equal(twice.status, 400);
      assert.match(errorOf(twice).error, /give max_page_mb once/);
    }
    assert.equal(up.hits("/sized/a"), 0, "no bad request reached the page");
    const healthy = await api(server, "/healthz", []);
    assert.equal(healthy.status, 200);
  } finally {
    await server.stop();
    await up.close();
  }
});

Deno.test("max_page_mb: concurrent calls with different limits on one URL do not fail each other", async () => {
  const up = upstream();
  const server = await HttpServerProcess.start(undefined, [], ENV);
  try {
    const page = `${up.origin}/slow/a`;
    // Started together: the default (1 MiB) stops at its limit while the larger one reads on.
    const [small, big, bigToo] = await Promise.all([
      api(server, "/api", [["url", page]]),
      api(server, "/api", [["url", page], ["max_page_mb", "3"]]),
      api(server, "/api", [["url", page], ["max_page_mb", "3"], ["section", "Chapter 1"]]),
    ]);
    assert.equal(small.status, 502, small.text.slice(0, 300));
    assert.equal(errorOf(small).kind, "too_large");
    assert.equal(big.status, 200, big.text.slice(0, 300));
    assert.equal(big.cache, "miss");
    assert.equal(bigToo.status, 200, bigToo.text.slice(0, 300));
    // The two calls with one limit shared one download; the small limit had its own.
    assert.equal(up.hits("/slow/a"), 2);
    // And the page the larger call read is there for the smaller one now.
    const after = await api(server, "/api", [["url", page]]);
    assert.equal(after.status, 200);
    assert.equal(after.cache, "hit");
  } finally {
    await server.stop();
    await up.close();
  }
});

function textOf(result: { content: { type: string; text?: string }[] }): string {
  return result.content.map((c) => c.text ?? "").join("\n");
}

/** The MCP steps, through one client against a server started with {@link ENV}. */
async function mcpSteps(client: TestClient, origin: string, label: string): Promise<void> {
  const page = `${origin}/sized/${label}`;
  const refused = await client.call("web_fetch_incisive", { url: page, max_tokens: 300 });
  assert.equal(refused.isError, true, `${label}: ${textOf(refused).slice(0, 300)}`);
  assert.match(textOf(refused), /over the 1 MiB limit/);
  assert.match(textOf(refused), /ask again with max_page_mb=2 to read it/);
  const outlineRefused = await client.call("web_fetch_sections", { url: page });
  assert.equal(outlineRefused.isError, true);
  assert.match(textOf(outlineRefused), /max_page_mb=2/);

  const above = await client.call("web_fetch_sections", { url: page, max_page_mb: 5 });
  assert.equal(above.isError, true);
  assert.match(textOf(above), /max_page_mb 5 is over this server's ceiling of 3 MiB/);
  assert.match(textOf(above), /PARKOUR_MAX_PAGE_CEILING_MB/);
  for (const value of [-1, 0, 0.25, "2", 1e300, null, true, [2], { mb: 2 }]) {
    const r = await client.call("web_fetch_incisive", { url: page, max_page_mb: value });
    assert.equal(r.isError, true, `${label} ${JSON.stringify(value)}: ${textOf(r).slice(0, 200)}`);
    assert.match(textOf(r), /max_page_mb/, `${label} ${JSON.stringify(value)}`);
    assert.match(textOf(r), /from 1 to 3|ceiling of 3 MiB/, `${label} ${JSON.stringify(value)}`);
  }

  const read = await client.call("web_fetch_sections", { url: page, max_page_mb: 2 });
  assert.notEqual(read.isError, true, textOf(read).slice(0, 300));
  assert.match(textOf(read), /Chapter 1/);
  // Cached: a follow-up without the parameter is served.
  const followUp = await client.call("web_fetch_incisive", {
    url: page,
    section: "Chapter 2",
    max_tokens: 300,
  });
  assert.notEqual(followUp.isError, true, textOf(followUp).slice(0, 300));
  assert.match(textOf(followUp), /cached: true/);

  const over = await client.call("web_fetch_incisive", {
    url: `${origin}/huge/${label}`,
    max_page_mb: 3,
  });
  assert.equal(over.isError, true);
  assert.match(textOf(over), /3 MiB is the most this server reads/);
  assert.match(textOf(over), /PARKOUR_MAX_PAGE_CEILING_MB/);
  await client.healthy();
}

for (const kind of ["v2-2025", "v1-2025"] as ClientKind[]) {
  Deno.test(`max_page_mb over MCP: ${kind} over stdio`, async () => {
    const up = upstream();
    const client = await connectClient(kind, { env: ENV });
    try {
      await mcpSteps(client, up.origin, `stdio-${kind}`);
    } finally {
      await client.close();
      await up.close();
    }
  });
}

Deno.test("max_page_mb over MCP: v2-2026 over HTTP", async () => {
  const up = upstream();
  const server = await HttpServerProcess.start(undefined, [], ENV);
  try {
    const client = await connectClient("v2-2026", { url: server.url });
    try {
      await mcpSteps(client, up.origin, "http-v2-2026");
    } finally {
      await client.close();
    }
  } finally {
    await server.stop();
    await up.close();
  }
});

Deno.test("max_page_mb on the CLI: --max-page-mb names the value; the ceiling is checked at start", async () => {
  const up = upstream();
  try {
    const env = { MCP_ALLOW_PRIVATE_IPS: "1", PARKOUR_MAX_PAGE_MB: "1" };
    const refused = await runCli(["fetch", `${up.origin}/sized/cli`], env);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stdout + refused.stderr, /ask again with --max-page-mb 2 to read it/);
    // A ceiling set below the default limit: refused at start, naming both settings.
    const low = await runCli(["fetch", `${up.origin}/sized/cli`, "--max-page-mb", "5"], {
      ...env,
      PARKOUR_MAX_PAGE_CEILING_MB: "3",
    });
    assert.equal(low.code, 2, low.stderr);
    assert.match(low.stderr, /PARKOUR_MAX_PAGE_CEILING_MB \(3 MiB\) is below/);
    assert.match(low.stderr, /--max-page-mb \(5 MiB\)/);
    const badCeiling = await runCli(["serve", "--max-page-ceiling-mb", "-4"], env);
    assert.equal(badCeiling.code, 2, badCeiling.stderr);
    assert.match(badCeiling.stderr, /invalid --max-page-ceiling-mb '-4'/);
    const badEnv = await runCli(["fetch", `${up.origin}/sized/cli`], {
      ...env,
      PARKOUR_MAX_PAGE_CEILING_MB: "lots",
    });
    assert.equal(badEnv.code, 2, badEnv.stderr);
    assert.match(badEnv.stderr, /invalid PARKOUR_MAX_PAGE_CEILING_MB 'lots'/);
    assert.equal(up.hits("/sized/cli"), 1, "only the first command reached the page");
  } finally {
    await up.close();
  }
});

Deno.test("max_page_mb in the library: read() views a page already read and says where the limit goes", async () => {
  const up = upstream();
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-all",
        new URL("../support/library_read.ts", import.meta.url).pathname,
        `${up.origin}/tiny/lib`,
        JSON.stringify({ max_page_mb: 2 }),
      ],
      env: childEnv({ MCP_ALLOW_PRIVATE_IPS: "1" }),
      clearEnv: true,
      stdout: "piped",
      stderr: "inherit",
    }).output();
    const r = JSON.parse(new TextDecoder().decode(out.stdout));
    assert.match(String(r.error), /fetchPage\(\)'s maxBytes option/);
  } finally {
    await up.close();
  }
});
