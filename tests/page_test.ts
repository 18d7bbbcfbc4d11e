/**
 * The library API of mod.ts as a JSR user calls it: `fetchPage` and its
 * views, and `createServer().callTool`, on a replayed page
 * (fixtures/http/example/guide.json).
 */
import assert from "node:assert/strict";
import { ROOT_DIR } from "./support/process.ts";

// The network layer reads the replay folder when it is first used.
Deno.env.set("PARKOUR_REPLAY_DIR", `${ROOT_DIR}/fixtures/http`);
const { envelopeReady, fetchPage, parseFences, parseFrontmatter } = await import("../mod.ts");
await envelopeReady();
const { createServer } = await import("../server.ts");

const URL_ = "https://example.org/ferry-guide";

Deno.test("fetchPage: a page's sections, outline and one section", async () => {
  const page = await fetchPage(URL_);
  assert.equal(page.title, "Harbour ferry guide");
  assert.equal(page.source, "web");
  assert.equal(page.kind, "html");
  assert.ok(page.tokens > 1000, `tokens ${page.tokens}`);
  const titles = page.sections().map((s) => s.title);
  assert.deepEqual(titles, [
    "Harbour ferry guide",
    "Overview",
    "Fares",
    "Adult fares",
    "Child fares",
    "Timetables",
    "Weekday departures",
    "Weekend departures",
    "Accessibility",
    "Lost property",
  ]);
  const child = page.sections().find((s) => s.title === "Child fares")!;
  assert.equal(page.sections()[child.parent].title, "Fares");
  assert.equal(child.level, 3);
  assert.match(page.outline(), /^- Harbour ferry guide/);
  assert.match(page.outline(), /\n {4}- Child fares \(#child-fares\)/);

  const fares = page.section("Child fares")!;
  assert.match(fares, /child single for ages five to fifteen costs 3\.20/);
  assert.doesNotMatch(fares, /Adult fares|6\.40/);
  // A section by address, and with its subsections.
  assert.equal(page.section("child-fares"), fares);
  const tree = page.section("Fares", { subsections: true })!;
  assert.match(tree, /6\.40/);
  assert.match(tree, /3\.20/);
  assert.doesNotMatch(tree, /06:15/);
  assert.equal(page.section("No such heading at all"), undefined);
});

Deno.test("fetchPage: keyword search and question answering within a budget", async () => {
  const page = await fetchPage(URL_);
  const hits = page.search('"hearing loop"');
  assert.ok(hits.length >= 1);
  assert.match(hits[0].text, /hearing loop/);
  assert.deepEqual(hits[0].headings, ["Harbour ferry guide", "Accessibility"]);
  assert.equal(page.search("zeppelin").length, 0);

  const answer = page.answer("what time does the first weekday boat leave?", 150);
  assert.equal(answer.extracted, true);
  assert.match(answer.text, /06:15/);
  assert.ok(answer.returnedTokens <= 150, `returned ${answer.returnedTokens}`);
  assert.ok(answer.originalTokens > answer.returnedTokens);
  assert.notEqual(answer.confidence, null);
});

Deno.test("fetchPage: a bad URL is refused before any fetch, with advice", async () => {
  await assert.rejects(() => fetchPage("ftp://example.org/x"), /http/);
  await assert.rejects(() => fetchPage("http://127.0.0.1/admin"), /private|loopback|address/i);
});

Deno.test("createServer().callTool: the tool's own answer, and errors as results", async () => {
  const server = createServer();
  const result = await server.callTool("web_fetch_incisive", {
    url: URL_,
    section: ["Weekend departures"],
  });
  assert.equal(result.isError, undefined);
  const text = result.content[0].text;
  const fm = parseFrontmatter(text)!;
  assert.equal(fm.source, URL_);
  assert.equal(fm.sections_returned, 1);
  const body = parseFences(text, String(fm.fence)).flatMap((f) => f.lines).join("\n");
  assert.match(body, /boats run hourly until 21:00/);
  assert.doesNotMatch(body, /06:15/);

  const unknown = await server.callTool("no_such_tool", {});
  assert.equal(unknown.isError, true);
  assert.match(unknown.content[0].text, /unknown tool 'no_such_tool'.*web_fetch_sections/);

  const invalid = await server.callTool("web_fetch_incisive", { url: 42 });
  assert.equal(invalid.isError, true);
  assert.match(invalid.content[0].text, /invalid arguments for web_fetch_incisive: url/);
  await server.close();
});
