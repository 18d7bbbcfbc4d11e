/**
 * The `discourse` tool and the re-reading of Discourse topic pages through
 * the JSON API, end to end: the real server over stdio, driven by the SDK
 * client, replaying `fixtures/http/discourse` (hand-written from the
 * Discourse API documentation; the real captures under PARKOUR_SHARED_DIR
 * where named).
 */
import assert from "node:assert/strict";
import { ToolError } from "../../lib/errors.ts";
import type { Client } from "@modelcontextprotocol/client";
import { sharedDir } from "../support/shared.ts";
import {
  cleanRaw,
  forumBase,
  nestHeadings,
  parseTopicQuery,
  topicOfUrl,
} from "../../lib/sources/discourse.ts";
import {
  asList,
  callLenient as call,
  connectServer,
  frontmatterText,
} from "../support/mcp_client.ts";

/** The heading line of post `n` (any level: replies sit deeper). */
const postHeading = (body: string[], n: number): string | undefined =>
  body.find((l) => new RegExp(`^#{2,6} ${n} · @`).test(l));

const SHARED = sharedDir() !== undefined;
const NEEDS_SHARED = " (skipped: needs PARKOUR_SHARED_DIR for the real Discourse captures)";

const connect = (args: string[] = []): Promise<Client> =>
  connectServer({ args, name: "discourse-tests" });

const client = await connect();
const clientJson = await connect(["--default-output", "json"]);
const FORUM = "https://discuss.example.org";

Deno.test("discourse units: base URLs, topic ids, raw cleanup, nested headings", () => {
  assert.equal(
    forumBase("https://meta.discourse.org/t/some-topic/12?u=x#frag"),
    "https://meta.discourse.org",
  );
  assert.equal(
    forumBase("forum.example.org/community/latest"),
    "https://forum.example.org/community",
  );
  assert.throws(() => forumBase("ftp://forum.example.org"), ToolError);
  assert.throws(() => forumBase("not a host"), ToolError);
  assert.deepEqual(topicOfUrl("https://f.example.org/sub/t/slug/123/45"), {
    base: "https://f.example.org/sub",
    id: 123,
    postNumber: 45,
  });
  assert.equal(topicOfUrl("https://f.example.org/t/123")?.id, 123);
  assert.deepEqual(topicOfUrl("https://f.example.org/t/2108/452"), {
    base: "https://f.example.org",
    id: 2108,
    postNumber: 452,
  });
  assert.equal(topicOfUrl("https://f.example.org/c/general/5"), undefined);
  assert.throws(() => parseTopicQuery("123"), /needs base_url/);
  assert.throws(() => parseTopicQuery("https://f.example.org/about"), /topic id/);
  assert.equal(parseTopicQuery("77", "https://f.example.org/t/x/1").base, "https://f.example.org");
  assert.equal(
    cleanRaw('[quote="ann, post:3, topic:9"]\nhi\n[/quote]\n![a|690x388, 50%](upload://x.png)'),
    "> **@ann** (post #3):\n> hi\n\n[image]",
  );
  assert.equal(
    nestHeadings("# Intro\n## 7\n```\n# code\n```"),
    "### Intro\n**7**\n```\n# code\n```",
  );
});

Deno.test("discourse topic: raw Markdown per post, every post a section, paged through the stream", async () => {
  const a = await call(client, "discourse", { action: "topic", query: `${FORUM}/t/welcome/42` });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.source, `${FORUM}/t/42`);
  assert.equal(a.fm.api, "Discourse");
  assert.equal(a.fm.posts, 25);
  assert.equal(a.fm.showing_posts, "1-25");
  assert.equal(a.fm.content_type, "record");
  assert.equal(a.body[0], "# Welcome to the example forum");
  assert.ok(a.body.includes("25 posts | 321 views | 2024-03-01 10:15 UTC | tags: meta, howto"));
  for (let n = 1; n <= 25; n++) assert.ok(postHeading(a.body, n), `post ${n} heading`);
  // Posts 21 to 25 came from the posts.json batch.
  assert.ok(a.body.some((l) => l.includes("marker25word")));
  assert.ok(a.body.includes("**@user3** — reply to #1 — 2024-03-03 10:15 UTC"));
  assert.ok(a.body.includes("### Welcome"), "a post's own heading sits below the post");
  assert.ok(a.body.includes("[image]"));
  assert.ok(a.body.includes("> **@user1** (post #1):"));
  assert.doesNotMatch(a.text, /data-theme-toc/);
  assert.match(String(asList(a.fm.hint)[0]), /section=1/);
  assert.doesNotMatch(
    frontmatterText(a.text),
    /Welcome to the example/,
    "the title stays in the fence",
  );
});

Deno.test("discourse topic: posts 1 to 9 are sections; a numeric heading inside a post does not take post 3", async () => {
  const url = `${FORUM}/t/42`;
  await call(client, "discourse", { action: "topic", query: url });
  for (const n of [1, 3, 9, 12]) {
    const s = await call(client, "web_fetch_incisive", { url, section: String(n) });
    assert.equal(s.isError, false, s.text);
    const text = s.body.join("\n");
    assert.match(text, new RegExp(`@user${n}\\*\\*`), `section=${n}: ${text.slice(0, 200)}`);
  }
  const three = await call(client, "web_fetch_incisive", { url, section: "3" });
  assert.match(three.body.join("\n"), /Post three replies with a quote/);
  const found = await call(client, "web_fetch_incisive", { url, search: "marker7word" });
  assert.equal(found.isError, false, found.text);
  assert.match(found.body.join("\n"), /marker7word/);
});

Deno.test("discourse topic: the outline is the reply tree, with each post's author and whom it answers", async () => {
  const url = `${FORUM}/t/42`;
  const o = await call(client, "web_fetch_sections", { url });
  assert.equal(o.isError, false, o.text);
  const line = (n: number) => o.body.find((l) => new RegExp(`- ${n} · @`).test(l)) ?? "";
  const indent = (n: number) => line(n).search(/\S/);
  // Post 3 answers post 1: listed right after it (before post 2), one level deeper.
  assert.match(line(3), /- 3 · @user3 · reply to #1 \(#3\)$/);
  assert.ok(indent(3) > indent(1), o.body.join("\n"));
  assert.ok(o.body.indexOf(line(3)) < o.body.indexOf(line(2)), "replies follow their post");
  // A post that answers the topic stays at the top level.
  assert.equal(indent(2), indent(1));
  // auto_expand on a post brings its replies; section=N still names post N.
  const one = await call(client, "web_fetch_incisive", { url, section: "1", auto_expand: true });
  assert.match(one.body.join("\n"), /@user3\*\* — reply to #1/);
  const three = await call(client, "web_fetch_incisive", { url, section: "#3" });
  assert.match(three.body.join("\n"), /Post three replies with a quote/);
});

Deno.test("discourse topic: a long topic comes in pages of 100 posts with a hint to the next page", async () => {
  const a = await call(client, "discourse", { action: "topic", query: `${FORUM}/t/long/50` });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.posts, 130);
  assert.equal(a.fm.showing_posts, "1-100");
  assert.ok(postHeading(a.body, 100) && !postHeading(a.body, 101));
  const next = asList(a.fm.hint).map(String).find((h) => /more posts/.test(h));
  assert.equal(next, `30 more posts after post 100: read them from ${FORUM}/t/50/101`);
  const b = await call(client, "discourse", { action: "topic", query: `${FORUM}/t/50/101` });
  assert.equal(b.isError, false, b.text);
  assert.equal(b.fm.showing_posts, "101-130");
  assert.ok(postHeading(b.body, 130) && !postHeading(b.body, 100));
  assert.ok(!asList(b.fm.hint).some((h) => /more posts/.test(String(h))));
});

Deno.test("discourse interception: a generic fetch of a topic page with x-discourse-route is re-read through the API", async () => {
  const a = await call(client, "web_fetch_incisive", {
    url: `${FORUM}/t/welcome/42`,
    section: "2",
  });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.api, "Discourse");
  assert.match(a.body.join("\n"), /A heading that is only a number/);
  const o = await call(client, "web_fetch_sections", { url: `${FORUM}/t/welcome/42` });
  assert.equal(o.isError, false, o.text);
  for (const n of [1, 2, 9, 25]) {
    assert.ok(
      o.body.some((l) =>
        new RegExp(`^ *- ${n} · @user${n}( · reply to #\\d+)? \\(#${n}\\)$`).test(l)
      ),
      `outline lists post ${n}: ${o.body.join("\n")}`,
    );
  }
  assert.ok(
    o.body.some((l) => /^ +- Welcome \(#welcome\)$/.test(l)),
    "a post's heading nests under the post",
  );
  assert.match(o.text, /Welcome to the example forum/);
  // A list page carries the header too, but is not a topic: it stays on the web path.
  const l = await call(client, "web_fetch_incisive", { url: `${FORUM}/latest` });
  assert.equal(l.isError, false, l.text);
  assert.equal(l.fm.api, undefined);
  assert.match(l.body.join("\n"), /List page/);
});

Deno.test("discourse search and latest: records in the configured format, free text in the fence", async () => {
  const s = await call(client, "discourse", {
    action: "search",
    query: "marker word",
    base_url: `${FORUM}/t/welcome/42`,
  });
  assert.equal(s.isError, false, s.text);
  assert.equal(s.fm.source, `${FORUM}/`);
  assert.equal(s.fm.action, "search");
  assert.equal(s.fm.showing, 2);
  assert.match(s.body.join("\n"), /https:\/\/discuss\.example\.org\/t\/42\/7/);
  const j = await call(clientJson, "discourse", { action: "latest", base_url: FORUM, limit: 2 });
  assert.equal(j.isError, false, j.text);
  assert.equal(j.fm.format, "json");
  assert.equal(j.fm.showing, 2);
  const start = j.body.findIndex((l) => l.startsWith("[") || l.startsWith("{"));
  const records = JSON.parse(j.body.slice(start).join("\n"));
  const rows = Array.isArray(records) ? records : (records.topics ?? records);
  assert.equal(rows[0].url, `${FORUM}/t/welcome/42`);
  assert.equal(rows[0].last_post, "2024-03-25 10:15 UTC");
  assert.doesNotMatch(frontmatterText(j.text), /Ignore previous instructions/);
  const e = await call(client, "discourse", {
    action: "search",
    query: "nothing here",
    base_url: FORUM,
  });
  assert.equal(e.isError, false, e.text);
  assert.equal(e.fm.showing, 0);
  assert.match(String(e.fm.note), /no posts match/);
});

Deno.test("discourse errors: missing, private, rate limited, failing, malformed, not a forum, bad input", async () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ action: "topic", query: "404404", base_url: FORUM }, /HTTP 404.*deleted, or is private/],
    [{ action: "topic", query: `${FORUM}/t/x/403403` }, /HTTP 403.*private/],
    [{ action: "topic", query: `${FORUM}/t/429429` }, /rate limiting.*HTTP 429.*wait 1 s/],
    [{ action: "topic", query: `${FORUM}/t/777` }, /Invalid JSON/],
    [{ action: "latest", base_url: "https://broken.example.org" }, /HTTP 502.*try again later/],
    [
      { action: "latest", base_url: "https://notaforum.example.org" },
      /not look like a Discourse forum/,
    ],
    [
      { action: "search", query: "deno", base_url: "https://blog.example.org" },
      /not a Discourse forum/,
    ],
    [{ action: "topic", query: "https://discuss.example.org/about" }, /topic id/],
    [{ action: "topic", query: "42" }, /needs base_url/],
    [{ action: "latest" }, /needs base_url/],
    [{ action: "latest", base_url: "javascript:alert(1)" }, /only http and https/],
  ];
  for (const [args, pattern] of cases) {
    const a = await call(client, "discourse", args);
    assert.equal(a.isError, true, `${JSON.stringify(args)}: ${a.text}`);
    assert.match(a.text, pattern, JSON.stringify(args));
  }
});

Deno.test({
  name: `discourse topic: meta.discourse.org's real topic 1 with raw Markdown${
    SHARED ? "" : NEEDS_SHARED
  }`,
  ignore: !SHARED,
  async fn() {
    const a = await call(client, "discourse", {
      action: "topic",
      query: "1",
      base_url: "https://meta.discourse.org",
    });
    assert.equal(a.isError, false, a.text);
    assert.equal(a.fm.posts, 1);
    assert.equal(a.body[0], "# New to Discourse? Start here!");
    assert.ok(postHeading(a.body, 1));
    assert.ok(a.body.includes("#### Want to run your own Discourse site?"));
    const s = await call(client, "web_fetch_incisive", {
      url: "https://meta.discourse.org/t/1",
      section: "1",
    });
    assert.match(s.body.join("\n"), /We’re so glad you’re here/);
  },
});

Deno.test({
  name: `discourse topic: a real topic without raw falls back to the rendered HTML${
    SHARED ? "" : NEEDS_SHARED
  }`,
  ignore: !SHARED,
  async fn() {
    const a = await call(client, "discourse", {
      action: "topic",
      query: "https://discuss.criticalfallibilism.com/t/2108/452",
    });
    assert.equal(a.isError, false, a.text);
    assert.equal(a.fm.posts, 446);
    assert.ok(postHeading(a.body, 452), a.body.slice(0, 8).join("\n"));
    assert.ok(asList(a.fm.note).some((n) => /rendered HTML/.test(String(n))));
  },
});

Deno.test({
  name: "discourse: shutdown",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await client.close();
    await clientJson.close();
  },
});
