/**
 * The `github` tool and the interception of GitHub URLs by the page tools,
 * end to end: the real server over stdio, driven by the SDK client,
 * replaying `fixtures/http/github` (hand-written from GitHub's REST API
 * documentation; the real captures under PARKOUR_SHARED_DIR where named).
 */
import assert from "node:assert/strict";
import { ToolError } from "../../lib/errors.ts";
import { HttpServerProcess, replaySetup } from "../support/process.ts";
import { sharedDir } from "../support/shared.ts";
import {
  parseGithubUrl,
  parseIssueQuery,
  parseLineAnchor,
  parsePathQuery,
  parseRepoQuery,
} from "../../lib/sources/github/urls.ts";
import { citationFromCff, decodeText } from "../../lib/sources/github/mod.ts";
import { demote } from "../../lib/sources/github/render.ts";
import {
  asList,
  callLenient as call,
  connectServer,
  frontmatterText,
} from "../support/mcp_client.ts";

const replay = replaySetup();
const SHARED = sharedDir() !== undefined;
const NEEDS_SHARED = "needs PARKOUR_SHARED_DIR (the real GitHub captures)";

const connect = (env: Record<string, string> = {}, args: string[] = [], readDirs: string[] = []) =>
  // No token from the developer's machine: HOME points nowhere useful.
  connectServer({ args, env: { HOME: "/nonexistent", ...env }, readDirs, name: "github-tests" });
const list = (value: unknown): string[] => asList(value).map(String);

const client = await connect();
const clientJson = await connect({}, ["--default-output", "json"]);

// ---------------------------------------------------------------------------
// Parsing (pure)

Deno.test("github urls: every shape in the reference is recognised", () => {
  const kind = (u: string) => parseGithubUrl(new URL(u))?.kind;
  assert.equal(kind("https://github.com/o/r/blob/main/a/b.py"), "file");
  assert.equal(kind("https://raw.githubusercontent.com/o/r/main/a/b.py"), "file");
  assert.equal(kind("https://github.com/o/r/tree/main/src"), "tree");
  assert.equal(kind("https://github.com/o/r"), "repo");
  assert.equal(kind("https://github.com/o/r.git"), "repo");
  assert.equal(kind("https://github.com/octo-org"), "account");
  assert.equal(kind("https://github.com/o/r/issues/12"), "issue");
  assert.equal(kind("https://github.com/o/r/pull/12/files"), "pull");
  assert.equal(kind("https://gist.github.com/someone/6296732"), "gist");
  assert.equal(kind("https://github.com/o/r/wiki/Setup"), "wiki");
  assert.equal(kind("https://github.com/o/r/commit/abc1234"), "commit");
  assert.equal(kind("https://github.com/o/r/compare/v1...v2"), "compare");
  assert.equal(kind("https://github.com/o/r/releases"), "releases");
  assert.equal(kind("https://github.com/o/r/releases/tag/v1.0"), "releases");
  assert.equal(kind("https://github.com/o/r/blame/main/a.py"), "refused");
  assert.equal(kind("https://github.com/o/r/actions/runs/1"), "refused");
  assert.equal(kind("https://github.com/o/r/projects/1"), "refused");
  // GitHub's own pages and unknown shapes are not claimed.
  assert.equal(kind("https://github.com/settings"), undefined);
  assert.equal(kind("https://github.com/o/r/labels"), undefined);
  assert.equal(kind("https://github.com/o/r/issues/abc"), undefined);
  assert.equal(kind("https://example.com/o/r"), undefined);
});

Deno.test("github queries: malformed input names the accepted forms", () => {
  assert.deepEqual(parseIssueQuery("python/cpython#100000"), {
    owner: "python",
    repo: "cpython",
    number: 100000,
  });
  assert.equal(parseIssueQuery("https://github.com/o/r/pull/5").number, 5);
  for (const bad of ["python/cpython", "cpython#1", "a/b#x", "a/b#-1", "../x#1", ""]) {
    assert.throws(() => parseIssueQuery(bad), (e: Error) => {
      assert.ok(e instanceof ToolError);
      assert.match(e.message, /owner\/repo#123/);
      return true;
    });
  }
  assert.throws(() => parseRepoQuery("just-a-name"), /accepted forms: owner\/repo/);
  assert.throws(
    () => parsePathQuery("o/r/../etc/passwd", undefined, true),
    /not a valid repository path/,
  );
  assert.throws(() => parsePathQuery("o/r", undefined, true), /names no file/);
  assert.throws(() => parsePathQuery("o/r/a.py", "bad ref", true), /not a git ref/);
  assert.throws(() => parsePathQuery("o/r/a.py", "a..b", true), /not a git ref/);
  assert.deepEqual(parseLineAnchor("L10-L20"), { from: 10, to: 20 });
  assert.deepEqual(parseLineAnchor("L7"), { from: 7, to: 7 });
  assert.equal(parseLineAnchor("install"), undefined);
  assert.throws(() => parseLineAnchor("L9-L5"), /start must not exceed the end/);
});

Deno.test("github helpers: binary detection, CITATION.cff, heading demotion", () => {
  assert.equal(decodeText(new Uint8Array([0x89, 0x50, 0x00, 0x47])), undefined);
  assert.equal(decodeText(new Uint8Array([0xff, 0xfe, 0x41])), undefined, "not UTF-8");
  assert.equal(decodeText(new TextEncoder().encode("héllo")), "héllo");
  const c = citationFromCff(
    "title: T\nauthors:\n  - family-names: A\n    given-names: B\ndoi: 10.5281/ZENODO.1\nyear: 2020\n",
    "o/r",
  );
  assert.equal(c?.doi, "10.5281/zenodo.1");
  assert.deepEqual(c?.authors, ["A, B"]);
  assert.equal(c?.year, 2020);
  assert.equal(c?.kind, "software");
  assert.equal(citationFromCff("title: T\n", "O/R")?.doi, "github:o/r");
  assert.equal(citationFromCff(": : [", "o/r"), undefined, "broken YAML is ignored");
  assert.equal(
    demote("# A\n```\n# not a heading\n```\n## B", 2),
    "### A\n```\n# not a heading\n```\n#### B",
  );
});

// ---------------------------------------------------------------------------
// Tool actions

Deno.test("github repo: metadata, README, CITATION.cff DOI on the shelf, rate-limit warning", async () => {
  const a = await call(client, "github", { action: "repo", query: "octo-org/widget" });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.source, "https://github.com/octo-org/widget");
  assert.equal(a.fm.api, "GitHub");
  assert.equal(a.fm.type, "repository");
  assert.equal(a.fm.stars, 1234);
  assert.equal(a.fm.license, "MIT");
  assert.equal(a.fm.citation_cff, true);
  assert.match(String(a.fm.shelf), /1 tracked/);
  assert.ok(list(a.fm.hint).some((h) => /action=issue_templates/.test(h)));
  assert.ok(list(a.fm.warning).some((w) => /rate limit low: 4 of 60.*GITHUB_TOKEN/.test(w)));
  assert.equal(a.fm.openssf_scorecard, "7.4/10 (@ 2026-04-13)", "from deps.dev");
  assert.match(
    String(a.fm.see_also),
    /packages \(action=project, query=github\.com\/octo-org\/widget\)/,
  );
  assert.ok(a.body.includes("Widgets for the working octopus"));
  assert.ok(a.body.includes("## README"));
  assert.ok(a.body.includes("### Widget"), "README headings nest under ## README");
  assert.doesNotMatch(
    frontmatterText(a.text),
    /working octopus/,
    "upstream text stays in the fence",
  );
  // The shelf holds the DOI from CITATION.cff.
  const shelf = await call(clientJson, "github", { action: "repo", query: "octo-org/widget" });
  assert.equal(shelf.isError, false);
  const listed = await call(client, "research_shelf", { action: "list" });
  assert.match(listed.text, /10\.5281\/zenodo\.1234567/);
});

Deno.test("github repo: without CITATION.cff the repository is shelved as github:owner/repo", async () => {
  const c = await connect();
  try {
    const a = await call(c, "github", {
      action: "repo",
      query: "https://github.com/octo-org/plain",
    });
    assert.equal(a.isError, false, a.text);
    assert.equal(a.fm.citation_cff, undefined);
    assert.equal(a.fm.openssf_scorecard, undefined, "deps.dev has no Scorecard: none is claimed");
    assert.ok(a.body.includes("*No README.*"));
    const listed = await call(c, "research_shelf", { action: "list" });
    assert.match(listed.text, /github:octo-org\/plain/);
  } finally {
    await c.close();
  }
});

Deno.test("github errors: 404 says missing or private, 403/429 the reset, 401 the token, 5xx, garbage", async () => {
  const missing = await call(client, "github", { action: "repo", query: "octo-org/missing" });
  assert.equal(missing.isError, true);
  assert.match(missing.text, /does not exist, or it is private/);
  assert.match(missing.text, /GITHUB_TOKEN/);
  const limited = await call(client, "github", { action: "repo", query: "octo-org/limited" });
  assert.equal(limited.isError, true);
  assert.match(limited.text, /rate limit reached \(HTTP 403\).*resets at 2031-01-01T00:00:00Z/s);
  assert.match(limited.text, /60 an hour: set GITHUB_TOKEN/);
  const throttled = await call(client, "github", { action: "repo", query: "octo-org/throttled" });
  assert.equal(throttled.isError, true);
  assert.match(throttled.text, /rate limit reached \(HTTP 429\)/);
  const unauth = await call(client, "github", {
    action: "search_code",
    query: "repo:octo-org/widget spin",
  });
  assert.equal(unauth.isError, true);
  assert.match(unauth.text, /requires authentication.*set GITHUB_TOKEN/s);
  const broken = await call(client, "github", { action: "repo", query: "octo-org/broken" });
  assert.equal(broken.isError, true);
  assert.match(broken.text, /GitHub failed \(HTTP 500\).*try again later/s);
  const garbled = await call(client, "github", { action: "repo", query: "octo-org/garbled" });
  assert.equal(garbled.isError, true);
  assert.match(garbled.text, /was not JSON/);
  const bad = await call(client, "github", { action: "issue", query: "octo-org/widget" });
  assert.equal(bad.isError, true);
  assert.match(bad.text, /accepted forms: owner\/repo#123/);
  assert.doesNotMatch(bad.text, /unexpectedly/);
  const invalid = await call(client, "github", { action: "search_issues", query: "repo:::" });
  assert.equal(invalid.isError, true);
  assert.match(invalid.text, /HTTP 422: Validation Failed: The listed users/);
});

Deno.test("github token: GITHUB_TOKEN that GitHub refuses gets the bad-token explanation", async () => {
  const c = await connect({ GITHUB_TOKEN: "ghp_not_a_real_token_123" });
  try {
    const a = await call(c, "github", { action: "repo", query: "octo-org/badtoken" });
    assert.equal(a.isError, true);
    assert.match(a.text, /refused the token \(HTTP 401, bad credentials\).*GITHUB_TOKEN/s);
    assert.doesNotMatch(a.text, /ghp_not_a_real_token_123/, "the token is never echoed");
    // With a token, a low budget does not suggest setting one.
    const r = await call(c, "github", { action: "repo", query: "octo-org/widget" });
    assert.ok(list(r.fm.warning).some((w) => /rate limit low/.test(w)));
    assert.ok(!list(r.fm.warning).some((w) => /set GITHUB_TOKEN/.test(w)));
  } finally {
    await c.close();
  }
});

Deno.test("github token file: refused when group or others can read it, used at mode 600", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/parkour`);
    const path = `${dir}/parkour/github_token`;
    await Deno.writeTextFile(path, "ghp_file_token_456\n");
    await Deno.chmod(path, 0o644);
    const open = await connect({ XDG_CONFIG_HOME: dir }, [], [dir]);
    try {
      const a = await call(open, "github", { action: "repo", query: "octo-org/widget" });
      assert.equal(a.isError, false, a.text);
      assert.ok(
        list(a.fm.warning).some((w) => /was not read: its mode 644.*chmod 600/.test(w)),
        String(a.fm.warning),
      );
      assert.doesNotMatch(a.text, /ghp_file_token_456/);
    } finally {
      await open.close();
    }
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o644, "the user's file is left as it was");
    await Deno.chmod(path, 0o600);
    const closed = await connect({ XDG_CONFIG_HOME: dir }, [], [dir]);
    try {
      const a = await call(closed, "github", { action: "repo", query: "octo-org/badtoken" });
      assert.equal(a.isError, true);
      assert.match(a.text, /refused the token.*~\/\.config\/parkour\/github_token/s);
      assert.doesNotMatch(a.text, /ghp_file_token_456/);
    } finally {
      await closed.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("github search_issues: records in the output format, paging hints", async () => {
  const a = await call(client, "github", {
    action: "search_issues",
    query: "repo:octo-org/widget spin",
    limit: 2,
  });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.total_results, 25);
  assert.equal(a.fm.showing, "1-2 (page 1)");
  assert.equal(
    a.fm.source,
    "https://github.com/search?q=repo%3Aocto-org%2Fwidget+spin&type=issues",
  );
  assert.ok(list(a.fm.hint).some((h) => /page=2/.test(h)));
  assert.match(a.body.join("\n"), /octo-org\/widget#7/);
  assert.match(a.body.join("\n"), /pull_request/);
  assert.equal(a.fm.shelf, undefined, "search results are never shelved");
  const j = await call(clientJson, "github", {
    action: "search_issues",
    query: "repo:octo-org/widget spin",
    limit: 2,
  });
  const records = JSON.parse(j.body.join("\n"));
  const rows = Array.isArray(records) ? records : records.issues;
  assert.equal(rows[0].ref, "octo-org/widget#7");
  assert.equal(rows[1].type, "pull_request");
  const none = await call(client, "github", {
    action: "search_issues",
    query: "repo:octo-org/widget zzzz",
  });
  assert.equal(none.isError, false);
  assert.equal(none.fm.total_results, 0);
  assert.match(String(none.fm.note), /incomplete/);
  assert.match(String(none.fm.hint), /loosen the query/);
});

Deno.test("github search_repos and search_code: records", async () => {
  const r = await call(client, "github", {
    action: "search_repos",
    query: "widget language:python",
  });
  assert.equal(r.isError, false, r.text);
  assert.match(r.body.join("\n"), /octo-org\/widget/);
  const c = await call(client, "github", {
    action: "search_code",
    query: "cool repo:octo-org/widget",
  });
  assert.equal(c.isError, false, c.text);
  assert.match(c.body.join("\n"), /src\/widget\.py/);
  assert.match(c.body.join("\n"), /def cool/);
  assert.ok(list(c.fm.warning).some((w) => /9 of 10/.test(w)));
});

Deno.test("github issue: body first, a section per comment, paging through comments", async () => {
  const a = await call(client, "github", { action: "issue", query: "octo-org/widget#7" });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.type, "issue");
  assert.equal(a.fm.state, "open");
  assert.equal(a.fm.comments, 3);
  const body = a.body.join("\n");
  assert.ok(body.indexOf("When I call") < body.indexOf("ic_9001"), "the body comes first");
  assert.match(body, /### ic_9002 — @alice, 2026-10-02/);
  assert.match(body, /Reactions: 👍 3 ❤️ 1/);
  const p1 = await call(client, "github", {
    action: "issue",
    query: "octo-org/widget#7",
    limit: 2,
  });
  assert.match(p1.body.join("\n"), /ic_9002/);
  assert.doesNotMatch(p1.body.join("\n"), /ic_9003/);
  assert.ok(list(p1.fm.hint).some((h) => /comments 1-2 of 3.*page=2/.test(h)));
  const p2 = await call(client, "github", {
    action: "issue",
    query: "https://github.com/octo-org/widget/issues/7",
    limit: 2,
    page: 2,
  });
  assert.match(p2.body.join("\n"), /ic_9003/);
  const missing = await call(client, "github", { action: "issue", query: "octo-org/widget#999" });
  assert.equal(missing.isError, true);
  assert.match(missing.text, /issue octo-org\/widget#999 does not exist, or it is private/);
});

Deno.test("github pull_request: diff stat, review comments by file, merged state", async () => {
  const a = await call(client, "github", { action: "pull_request", query: "octo-org/widget#8" });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.type, "pull_request");
  assert.equal(a.fm.state, "merged");
  assert.equal(a.fm.review_comments, 2);
  const body = a.body.join("\n");
  assert.match(body, /## Diff stat\n\n1 files changed, \+10 \/ -3 lines, 2 commits/);
  assert.match(
    body,
    /### src\/widget\.py\n\n#### rc_501 — @carol \(CONTRIBUTOR\), 2026-10-03, L11/,
  );
  assert.match(body, /```diff\n[^]*self\.cool\(\)/);
  assert.match(body, /#### rc_502 .*\(reply to rc_501\)/);
  assert.match(body, /### ic_9100/);
  assert.match(body, /Branches: octo-org:cool → octo-org:main/);
});

Deno.test("github file: numbered lines at any ref, #L anchors, binary refused, 404 explained", async () => {
  const a = await call(client, "github", {
    action: "file",
    query: "octo-org/widget/src/widget.py",
  });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.api, "GitHub (raw)");
  assert.equal(a.fm.total_lines, 16);
  assert.equal(a.fm.source, "https://github.com/octo-org/widget/blob/HEAD/src/widget.py");
  assert.ok(a.body.some((l) => /^\s*4\s+class Widget:$/.test(l)), a.body.join("\n"));
  const v1 = await call(client, "github", {
    action: "file",
    query: "octo-org/widget/src/widget.py",
    ref: "v1.0",
  });
  assert.ok(v1.body.some((l) => /^1\s+print\('v1'\)$/.test(l)), v1.body.join("\n"));
  const lines = await call(client, "github", {
    action: "file",
    query: "https://github.com/octo-org/widget/blob/main/src/widget.py#L14-L16",
  });
  assert.equal(lines.isError, false, lines.text);
  assert.equal(lines.fm.lines, "14-16 of 16");
  assert.ok(lines.body.some((l) => /^14\s+def make\(name\):$/.test(l)));
  assert.ok(!lines.body.some((l) => /class Widget/.test(l)));
  const binary = await call(client, "github", {
    action: "file",
    query: "octo-org/widget/logo.png",
  });
  assert.equal(binary.isError, true);
  assert.match(binary.text, /binary file/);
  const missing = await call(client, "github", {
    action: "file",
    query: "octo-org/widget/nope.py",
  });
  assert.equal(missing.isError, true);
  assert.match(
    missing.text,
    /nope\.py at HEAD in octo-org\/widget does not exist, or it is private/,
  );
  const badPath = await call(client, "github", { action: "file", query: "octo-org/widget/a/../b" });
  assert.equal(badPath.isError, true);
  assert.match(badPath.text, /accepted forms/);
  assert.doesNotMatch(badPath.text, /unexpectedly/);
});

Deno.test("github tree: directories first; a file is told to use action=file", async () => {
  const a = await call(client, "github", { action: "tree", query: "octo-org/widget" });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.entries, 4);
  const items = a.body.filter((l) => l.startsWith("- "));
  assert.deepEqual(items, ["- docs/", "- src/", "- README.md (2.0 KB)", "- setup.py (512 B)"]);
  const src = await call(client, "github", {
    action: "tree",
    query: "octo-org/widget/src",
    ref: "main",
  });
  assert.equal(src.isError, false, src.text);
  assert.ok(src.body.includes("- widget.py (300 B)"));
  const file = await call(client, "github", { action: "tree", query: "octo-org/widget/setup.py" });
  assert.equal(file.isError, true);
  assert.match(file.text, /is a file, not a directory; read it with action=file/);
});

Deno.test("github issue_templates: forms, Markdown templates, contact links", async () => {
  const a = await call(client, "github", { action: "issue_templates", query: "octo-org/widget" });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.source, "https://github.com/octo-org/widget/issues/new/choose");
  assert.equal(a.fm.forms, 1);
  assert.equal(a.fm.markdown_templates, 1);
  assert.equal(a.fm.contact_links, 1);
  assert.equal(a.fm.blank_issues, false);
  const body = a.body.join("\n");
  assert.match(body, /### Bug report \(bug_report\.yml\)/);
  assert.match(body, /Title prefix: "\[Bug\]: " · Labels: bug, triage · Assignees: otto/);
  assert.match(body, /- What happened\? \(textarea, required\)/);
  assert.match(body, /### Feature request \(feature\.md\)/);
  assert.match(body, /Title prefix: "\[Feature\] " · Labels: enhancement/);
  assert.match(body, /- Questions — https:\/\/forum\.example\.org\/widget — Ask questions/);
  const none = await call(client, "github", { action: "issue_templates", query: "octo-org/plain" });
  assert.equal(none.isError, false, none.text);
  assert.match(String(none.fm.note), /no custom issue submission flow/);
  const missing = await call(client, "github", {
    action: "issue_templates",
    query: "octo-org/missing",
  });
  assert.equal(missing.isError, true);
});

// ---------------------------------------------------------------------------
// Interception by the page tools

Deno.test("github urls in web_fetch_incisive: issue comments are sections (section= and search=)", async () => {
  const url = "https://github.com/octo-org/widget/issues/7";
  const s = await call(client, "web_fetch_incisive", { url, section: "ic_9002" });
  assert.equal(s.isError, false, s.text);
  assert.match(s.body.join("\n"), /flux capacitor overheats/);
  assert.doesNotMatch(s.body.join("\n"), /traceback/);
  const q = await call(client, "web_fetch_incisive", { url, search: "capacitor" });
  assert.equal(q.isError, false, q.text);
  assert.match(q.body.join("\n"), /ic_9002/);
  const outline = await call(client, "web_fetch_sections", { url });
  assert.equal(outline.isError, false, outline.text);
  assert.match(outline.body.join("\n"), /ic_9001/);
});

Deno.test("github urls in web_fetch_incisive: #L anchors select lines of the cached file", async () => {
  const base = "https://github.com/octo-org/widget/blob/main/src/widget.py";
  const a = await call(client, "web_fetch_incisive", { url: `${base}#L7-L8` });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.lines, "7-8 of 16");
  const numbered = a.body.filter((l) => /^\s*\d+\s/.test(l));
  assert.equal(numbered.length, 2, a.body.join("\n"));
  assert.match(numbered[0], /^7\s+def __init__/);
  const one = await call(client, "web_fetch_incisive", { url: `${base}#L15` });
  assert.equal(one.fm.lines, "15-15 of 16");
  assert.equal(one.fm.cached, true, "the file is read once");
  const past = await call(client, "web_fetch_incisive", { url: `${base}#L10-L99` });
  assert.ok(list(past.fm.warning).some((w) => /ends at line 16/.test(w)));
  const beyond = await call(client, "web_fetch_incisive", { url: `${base}#L40-L50` });
  assert.equal(beyond.isError, true);
  assert.match(beyond.text, /has only 16 lines/);
  const reversed = await call(client, "web_fetch_incisive", { url: `${base}#L9-L5` });
  assert.equal(reversed.isError, true);
  assert.match(reversed.text, /start must not exceed the end/);
  const raw = await call(client, "web_fetch_incisive", {
    url: "https://raw.githubusercontent.com/octo-org/widget/main/src/widget.py#L1",
  });
  assert.equal(raw.isError, false, raw.text);
  assert.equal(raw.fm.lines, "1-1 of 16");
  const binary = await call(client, "web_fetch_incisive", {
    url: "https://github.com/octo-org/widget/blob/HEAD/logo.png",
  });
  assert.equal(binary.isError, true);
  assert.match(binary.text, /binary file/);
});

Deno.test("github urls in web_fetch_incisive: account, commit, compare, release, wiki, refusals", async () => {
  const org = await call(client, "web_fetch_incisive", { url: "https://github.com/octo-org" });
  assert.equal(org.isError, false, org.text);
  assert.equal(org.fm.type, "organization");
  assert.match(org.body.join("\n"), /\*\*widget\*\* \| Python \| 1234 stars/);
  const commit = await call(client, "web_fetch_incisive", {
    url: "https://github.com/octo-org/widget/commit/abc1234def",
  });
  assert.equal(commit.fm.type, "commit");
  assert.match(commit.body.join("\n"), /13 changes: \+10 \/ -3 across 1 files/);
  assert.match(commit.body.join("\n"), /- ~ src\/widget\.py \(\+10\/-3\)/);
  const cmp = await call(client, "web_fetch_incisive", {
    url: "https://github.com/octo-org/widget/compare/v1.0...main",
  });
  assert.equal(cmp.fm.status, "ahead");
  assert.match(cmp.body.join("\n"), /`3333333333` Cool the flux capacitor/);
  const rel = await call(client, "web_fetch_incisive", {
    url: "https://github.com/octo-org/widget/releases/tag/v1.0",
  });
  assert.equal(rel.fm.type, "release");
  assert.match(rel.body.join("\n"), /widget-1\.0\.tar\.gz \(12\.1 KB, 3,456 downloads\)/);
  const none = await call(client, "web_fetch_incisive", {
    url: "https://github.com/octo-org/plain/releases",
  });
  assert.equal(none.isError, true);
  assert.match(none.text, /has no releases/);
  const wiki = await call(client, "web_fetch_incisive", {
    url: "https://github.com/octo-org/widget/wiki/Setup",
    section: "Linux",
  });
  assert.equal(wiki.isError, false, wiki.text);
  assert.equal(wiki.fm.api, "GitHub (wiki)");
  assert.match(wiki.body.join("\n"), /apt install widget/);
  const noWiki = await call(client, "web_fetch_incisive", {
    url: "https://github.com/octo-org/plain/wiki",
  });
  assert.equal(noWiki.isError, true);
  assert.match(noWiki.text, /has no wiki/);
  for (
    const [url, pattern] of [
      ["https://github.com/octo-org/widget/blame/main/src/widget.py", /blame view.*blob URL/],
      ["https://github.com/octo-org/widget/actions", /Actions pages/],
      ["https://github.com/octo-org/widget/projects/1", /Projects boards/],
    ] as const
  ) {
    const r = await call(client, "web_fetch_incisive", { url });
    assert.equal(r.isError, true, url);
    assert.match(r.text, pattern);
  }
});

// ---------------------------------------------------------------------------
// Real captures

Deno.test({
  name: "github real: cpython Lib/asyncio/base_events.py by blob URL with a line range",
  ignore: !SHARED,
  fn: async () => {
    const url = "https://github.com/python/cpython/blob/v3.12.0/Lib/asyncio/base_events.py#L1-L5";
    const a = await call(client, "web_fetch_incisive", { url });
    assert.equal(a.isError, false, a.text);
    assert.equal(a.fm.lines, "1-5 of 1976");
    assert.ok(
      a.body.some((l) => /^1\s+"""Base implementation of event loop\./.test(l)),
      a.body.join("\n"),
    );
    const blob = "https://github.com/python/cpython/blob/v3.12.0/Lib/asyncio/base_events.py";
    const outline = await call(client, "web_fetch_sections", { url: blob });
    assert.equal(outline.isError, false, outline.text);
    assert.equal(outline.fm.api, "GitHub (raw)");
    assert.ok(outline.body.some((l) => /class BaseEventLoop \(lines 387-1976\)/.test(l)));
    const method = await call(client, "web_fetch_incisive", {
      url: blob,
      section: "BaseEventLoop.run_until_complete",
    });
    assert.equal(method.isError, false, method.text);
    assert.ok(
      method.body.some((l) => /^628\s+def run_until_complete\(self, future\):/.test(l.trim())),
    );
    assert.equal(method.fm.cached, true, "the file was read once for all three views");
    const whole = await call(client, "github", {
      action: "file",
      query: "python/cpython/Lib/asyncio/base_events.py",
      ref: "v3.12.0",
    });
    assert.equal(whole.isError, false, whole.text);
    assert.equal(whole.fm.truncated, true);
    assert.ok(list(whole.fm.hint).some((h) => /#L100-L200/.test(h)), String(whole.fm.hint));
    const tooBig = await call(client, "github", {
      action: "file",
      query: "python/cpython/Lib/asyncio/base_events.py#L1-L1900",
      ref: "v3.12.0",
    });
    assert.equal(tooBig.isError, true);
    assert.match(tooBig.text, /ask for a narrower range/);
  },
});

Deno.test({
  name: "github real: python/cpython#100000 and pull request #1",
  ignore: !SHARED,
  fn: async () => {
    const i = await call(client, "web_fetch_incisive", {
      url: "https://github.com/python/cpython/issues/100000",
    });
    assert.equal(i.isError, false, i.text);
    assert.equal(i.fm.type, "issue");
    assert.equal(i.fm.state, "closed");
    assert.match(i.body.join("\n"), /Polish and cleanup watchers code|ic_1337000001/);
    const p = await call(client, "github", {
      action: "pull_request",
      query: "python/cpython#1",
      limit: 100,
    });
    assert.equal(p.isError, false, p.text);
    assert.equal(p.fm.state, "merged");
    assert.match(p.body.join("\n"), /1 files changed, \+\d+ \/ -\d+ lines, \d+ commits/);
  },
});

Deno.test({
  name: "github real: PyGithub repository, releases, gist, search",
  ignore: !SHARED,
  fn: async () => {
    const r = await call(client, "github", { action: "repo", query: "PyGithub/PyGithub" });
    assert.equal(r.isError, false, r.text);
    assert.equal(r.fm.license, "LGPL-3.0");
    assert.ok(r.body.includes("## README"));
    const rel = await call(client, "web_fetch_incisive", {
      url: "https://github.com/PyGithub/PyGithub/releases",
    });
    assert.equal(rel.fm.releases, 10);
    assert.match(rel.body.join("\n"), /`v1\.55`/);
    const gist = await call(client, "web_fetch_incisive", {
      url: "https://gist.github.com/jacquev6/6296732",
    });
    assert.equal(gist.isError, false, gist.text);
    assert.match(gist.body.join("\n"), /## GithubAPI\.lua/);
    const s = await call(client, "github", {
      action: "search_issues",
      query: "repo:saltstack/salt-api type:Issues",
    });
    assert.equal(s.isError, false, s.text);
    assert.equal(s.fm.total_results, 6);
  },
});

Deno.test({
  name: "github real captures need PARKOUR_SHARED_DIR",
  ignore: SHARED,
  fn: () => {
    console.log(`skipped real-capture tests: ${NEEDS_SHARED}`);
  },
});

Deno.test({
  name: "github: shutdown",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await client.close();
    await clientJson.close();
  },
});

Deno.test("github urls over the HTTP API: served by the github source; a binary file is 415", async () => {
  const server = await HttpServerProcess.start(undefined, [], {
    ...replay.env,
    HOME: "/nonexistent",
  }, replay.flags);
  try {
    const api = (url: string) => {
      const u = new URL("/api", server.url);
      u.searchParams.set("url", url);
      return fetch(u);
    };
    const thread = await api("https://github.com/octo-org/widget/issues/7");
    const text = await thread.text();
    assert.equal(thread.status, 200, text);
    assert.equal(thread.headers.get("x-source"), "github");
    assert.match(text, /### ic_9002 — @alice, 2026-10-02/);
    const binary = await api("https://github.com/octo-org/widget/blob/HEAD/logo.png");
    const body = await binary.json();
    assert.equal(binary.status, 415, JSON.stringify(body));
    assert.match(body.error, /binary file/);
    const blame = await api("https://github.com/octo-org/widget/blame/main/src/widget.py");
    assert.equal(blame.status, 422);
    assert.match((await blame.json()).error, /blame view/);
  } finally {
    await server.stop();
  }
});
