/**
 * The network layer as a tool sees it, end to end: the real process serving
 * a tool that fetches through lib/net, replaying fixtures/ (no network).
 */
import assert from "node:assert/strict";
import { envelopeReady, parseFences, parseFrontmatter } from "../../mod.ts";
import { RawServer, replaySetup, TOOL_SERVER } from "../support/process.ts";

// The frontmatter serializer loads on first need (the package entry awaits nothing).
await envelopeReady();

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

async function call(server: RawServer, id: number, url: string) {
  const reply = await server.request({
    id,
    method: "tools/call",
    params: { name: "test_fetch", arguments: { url }, _meta: META },
  });
  const result = reply.result as { content: { text: string }[]; isError?: boolean };
  return { text: result.content[0].text, isError: result.isError === true };
}

Deno.test("net through MCP: replayed page, redirect, upstream 404, private address", async () => {
  const replay = replaySetup();
  const server = new RawServer(TOOL_SERVER, [], replay.env, replay.flags);
  try {
    const ok = await call(server, 1, "https://example.org/old-cafe");
    assert.equal(ok.isError, false);
    const fm = parseFrontmatter(ok.text)!;
    assert.equal(fm.source, "https://example.org/cafe");
    assert.equal(fm.redirects, 1);
    const body = parseFences(ok.text, fm.fence as string)[0].lines.join("\n");
    assert.match(body, /“Quoted” text, 5€/);

    const gone = await call(server, 2, "https://example.org/gone");
    assert.equal(gone.isError, true);
    assert.match(gone.text, /^Error: HTTP 404 for https:\/\/example\.org\/gone; check the URL/);
    assert.match(gone.text, /The server returned an error page:/);
    assert.match(gone.text, /│ 404 Not Found/);
    assert.doesNotMatch(gone.text, /body\{\}/, "styles dropped from the extract");

    const blocked = await call(server, 3, "http://169.254.169.254/latest/meta-data/");
    assert.equal(blocked.isError, true);
    assert.match(
      blocked.text,
      /^Error: refused to fetch .*link-local address.*MCP_ALLOW_PRIVATE_IPS=1/,
    );

    const missing = await call(server, 4, "https://example.org/never-recorded");
    assert.equal(missing.isError, true);
    assert.match(missing.text, /no recorded exchange/);

    const scheme = await call(server, 5, "file:///etc/passwd");
    assert.match(scheme.text, /^Error: file URLs are refused/);
  } finally {
    await server.close();
  }
});
