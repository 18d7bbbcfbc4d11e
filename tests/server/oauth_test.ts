/**
 * The HTTP service as an OAuth 2.1 resource server, through a real server
 * process and a local authorization server started by the test (keys made
 * here; no internet): Protected Resource Metadata, 401 challenges that
 * point at it, and bearer tokens refused for each wrong property with the
 * right status and header, on `/mcp` and on the REST API alike.
 */
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { RESOURCE, startIssuer } from "../support/issuer.ts";
import { HttpServerProcess } from "../support/process.ts";

async function ping(url: string, token?: string): Promise<Response> {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  });
  await res.body?.cancel();
  return res;
}

Deno.test("oauth: metadata, challenges and every refused token kind, on /mcp and /api", async () => {
  const issuer = await startIssuer();
  const server = await HttpServerProcess.start(undefined, [], {
    PARKOUR_AUTH_ISSUER: issuer.url,
    PARKOUR_AUTH_RESOURCE: RESOURCE,
  });
  const base = server.url.replace(/\/mcp$/, "");
  try {
    // Protected Resource Metadata (RFC 9728), at the bare and the path-inserted location.
    for (
      const path of [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
      ]
    ) {
      const res = await fetch(base + path);
      assert.equal(res.status, 200, path);
      const meta = await res.json();
      assert.equal(meta.resource, RESOURCE);
      assert.deepEqual(meta.authorization_servers, [issuer.url]);
      assert.deepEqual(meta.scopes_supported, ["parkour"]);
    }

    // No token: 401 with a challenge naming the metadata, without an error code.
    const none = await ping(server.url);
    assert.equal(none.status, 401);
    const challenge = none.headers.get("www-authenticate") ?? "";
    assert.match(challenge, /^Bearer /);
    assert.match(
      challenge,
      /resource_metadata="http:\/\/localhost:9\/\.well-known\/oauth-protected-resource\/mcp"/,
    );
    assert.doesNotMatch(challenge, /error=/);

    // A valid token passes, and a real client works with it.
    const valid = await issuer.sign({});
    assert.equal((await ping(server.url, valid)).status, 200);
    const client = new Client({ name: "oauth", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { authorization: `Bearer ${valid}` } },
      }),
    );
    assert.ok((await client.listTools()).tools.length > 0);
    await client.close();

    // Each wrong property: 401 invalid_token with a reason, never the token.
    const cases: [string, string][] = [
      ["bad signature", await issuer.sign({}, { key: "other" })],
      ["wrong issuer", await issuer.sign({ iss: "http://127.0.0.1:1" })],
      ["wrong audience", await issuer.sign({ aud: "http://other.example/mcp" })],
      ["expired", await issuer.sign({}, { exp: "-10m" })],
      ["malformed", "not.a.jwt"],
    ];
    for (const [label, token] of cases) {
      const res = await ping(server.url, token);
      assert.equal(res.status, 401, label);
      const header = res.headers.get("www-authenticate") ?? "";
      assert.match(header, /error="invalid_token"/, label);
      assert.match(header, /resource_metadata=/, label);
      assert.ok(!header.includes(token), `${label}: the token is not echoed`);
    }
    const wrongAudience = await fetch(server.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${cases[2][1]}`,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    assert.match((await wrongAudience.json()).error.message, /audience/);

    // A valid token without the scope: 403 insufficient_scope.
    const unscoped = await issuer.sign({ scope: "other" });
    const forbidden = await ping(server.url, unscoped);
    assert.equal(forbidden.status, 403);
    const scopeChallenge = forbidden.headers.get("www-authenticate") ?? "";
    assert.match(scopeChallenge, /error="insufficient_scope"/);
    assert.match(scopeChallenge, /scope="parkour"/);

    // The REST API follows the same rules; /healthz needs no token.
    const api = `${base}/api/sections?url=${encodeURIComponent("data:text/html,<h1>x</h1>")}`;
    const restNone = await fetch(api);
    await restNone.body?.cancel();
    assert.equal(restNone.status, 401);
    assert.match(restNone.headers.get("www-authenticate") ?? "", /resource_metadata=/);
    const restScope = await fetch(api, { headers: { authorization: `Bearer ${unscoped}` } });
    assert.equal(restScope.status, 403);
    assert.equal((await restScope.json()).kind, "insufficient_scope");
    const health = await fetch(`${base}/healthz`);
    assert.equal(health.status, 200);
    await health.body?.cancel();
  } finally {
    await server.stop();
    await issuer.close();
  }
});

Deno.test("oauth: an issuer without a resource URL is refused at start, naming the setting", async () => {
  const { runCli } = await import("../support/process.ts");
  const out = await runCli(["serve", "--http", "--port", "0"], {
    PARKOUR_AUTH_ISSUER: "https://issuer.example",
  });
  assert.equal(out.code, 2);
  assert.match(out.stderr, /PARKOUR_AUTH_RESOURCE/);
});
