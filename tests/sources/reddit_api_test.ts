/**
 * Reddit's tokens, in process, on recorded exchanges with every request the
 * client sends seen: with no set-up the installed-client grant (Reddit's web
 * client id, no secret, a device id of 20 letters and digits, the server's
 * own User-Agent), its session headers sent with every read, the token kept
 * and shared, a 401 minting once more; an app's client credentials when
 * both are set; a refused grant says what happened and what to do. No
 * request leaves the machine.
 */
import assert from "node:assert/strict";
import { Net } from "../../lib/net/fetch.ts";
import { fastClock } from "../../lib/net/clock.ts";
import { ReplayStore } from "../../lib/net/replay.ts";
import type { Transport, TransportRequest } from "../../lib/net/transport.ts";
import {
  INSTALLED_CLIENT_ID,
  INSTALLED_GRANT,
  RedditClient,
  type RedditGrant,
  TOKEN_URL,
} from "../../lib/sources/reddit/api.ts";

const FIXTURES = new URL("../../fixtures/http/reddit", import.meta.url).pathname;

interface Seen {
  method: string;
  url: string;
  headers: Headers;
  body: string;
}

/** A client over recorded exchanges in `dir`, and every request it sends. */
function client(
  grant: RedditGrant,
  dir = FIXTURES,
): { reddit: RedditClient; seen: Seen[] } {
  const store = new ReplayStore(dir);
  const inner = store.transport();
  const seen: Seen[] = [];
  const transport: Transport = {
    name: "seen",
    pins: inner.pins,
    send: (r: TransportRequest) => {
      seen.push({
        method: r.method,
        url: r.url.href,
        headers: new Headers(r.headers),
        body: new TextDecoder().decode(r.body ?? new Uint8Array()),
      });
      return inner.send(r);
    },
  };
  const net = new Net({
    transport,
    proxyTransport: transport,
    resolver: store.resolver(),
    clock: fastClock(0.01),
  });
  return { reddit: new RedditClient({ net: () => net, grant: () => grant }), seen };
}

const THREAD = "/comments/abc123?limit=500&raw_json=1";

Deno.test("reddit api: with no set-up, a userless token of the installed-client grant", async () => {
  const { reddit, seen } = client({ kind: "userless", id: INSTALLED_CLIENT_ID });
  const answer = await reddit.json(THREAD, "post abc123");
  assert.equal(answer.access, "userless");
  assert.ok(Array.isArray(answer.data));
  const [mint, read] = seen;
  assert.equal(mint.method, "POST");
  assert.equal(mint.url, TOKEN_URL);
  assert.equal(mint.headers.get("authorization"), `Basic ${btoa(`${INSTALLED_CLIENT_ID}:`)}`);
  assert.equal(mint.headers.get("content-type"), "application/x-www-form-urlencoded");
  const form = new URLSearchParams(mint.body);
  assert.equal(form.get("grant_type"), INSTALLED_GRANT);
  assert.match(form.get("device_id") ?? "", /^[A-Za-z0-9]{20}$/);
  // The server's own User-Agent, never a forged app's.
  assert.match(mint.headers.get("user-agent") ?? "", /parkour/i);
  assert.doesNotMatch(mint.headers.get("user-agent") ?? "", /Android|Reddit\//);
  // The read: the token, and the grant's session headers replayed.
  assert.equal(read.url, `https://oauth.reddit.com${THREAD}`);
  assert.equal(read.headers.get("authorization"), "Bearer test-userless-token");
  assert.equal(
    read.headers.get("x-reddit-loid"),
    "000000000testloid.2.1700000000000.Z0FBQUFBQmxVdGVzdA",
  );
  assert.equal(read.headers.get("x-reddit-session"), "test-session-7d1f");

  // Kept: later reads, at once or not, mint nothing more; one device id per client.
  await Promise.all([
    reddit.json(THREAD, "post abc123"),
    reddit.json("/r/rust/top?limit=25&t=week&after=t3_prev01&raw_json=1", "r/rust"),
  ]);
  assert.equal(seen.filter((s) => s.url === TOKEN_URL).length, 1);
  reddit.reset();
  await reddit.json(THREAD, "post abc123");
  const mints = seen.filter((s) => s.url === TOKEN_URL);
  assert.equal(mints.length, 2);
  assert.equal(
    new URLSearchParams(mints[0].body).get("device_id"),
    new URLSearchParams(mints[1].body).get("device_id"),
  );
});

Deno.test("reddit api: an app's id and secret mint a client-credentials token", async () => {
  const { reddit, seen } = client({ kind: "app", id: "app-id", secret: "app-secret" });
  const answer = await reddit.json(THREAD, "post abc123");
  assert.equal(answer.access, "oauth");
  assert.equal(seen[0].headers.get("authorization"), `Basic ${btoa("app-id:app-secret")}`);
  assert.equal(seen[0].body, "grant_type=client_credentials");
  assert.equal(seen[1].headers.get("authorization"), "Bearer test-app-only-token");
  assert.equal(seen[1].headers.get("x-reddit-loid"), null, "no session headers were sent back");
});

/** A folder of exchanges: the token endpoint's answer, and a read that answers 401 or 200. */
async function folder(token: { status: number; body: string }, read = 401): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "reddit-api-" });
  const write = (name: string, exchange: Record<string, unknown>) =>
    Deno.writeTextFile(
      `${dir}/${name}.json`,
      JSON.stringify({ ...exchange, provenance: "written by this test" }),
    );
  await write("token", {
    request: { method: "POST", url: TOKEN_URL },
    response: { headers: { "content-type": "application/json" }, ...token },
  });
  await write("read", {
    request: { method: "GET", url: `https://oauth.reddit.com${THREAD}` },
    response: {
      status: read,
      headers: { "content-type": "application/json" },
      body: read === 401 ? '{"message": "Unauthorized", "error": 401}' : "[]",
    },
  });
  return dir;
}

Deno.test("reddit api: a 401 mints once more and retries once, then says so", async () => {
  const dir = await folder({
    status: 200,
    body: '{"access_token": "short-lived", "expires_in": 3600}',
  });
  try {
    const { reddit, seen } = client({ kind: "userless", id: INSTALLED_CLIENT_ID }, dir);
    await assert.rejects(
      () => reddit.json(THREAD, "post abc123"),
      /refused the access token \(HTTP 401\).*even after a new one.*REDDIT_CLIENT_ID/,
    );
    assert.deepEqual(seen.map((s) => s.method), ["POST", "GET", "POST", "GET"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("reddit api: a refused grant says what happened and what to do", async () => {
  for (
    const [token, pattern] of [
      [
        { status: 403, body: '{"error": "forbidden"}' },
        /Could not authenticate to Reddit: Reddit refused the userless grant \(HTTP 403\).*retired its unauthenticated \.json endpoints.*REDDIT_CLIENT_ID and REDDIT_CLIENT_SECRET/,
      ],
      [
        { status: 200, body: '{"error": "unsupported_grant_type"}' },
        /granted no userless token \('unsupported_grant_type'\)/,
      ],
      [{ status: 429, body: "{}" }, /rate limiting token requests/],
    ] as const
  ) {
    const dir = await folder(token, 200);
    try {
      const { reddit, seen } = client({ kind: "userless", id: INSTALLED_CLIENT_ID }, dir);
      await assert.rejects(() => reddit.json(THREAD, "post abc123"), pattern);
      assert.equal(seen.filter((s) => s.method === "GET").length, 0, "nothing read without one");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
});
