/**
 * Hostile URLs and redirect chains, resolved by a fake resolver: every one
 * is refused with a clear error before any connection is made to a private
 * address.
 */
import assert from "node:assert/strict";
import { NetError } from "../../lib/net/errors.ts";
import { Net } from "../../lib/net/fetch.ts";
import { tableResolver } from "../../lib/net/resolver.ts";
import type { Transport, TransportRequest } from "../../lib/net/transport.ts";
import { classifyAddress } from "../../lib/net/address.ts";

const PUBLIC = "93.184.215.14";
const PUBLIC6 = "2606:4700::1111";

const resolver = tableResolver({
  "public.example": [PUBLIC],
  "public2.example": [PUBLIC, PUBLIC6],
  "localhost": ["127.0.0.1", "::1"],
  "internal.example": ["10.1.2.3"],
  "mixed.example": [PUBLIC, "10.0.0.5"],
  "mixed6.example": [PUBLIC6, "fd00::1"],
  "metadata.google.internal": ["169.254.169.254"],
  "nat64.example": ["64:ff9b::7f00:1"],
  "mapped.example": ["::ffff:192.168.0.1"],
  "sixtofour.example": ["2002:a00:1::"],
  "cgnat.example": ["100.100.100.200"],
});

/** Redirects served for public hosts: path -> Location. */
const REDIRECTS: Record<string, string> = {
  "/to-loopback": "http://127.0.0.1/admin",
  "/to-localhost": "http://localhost/admin",
  "/to-metadata": "http://169.254.169.254/latest/meta-data/",
  "/to-v6-loopback": "http://[::1]/",
  "/to-file": "file:///etc/passwd",
  "/to-data": "data:text/html,<script>alert(1)</script>",
  "/to-ftp": "ftp://public.example/x",
  "/to-gopher": "gopher://public.example:70/_GET",
  "/to-credentials": "http://admin:secret@public.example/",
  "/to-protocol-relative-private": "//10.0.0.1/x",
  "/to-mixed": "http://mixed.example/",
  "/hop1": "http://public2.example/hop2",
  "/loop-a": "/loop-b",
  "/loop-b": "/loop-a",
};

function spyTransport(): Transport & { calls: TransportRequest[] } {
  const calls: TransportRequest[] = [];
  return {
    name: "spy",
    pins: true,
    calls,
    send(request) {
      calls.push(request);
      for (const address of request.addresses ?? []) {
        assert.equal(
          classifyAddress(address),
          undefined,
          `transport asked to connect to ${address}`,
        );
      }
      const path = request.url.pathname;
      let location = REDIRECTS[path];
      if (request.url.hostname === "public2.example" && path === "/hop2") {
        location = "http://[::1]/";
      }
      const chain = /^\/chain\/(\d+)$/.exec(path);
      const stop = Number(request.url.searchParams.get("stop") ?? Infinity);
      if (chain && Number(chain[1]) < stop) {
        location = `/chain/${Number(chain[1]) + 1}?stop=${stop}`;
      }
      const headers = new Headers(location ? { location } : { "content-type": "text/plain" });
      return Promise.resolve({
        status: location ? 302 : 200,
        headers,
        body: new Blob(["ok"]).stream(),
        decoded: false,
      });
    },
  };
}

type Case = [url: string, kind: NetError["kind"], message: RegExp];

const CASES: Case[] = [
  // IPv4 literals in every spelling the URL parser accepts.
  ["http://127.0.0.1/", "blocked_address", /127\.0\.0\.1 is a loopback address/],
  ["http://127.1/", "blocked_address", /loopback/],
  ["http://2130706433/", "blocked_address", /loopback/],
  ["http://0x7f000001/", "blocked_address", /loopback/],
  ["http://0x7f.0.0.1/", "blocked_address", /loopback/],
  ["http://0177.0.0.1/", "blocked_address", /loopback/],
  ["http://017700000001/", "blocked_address", /loopback/],
  ["http://0/", "blocked_address", /unspecified/],
  ["http://0.0.0.0:8080/", "blocked_address", /unspecified/],
  ["http://10.0.0.1/", "blocked_address", /private/],
  ["http://172.16.5.4/", "blocked_address", /private/],
  ["http://172.31.255.255/", "blocked_address", /private/],
  ["http://192.168.1.1/", "blocked_address", /private/],
  ["http://169.254.169.254/latest/meta-data/", "blocked_address", /link-local/],
  ["http://100.64.0.1/", "blocked_address", /carrier-grade NAT/],
  ["http://100.100.100.200/", "blocked_address", /carrier-grade NAT/],
  ["http://192.0.0.170/", "blocked_address", /special-purpose/],
  ["http://192.0.2.1/", "blocked_address", /documentation/],
  ["http://198.18.0.1/", "blocked_address", /benchmarking/],
  ["http://198.51.100.7/", "blocked_address", /documentation/],
  ["http://203.0.113.9/", "blocked_address", /documentation/],
  ["http://224.0.0.1/", "blocked_address", /multicast/],
  ["http://239.255.255.250/", "blocked_address", /multicast/],
  ["http://240.0.0.1/", "blocked_address", /reserved/],
  ["http://255.255.255.255/", "blocked_address", /broadcast/],
  // IPv6 literals, including the forms that embed IPv4.
  ["http://[::1]/", "blocked_address", /loopback/],
  ["http://[::]/", "blocked_address", /unspecified/],
  ["http://[::ffff:127.0.0.1]/", "blocked_address", /loopback/],
  ["http://[::ffff:169.254.169.254]/", "blocked_address", /link-local/],
  ["http://[::127.0.0.1]/", "blocked_address", /loopback/],
  ["http://[64:ff9b::a00:1]/", "blocked_address", /private/],
  ["http://[64:ff9b::169.254.169.254]/", "blocked_address", /link-local/],
  ["http://[2002:c0a8:101::1]/", "blocked_address", /private/],
  ["http://[2002:7f00:1::1]/", "blocked_address", /loopback/],
  ["http://[fc00::1]/", "blocked_address", /unique-local/],
  ["http://[fd12:3456::1]/", "blocked_address", /unique-local/],
  ["http://[fe80::1]/", "blocked_address", /link-local/],
  ["http://[fec0::1]/", "blocked_address", /site-local/],
  ["http://[ff02::1]/", "blocked_address", /multicast/],
  ["http://[2001:db8::1]/", "blocked_address", /documentation/],
  ["http://[64:ff9b:1::1]/", "blocked_address", /special-purpose/],
  ["http://[100::1]/", "blocked_address", /special-purpose/],
  // Names: private answers, and public answers mixed with private ones.
  [
    "http://localhost/",
    "blocked_address",
    /localhost resolves to 127\.0\.0\.1, which is a loopback/,
  ],
  ["http://internal.example/", "blocked_address", /resolves to 10\.1\.2\.3, which is a private/],
  ["http://mixed.example/", "blocked_address", /resolves to 10\.0\.0\.5/],
  ["http://mixed6.example/", "blocked_address", /resolves to fd00::1, which is a unique-local/],
  ["http://metadata.google.internal/computeMetadata/v1/", "blocked_address", /link-local/],
  ["http://nat64.example/", "blocked_address", /64:ff9b::7f00:1, which is a loopback/],
  ["http://mapped.example/", "blocked_address", /private/],
  ["http://sixtofour.example/", "blocked_address", /private/],
  ["http://cgnat.example/", "blocked_address", /carrier-grade NAT/],
  ["http://unresolvable.example/", "dns", /does not resolve/],
  // Schemes and credentials.
  ["file:///etc/passwd", "scheme", /file URLs are refused/],
  ["ftp://public.example/", "scheme", /ftp URLs are refused/],
  ["gopher://public.example/", "scheme", /gopher URLs are refused/],
  ["data:text/html,hello", "scheme", /data URLs are refused/],
  ["javascript:alert(1)", "scheme", /javascript URLs are refused/],
  ["http://user:pass@public.example/", "credentials", /user name or password/],
  ["http://user@public.example/", "credentials", /user name or password/],
  ["not a url at all", "invalid_url", /not a valid URL/],
  // Redirect chains.
  ["http://public.example/to-loopback", "blocked_address", /127\.0\.0\.1 is a loopback/],
  ["http://public.example/to-localhost", "blocked_address", /localhost resolves to 127\.0\.0\.1/],
  ["http://public.example/to-metadata", "blocked_address", /169\.254\.169\.254 is a link-local/],
  ["http://public.example/to-v6-loopback", "blocked_address", /loopback/],
  ["http://public.example/hop1", "blocked_address", /\[::1\] is a loopback/],
  ["http://public.example/to-mixed", "blocked_address", /10\.0\.0\.5/],
  [
    "http://public.example/to-protocol-relative-private",
    "blocked_address",
    /10\.0\.0\.1 is a private/,
  ],
  ["http://public.example/to-file", "redirect", /redirected to a file URL, which is refused/],
  ["http://public.example/to-data", "redirect", /redirected to a data URL/],
  ["http://public.example/to-ftp", "redirect", /redirected to a ftp URL/],
  ["http://public.example/to-gopher", "redirect", /redirected to a gopher URL/],
  ["http://public.example/to-credentials", "credentials", /user name or password/],
  ["http://public.example/loop-a", "redirect", /redirect loop/],
  ["http://public.example/chain/0?stop=11", "redirect", /more than 10 redirects/],
];

Deno.test(`ssrf: ${CASES.length} hostile URLs and redirect chains are refused`, async () => {
  assert.ok(CASES.length >= 40);
  for (const [url, kind, message] of CASES) {
    const transport = spyTransport();
    const net = new Net({ transport, resolver });
    const error = await net.fetch(url).then(
      () => undefined,
      (e) => e,
    );
    assert.ok(error instanceof NetError, `${url}: expected a NetError, got ${error}`);
    assert.equal(error.kind, kind, `${url}: ${error.message}`);
    assert.match(error.message, message, url);
    if (kind === "blocked_address") {
      assert.match(error.message, /MCP_ALLOW_PRIVATE_IPS=1/, "says how to opt out");
    }
    for (const call of transport.calls) {
      assert.ok(call.addresses && call.addresses.length > 0, "every connection is pinned");
    }
  }
});

Deno.test("ssrf: ten redirects are followed, each hop checked and pinned", async () => {
  const transport = spyTransport();
  const net = new Net({ transport, resolver });
  const result = await net.fetch("http://public.example/chain/0?stop=10");
  assert.equal(result.status, 200);
  assert.equal(result.redirects.length, 10);
  assert.equal(result.url, "http://public.example/chain/10?stop=10");
  assert.equal(transport.calls.length, 11);
  assert.ok(transport.calls.every((c) => c.addresses?.[0] === PUBLIC));
  assert.equal(result.pinned, true);
  assert.equal(result.degraded, false);
});

Deno.test("ssrf: MCP_ALLOW_PRIVATE_IPS turns the address check off, not the scheme check", async () => {
  const transport = spyTransport();
  const net = new Net({ transport, resolver, allowPrivate: true });
  const result = await net.fetch("http://internal.example/");
  assert.equal(result.status, 200);
  assert.equal(transport.calls[0].addresses, undefined);
  await assert.rejects(net.fetch("file:///etc/passwd"), /file URLs are refused/);
});
