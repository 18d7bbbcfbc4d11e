/**
 * GitHub gaps closed in issue 21, through the real server replaying
 * fixtures/http/github (hand-written from GitHub's API documentation):
 * branch names with `/` in blob and tree URLs (resolved against the refs
 * API), discussions (GraphQL, which needs a token), and an empty label
 * search that lists the repository's real labels.
 */
import assert from "node:assert/strict";
import { asList, callTool, connectServer, frontmatterText } from "../support/mcp_client.ts";

const anonymous = await connectServer({ env: { HOME: "/nonexistent" }, name: "github-refs" });
const withToken = await connectServer({
  env: { HOME: "/nonexistent", GITHUB_TOKEN: "ghp_TESTtokenNEVERshown0123456789abcdef" },
  name: "github-refs-token",
});
const list = (v: unknown) => asList(v).map(String);

Deno.test("github slash refs: a tree URL on release/2.x lists that branch's folder", async () => {
  const a = await callTool(anonymous, "web_fetch_incisive", {
    url: "https://github.com/octo-org/widget/tree/release/2.x/src",
  });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.type, "tree");
  assert.equal(a.fm.source, "https://github.com/octo-org/widget/tree/release/2.x/src");
  assert.equal(a.fm.final_url, undefined, "the Document's URL keeps the branch whole");
  assert.match(a.body.join("\n"), /v2_only\.py/);
});

Deno.test("github slash refs: a blob URL on release/2.x reads the file at that branch", async () => {
  const a = await callTool(anonymous, "web_fetch_incisive", {
    url: "https://github.com/octo-org/widget/blob/release/2.x/src/widget.py",
  });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.type, "file");
  assert.equal(
    a.fm.raw_url,
    "https://raw.githubusercontent.com/octo-org/widget/refs/heads/release/2.x/src/widget.py",
  );
  assert.match(a.body.join("\n"), /release 2/);
  // A branch without '/' takes the first path segment as before (no refs lookup needed).
  const plain = await callTool(anonymous, "web_fetch_incisive", {
    url: "https://github.com/octo-org/widget/blob/main/src/widget.py",
  });
  assert.equal(plain.isError, false, plain.text);
});

Deno.test("github discussions: the post, comments with their replies nested, the answer marked", async () => {
  const a = await callTool(withToken, "web_fetch_incisive", {
    url: "https://github.com/octo-org/widget/discussions/42",
  });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.api, "GitHub (GraphQL)");
  assert.equal(a.fm.type, "discussion");
  assert.equal(a.fm.comments, 3);
  assert.equal(a.fm.answered, true);
  const body = a.body.join("\n");
  assert.match(body, /^# How do widgets spin backwards\?$/m);
  assert.match(body, /\*\*discussion\*\* · Q&A · by \*\*@alice\*\*/);
  assert.match(body, /^### My setup$/m, "the post's own headings sit below the title");
  assert.match(body, /^### dc_7001 — @bob, 2026-09-01 · 1 upvotes$/m);
  assert.match(body, /^#### dc_7101 — @carol, 2026-09-01 \(reply to dc_7001\)$/m);
  assert.match(body, /^### dc_7002 — @maintainer, 2026-09-02 · 9 upvotes · accepted answer$/m);
  assert.match(body, /2 more replies not loaded here/);
  assert.doesNotMatch(frontmatterText(a.text), /IGNORE PREVIOUS|alice|widgets spin/);
  const one = await callTool(withToken, "web_fetch_incisive", {
    url: "https://github.com/octo-org/widget/discussions/42",
    section: "dc_7002",
    auto_expand: true,
  });
  assert.match(one.body.join("\n"), /Widget\.reverse/);
  assert.match(one.body.join("\n"), /dc_7102 — @alice/);
  assert.doesNotMatch(one.body.join("\n"), /dc_7001/);
});

Deno.test("github discussions: without a token the answer says how to get one", async () => {
  const a = await callTool(anonymous, "web_fetch_incisive", {
    url: "https://github.com/octo-org/widget/discussions/42",
  });
  assert.equal(a.isError, true);
  assert.match(a.text, /only through its GraphQL API, which needs a token: set GITHUB_TOKEN/);
});

Deno.test("github search_issues: an empty label search lists the repository's real labels", async () => {
  const a = await callTool(anonymous, "github", {
    action: "search_issues",
    query: "repo:octo-org/widget label:bugz is:open",
  });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.total_results, 0);
  assert.ok(
    list(a.fm.note).some((n) =>
      /1 of the query's 1 label\(s\) is not a label of octo-org\/widget; its 3 labels are listed/
        .test(n)
    ),
    String(a.fm.note),
  );
  assert.deepEqual(a.fences[0], [
    "# Labels of octo-org/widget",
    "",
    "- bug — Something isn't working",
    "- good first issue — Good for newcomers",
    "- needs-triage",
  ]);
  // Label names are the repository's text: fenced, never in the frontmatter.
  assert.doesNotMatch(frontmatterText(a.text), /Good for newcomers|needs-triage/);
  // An empty search without a label qualifier keeps the usual advice.
  const other = await callTool(anonymous, "github", {
    action: "search_issues",
    query: "repo:octo-org/widget zzzz",
  });
  assert.match(list(other.fm.hint).join("\n"), /nothing matched; loosen the query/);
});

Deno.test({
  name: "github refs: cleanup",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await anonymous.close();
    await withToken.close();
  },
});
