/**
 * The page cache: 2Q by bytes, promotion on second use, expiry, variants.
 */
import assert from "node:assert/strict";
import { cacheKey, PageCache } from "../../lib/net/cache.ts";
import { setCacheScope } from "../../lib/config.ts";
import { keyId, ownedKey, renderedPageKey, staticKey } from "../../lib/net/page_key.ts";
import { LOCAL, runAs } from "../../lib/principal.ts";
import { FakeClock } from "../support/fake_clock.ts";

const sized = (maxBytes: number, clock = new FakeClock(), ttlMs = 3_600_000) =>
  new PageCache<string>({ maxBytes, ttlMs, clock, sizeOf: (v) => v.length });

const doc = (n: number) => "x".repeat(n);

Deno.test("cache: eviction by bytes takes the oldest probation entry first", () => {
  const cache = sized(100);
  cache.set("https://a.example/", doc(40));
  cache.set("https://b.example/", doc(40));
  assert.equal(cache.bytes, 80);
  cache.set("https://c.example/", doc(40));
  assert.equal(cache.has("https://a.example/"), false, "oldest probation entry evicted");
  assert.equal(cache.has("https://b.example/"), true);
  assert.equal(cache.has("https://c.example/"), true);
  assert.ok(cache.bytes <= 100);
});

Deno.test("cache: a second use promotes; scans do not flush promoted pages", () => {
  const cache = sized(100);
  cache.set("https://keep.example/", doc(30));
  assert.equal(cache.queueOf("https://keep.example/"), "probation");
  assert.equal(cache.get("https://keep.example/"), doc(30));
  assert.equal(cache.queueOf("https://keep.example/"), "protected");
  for (let i = 0; i < 20; i++) cache.set(`https://scan.example/${i}`, doc(30));
  assert.equal(cache.get("https://keep.example/"), doc(30), "the protected page survived the scan");
  assert.ok(cache.bytes <= 100);
  assert.equal(cache.has("https://scan.example/0"), false);
  assert.equal(cache.has("https://scan.example/19"), true);
});

Deno.test("cache: protected entries are evicted least recently used first", () => {
  const cache = sized(90, new FakeClock(), 3_600_000);
  for (const name of ["a", "b", "c"]) {
    cache.set(`https://${name}.example/`, doc(30));
    cache.get(`https://${name}.example/`);
  }
  cache.get("https://a.example/"); // a is now the most recent
  cache.set("https://d.example/", doc(30));
  cache.get("https://d.example/");
  assert.equal(cache.has("https://b.example/"), false, "b was least recently used");
  assert.equal(cache.has("https://a.example/"), true);
  assert.equal(cache.has("https://c.example/"), true);
});

Deno.test("cache: entries expire after the TTL", async () => {
  const clock = new FakeClock();
  const cache = sized(1000, clock, 3_600_000);
  cache.set("https://a.example/", doc(10));
  await clock.advance(3_599_999);
  assert.equal(cache.get("https://a.example/"), doc(10));
  await clock.advance(1);
  assert.equal(cache.has("https://a.example/"), false);
  assert.equal(cache.get("https://a.example/"), undefined);
  assert.equal(cache.bytes, 0);
});

Deno.test("cache: static and rendered forms are separate; fragments are ignored", () => {
  const cache = sized(1000);
  cache.set("https://a.example/page#intro", "static form");
  cache.set("https://a.example/page", "rendered form", "rendered");
  assert.equal(cache.get("https://a.example/page#other"), "static form");
  assert.equal(cache.get("https://a.example/page", "rendered"), "rendered form");
  assert.equal(cacheKey("https://a.example/page#x"), cacheKey("https://a.example/page"));
  assert.notEqual(
    cacheKey("https://a.example/page"),
    cacheKey("https://a.example/page", "rendered"),
  );
  assert.equal(cache.size, 2);
});

Deno.test("cache: oversize values are not stored; replacing keeps the queue", () => {
  const cache = sized(100);
  assert.equal(cache.set("https://huge.example/", doc(101)), false);
  assert.equal(cache.size, 0);
  cache.set("https://a.example/", doc(10));
  cache.get("https://a.example/");
  cache.set("https://a.example/", doc(20));
  assert.equal(cache.queueOf("https://a.example/"), "protected");
  assert.equal(cache.bytes, 20);
  cache.delete("https://a.example/");
  assert.equal(cache.bytes, 0);
});

Deno.test("cache: a value is released once no entry holds it, and never while one does", async () => {
  const clock = new FakeClock();
  const released: string[] = [];
  const cache = new PageCache<{ name: string; size: number }>({
    maxBytes: 100,
    ttlMs: 1000,
    clock,
    sizeOf: (v) => v.size,
    release: (v) => released.push(v.name),
  });
  const a = { name: "a", size: 40 };
  const b = { name: "b", size: 40 };
  const shared = { name: "shared", size: 10 };
  cache.set("https://a.example/", a);
  // Storing the same value again (a recount after its index grew) keeps it.
  a.size = 45;
  cache.set("https://a.example/", a);
  assert.deepEqual(released, []);
  cache.set("https://b.example/", b);
  // One value under two keys is released only when both entries are gone.
  cache.set("https://s1.example/", shared);
  cache.set("https://s2.example/", shared);
  assert.deepEqual(released, ["a"], "a was evicted for the shared value");
  cache.delete("https://s1.example/");
  assert.deepEqual(released, ["a"], "s2 still holds the shared value");
  cache.delete("https://s2.example/");
  assert.deepEqual(released, ["a", "shared"]);
  // A value larger than the bound is not stored, and not released: its caller holds it.
  const huge = { name: "huge", size: 500 };
  assert.equal(cache.set("https://huge.example/", huge), false);
  assert.deepEqual(released, ["a", "shared"]);
  // Replacing an entry with another value releases the old one.
  const b2 = { name: "b2", size: 40 };
  cache.set("https://b.example/", b2);
  assert.deepEqual(released, ["a", "shared", "b"]);
  // An expired entry found by get() is released.
  await clock.advance(2000);
  assert.equal(cache.get("https://b.example/"), undefined);
  assert.deepEqual(released, ["a", "shared", "b", "b2"]);
});

Deno.test("cache: under the principal scope each OAuth subject's keys are apart; shared keys are as before", () => {
  const alice = { kind: "oauth", id: "alice" } as const;
  const bob = { kind: "oauth", id: "bob" } as const;
  const owner = { kind: "owner", id: "owner" } as const;
  const page = "https://example.org/a#part";
  const rendered = { fullPage: false, allowOffsite: false, actions: [] };
  const ids = () =>
    [LOCAL, owner, alice, bob].map((p) =>
      runAs(
        p,
        () => [keyId(staticKey(page)), keyId(renderedPageKey(page, rendered)), ownedKey("t")],
      )
    );
  try {
    setCacheScope("shared");
    const shared = ids();
    for (const each of shared) assert.deepEqual(each, shared[0]);
    assert.equal(
      shared[0][0],
      JSON.stringify(["static", "https://example.org/a", false, false, []]),
    );
    setCacheScope("principal");
    const [local, own, a, b] = ids();
    // The local user and the static token's owner are one person (as on the shelf): stdio,
    // the CLI and a single-user service behave as with the shared scope.
    assert.deepEqual(local, shared[0]);
    assert.deepEqual(own, shared[0]);
    for (let i = 0; i < 3; i++) {
      assert.notEqual(a[i], local[i]);
      assert.notEqual(a[i], b[i]);
    }
    const cache = new PageCache<string>({ sizeOf: (v) => v.length });
    runAs(alice, () => cache.set(staticKey(page), "alice's"));
    assert.equal(runAs(alice, () => cache.get(staticKey(page))), "alice's");
    assert.equal(runAs(bob, () => cache.get(staticKey(page))), undefined);
    assert.equal(cache.get(staticKey(page)), undefined);
  } finally {
    setCacheScope(undefined);
  }
});
