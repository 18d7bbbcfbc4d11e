/**
 * Dropping permissions after start-up, as a compiled binary's `serve` does:
 * the server runs with the flags baked into binaries (broad read, write,
 * run and sys for install and doctor) and PARKOUR_DROP_PRIVILEGES=1, which
 * takes the same path as a binary. Credential files read before the drop
 * still work, the open Deno KV shelf still writes, and rendering says how to
 * keep what it needs.
 */
import assert from "node:assert/strict";
import { binaryFlags } from "../../lib/install/launch.ts";
import { callTool, startServer, stderrSettled } from "../support/mcp_client.ts";
import { openLoopback } from "../support/process.ts";

const KEY = "s2-file-key-93be";

// A local Semantic Scholar API that records the key it was sent, and a page to render.
const seen: (string | null)[] = [];
const api = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
  const url = new URL(req.url);
  if (url.pathname.startsWith("/graph/")) {
    seen.push(req.headers.get("x-api-key"));
    return Response.json({ total: 0, offset: 0, data: [] });
  }
  return new Response("<html><body><h1>Page</h1><p>text</p></body></html>", {
    headers: { "content-type": "text/html" },
  });
});
const LOCAL = `http://127.0.0.1:${api.addr.port}`;

const home = await Deno.makeTempDir({ prefix: "parkour-drop-" });
await Deno.mkdir(`${home}/.config/parkour`, { recursive: true });
await Deno.writeTextFile(`${home}/.config/parkour/s2_api_key`, `${KEY}\n`, { mode: 0o600 });
await Deno.chmod(`${home}/.config/parkour/s2_api_key`, 0o600);
const SHELF = `kv:${home}/shelf/store.kv`;
await Deno.mkdir(`${home}/shelf`);

/** The binary's flags, loopback left reachable for the local API above. */
const flags = (): string[] => openLoopback(binaryFlags());

async function start(env: Record<string, string>) {
  let stderr = "";
  const { client } = await startServer({
    runFlags: ["run", ...flags()],
    onStderr: (text) => stderr += text,
    replay: false,
    env: {
      HOME: home,
      S2_ACCEPT_TOS: "1",
      PARKOUR_S2_API_BASE: `${LOCAL}/graph/v1`,
      MCP_ALLOW_PRIVATE_IPS: "1",
      PARKOUR_SHELF: SHELF,
      PARKOUR_LOG: "debug",
      // The shelf's writing actions (import) are off unless enabled.
      PARKOUR_ENABLE_MUTATING_TOOLS: "1",
      ...env,
    },
  });
  return { client, stderr: () => stderr };
}

const WORK = JSON.stringify({
  active: {
    "10.5555/drop.1": { doi: "10.5555/drop.1", title: "Dropped Privileges, Kept Shelves" },
  },
});

Deno.test("privileges: serve gives up read, write, run and sys; keys read before still work, the KV shelf still writes", async () => {
  const first = await start({ PARKOUR_DROP_PRIVILEGES: "1" });
  try {
    // stderr and the protocol are separate pipes: the log line may trail the handshake.
    await stderrSettled(first.stderr, /dropped permissions/);
    assert.match(first.stderr(), /dropped permissions: read, write, run, sys/);
    seen.length = 0;
    const search = await callTool(first.client, "semantic_scholar", {
      action: "search",
      query: "widgets",
    }, { emptyFmOnError: true });
    assert.equal(search.isError, false, search.text);
    assert.deepEqual(seen, [KEY], "the key file, read before the drop, is sent");
    assert.ok(!search.text.includes(KEY));

    const imported = await callTool(first.client, "research_shelf", {
      action: "import",
      data: WORK,
    });
    assert.equal(imported.isError, false, imported.text);
    assert.equal(imported.fm.created, 1);

    const render = await callTool(first.client, "web_fetch_incisive", {
      url: `${LOCAL}/page`,
      requires_js: true,
    }, { emptyFmOnError: true });
    assert.equal(render.isError, true, render.text);
    assert.match(render.text, /PARKOUR_RENDER=1/);
  } finally {
    await first.client.close();
  }

  // The import reached the store: a new process (same flags) lists it.
  const second = await start({ PARKOUR_DROP_PRIVILEGES: "1" });
  try {
    const list = await callTool(second.client, "research_shelf", { action: "list" });
    assert.equal(list.fm.active, 1, list.text);
    assert.match(list.body.join("\n"), /10\.5555\/drop\.1/);
  } finally {
    await second.client.close();
  }
});

Deno.test("privileges: PARKOUR_RENDER=1 keeps them; without PARKOUR_DROP_PRIVILEGES a script run keeps its flags", async () => {
  const kept = await start({ PARKOUR_DROP_PRIVILEGES: "1", PARKOUR_RENDER: "1" });
  await kept.client.listTools();
  await kept.client.close();
  await stderrSettled(kept.stderr, /PARKOUR_RENDER=1/);
  assert.match(kept.stderr(), /PARKOUR_RENDER=1: keeping read, write, run and sys/);
  assert.doesNotMatch(kept.stderr(), /dropped permissions/);

  const plain = await start({});
  await plain.client.listTools();
  await plain.client.close();
  assert.doesNotMatch(plain.stderr(), /dropped permissions|PARKOUR_RENDER/);
});

Deno.test({
  name: "privileges: cleanup",
  fn: async () => {
    await api.shutdown();
    await Deno.remove(home, { recursive: true });
  },
});
