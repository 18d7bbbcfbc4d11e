/**
 * Code outlines: definitions per language on the sample files in
 * `fixtures/code/` (names, kinds, line ranges, first docstring line), the
 * source file Document (headings, own lines, line selections, fallback to
 * line chunks), hostile input, and `section=` by name end to end — through
 * the CLI, and through the real server over MCP reading files from an HTTP
 * server on 127.0.0.1 (MCP_ALLOW_PRIVATE_IPS=1). The real capture of
 * CPython's `base_events.py` needs PARKOUR_SHARED_DIR (skipped visibly
 * without).
 */
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/client";
import { codeDocument } from "../../../lib/content/code/files.ts";
import { GRAMMAR_PACKAGE, languageOf, OWN_GRAMMARS } from "../../../lib/content/code/languages.ts";
import {
  type Definition,
  flatten,
  MAX_OUTLINE_CHARS,
  outline,
  RUNTIME_PACKAGE,
} from "../../../lib/content/code/outline.ts";
import { findSections } from "../../../lib/content/document/views.ts";
import { MAIN, ROOT_DIR, runCli } from "../../support/process.ts";
import { gunzipFile, sharedDir } from "../../support/shared.ts";
import { callTool, connectServer } from "../../support/mcp_client.ts";

const DIR = `${ROOT_DIR}/fixtures/code`;
const SHARED = sharedDir();
const REAL = SHARED ? `${SHARED}/fixtures/real/github_blob_cpython_base_events.py.gz` : "";
if (!SHARED) {
  console.error("code outline tests on the real CPython capture SKIPPED: set PARKOUR_SHARED_DIR");
}

/** One line per definition: kind, qualified name, range, docstring line. */
function describe(defs: readonly Definition[]): string[] {
  return flatten(defs).map((d) =>
    `${"  ".repeat(d.depth)}${d.kind} ${d.qualified} ${d.startLine}-${d.endLine}${
      d.doc ? ` | ${d.doc}` : ""
    }`
  );
}

const EXPECTED: Record<string, string[]> = {
  "Sample.java": [
    "class UserRepository 5-26 | A repository of users.",
    "  method UserRepository.UserRepository 11-14 | Makes an empty repository.",
    "  method UserRepository.find 16-22 | Finds a user by name.",
    "  enum UserRepository.Kind 24-25 | Kinds of user.",
    "interface Store 28-31 | Something that stores.",
    "  method Store.save 30-30",
  ],
  "sample.py": [
    "function top_level 5-7 | Return x doubled.",
    "class Loop 10-27 | Runs callbacks in order.",
    "  method Loop.__init__ 13-14",
    "  method Loop.util 16-18",
    "  method Loop.run_forever 20-27 | Run until stop() is called.",
    "    function Loop.run_forever.inner 25-26",
    "function decorated 30-32",
  ],
  "sample.cpp": [
    "class Shape 5-10 | A shape.",
    "  method Shape.area 8-9 | The area.",
    "struct Named 12-15 | A named thing.",
    "function make 19-22 | Makes a shape.",
    "function twice 24-27",
  ],
  "sample.go": [
    "struct Server 6-9 | Server holds the state.",
    "  method Server.Start 16-20 | Start starts the server.",
    "interface Handler 11-14 | Handler handles requests.",
    "function New 22-25 | New makes a server.",
  ],
  "sample.kt": [
    "interface Shape 5-8 | A shape with an area.",
    "  method Shape.area 7-7",
    "class Circle 10-18 | A circle.",
    "  method Circle.area 12-13 | The area of the circle.",
    "  class Circle.Companion 15-17",
    "    method Circle.Companion.unit 16-16",
    "enum Colour 20-21 | Colours shapes come in.",
    "class Registry 23-29",
    "  method Registry.add 26-28",
    "type Shapes 31-31",
    "function total 33-34 | Sums the areas.",
  ],
  "sample.scala": [
    "trait Shape 5-8 | A shape with an area.",
    "  method Shape.area 7-7",
    "class Circle 10-14 | A circle.",
    "  method Circle.area 12-13 | The area of the circle.",
    "class Registry 16-22 | Shapes by name.",
    "  method Registry.add 20-21",
    "class Square 24-26",
    "  method Square.area 25-25",
    "function total 28-29 | Sums the areas.",
  ],
  "Sample.cs": [
    "class Account 5-23 | A bank account.",
    "  method Account.Account 12-16 | Opens an account.",
    "  method Account.Deposit 18-22 | Deposits money.",
    "interface IBalance 25-29 | Something with a balance.",
    "struct Money 31-34",
    "enum Currency 36-36",
  ],
  "sample.php": [
    "class User 5-23 | A user.",
    "  method User.__construct 12-16 | Makes a user.",
    "  method User.name 18-22 | The name.",
    "interface Greetable 25-29 | Can be greeted.",
    "  method Greetable.greet 28-28",
    "trait Loggable 31-34",
    "  method Loggable.log 33-33",
    "function format_name 36-40 | Formats a name.",
  ],
  "sample.ts": [
    "interface Shape 1-4 | A shape.",
    "enum Color 6-9",
    "type Id 11-11",
    "class Circle 13-21 | A circle.",
    "  method Circle.constructor 15-15",
    "  method Circle.area 17-20 | The area.",
    "function unit 23-25",
  ],
  "sample.js": [
    "class Greeter 3-15 | Greets people.",
    "  method Greeter.constructor 7-9",
    "  method Greeter.greet 11-14 | Says hello.",
    "function add 17-20 | Adds two numbers.",
    "function double 22-22",
  ],
  "sample.rb": [
    "module Geometry 3-20 | Utilities for geometry.",
    "  class Geometry.Point 5-19 | A point.",
    "    method Geometry.Point.initialize 9-13 | Makes a point.",
    "    method Geometry.Point.origin 15-18 | The origin.",
    "function hello 22-25 | Says hi.",
  ],
  "sample.c": [
    "struct point 3-7 | A point.",
    "function add 9-14 | Adds two points.",
    "function main 16-22 | Entry point.",
  ],
  "sample.rs": [
    "struct Point 4-9 | A point in the plane.",
    "trait Area 11-14 | Things with an area.",
    "  method Area.area 13-13",
    "impl Point 16-21",
    "  method Point.new 17-20 | Makes a point.",
    "impl fmt::Display for Point 23-27",
    "  method Point.fmt 24-26",
    "enum Shape 29-33 | The kinds of shape.",
    "function parse 35-38 | Parses a point.",
  ],
  "sample.tsx": [
    "interface ButtonProps 3-6 | Props of the button.",
    "function Button 8-11 | A button.",
    "function Panel 13-15",
  ],
};

for (const [file, expected] of Object.entries(EXPECTED)) {
  Deno.test(`outline: ${file} (${languageOf(file)!.id})`, async () => {
    const text = await Deno.readTextFile(`${DIR}/${file}`);
    assert.deepEqual(describe(await outline(text, languageOf(file)!)), expected);
  });
}

Deno.test("outline: every listed language has a sample", () => {
  const ids = new Set(Object.keys(EXPECTED).map((f) => languageOf(f)!.id));
  for (
    const id of [
      "python",
      "javascript",
      "typescript",
      "tsx",
      "go",
      "rust",
      "java",
      "c",
      "cpp",
      "csharp",
      "ruby",
      "php",
      "kotlin",
      "scala",
    ]
  ) assert.ok(ids.has(id as never), id);
});

Deno.test("outline: the package versions loaded at run time are those of deno.json", async () => {
  const imports = JSON.parse(await Deno.readTextFile(`${ROOT_DIR}/deno.json`)).imports;
  assert.equal(imports["web-tree-sitter"], `npm:${RUNTIME_PACKAGE}`);
  assert.equal(imports["@vscode/tree-sitter-wasm"], `npm:${GRAMMAR_PACKAGE}`);
  for (const specifier of Object.values(OWN_GRAMMARS)) {
    const pkg = /^npm:((?:@[^/]+\/)?[^@/]+@[^/]+)\//.exec(specifier)![1];
    const name = pkg.slice(0, pkg.lastIndexOf("@"));
    assert.equal(imports[name], `npm:${pkg}`, specifier);
  }
});

Deno.test("codeDocument: headings per definition, own lines only, numbered; names select them", async () => {
  const text = await Deno.readTextFile(`${DIR}/sample.py`);
  const doc = await codeDocument({ url: "https://example.com/sample.py", path: "sample.py", text });
  assert.deepEqual(doc.sections.map((s) => `${s.level} ${s.title}`), [
    "2 def top_level (lines 5-7) — Return x doubled.",
    "2 class Loop (lines 10-27) — Runs callbacks in order.",
    "3 def __init__ (lines 13-14)",
    "3 def util (lines 16-18)",
    "3 async def run_forever (lines 20-27) — Run until stop() is called.",
    "4 def inner (lines 25-26)",
    "2 def decorated (lines 30-32)",
  ]);
  assert.ok(doc.markdown.startsWith('```\n1  """A small event loop'), "imports come first");
  const loop = doc.sectionText(1);
  assert.match(loop, /^10 {2}class Loop:$/m);
  assert.doesNotMatch(loop, /__init__/, "a class's section holds its own lines, not its methods'");
  const run = doc.sectionText(4);
  assert.match(run, /^20 {6}async def run_forever/m);
  assert.doesNotMatch(run, /def inner/);
  const inner = doc.sectionText(5);
  assert.match(inner, /Line 27 comes after the end of `inner`, inside `run_forever`:/);
  assert.match(inner, /^27 {10}return inner\(\)$/m);
  const found = findSections(doc, [
    "run_forever",
    "Loop.run_forever",
    "async def run_forever",
    "Loop",
    "inner",
    "Loop.run_forever.inner",
    "nope_nothing",
  ]);
  assert.deepEqual(found.map((f) => f.index), [4, 4, 4, 1, 5, 5, undefined]);
  assert.equal(doc.sections[4].id, "Loop.run_forever", "outlines show the qualified address");
  const facts = Object.fromEntries(doc.facts.map((f) => [f.key, String(f.value)]));
  assert.equal(facts.language, "python");
  assert.equal(facts.definitions, "7");
  // Slices start at definition boundaries.
  const many = Array.from(
    { length: 30 },
    (_, i) =>
      `def f${i}(x):\n    """Function ${i}."""\n${
        "    x = x + 1  # step\n".repeat(40)
      }    return x\n`,
  ).join("\n\n");
  const big = await codeDocument({ url: "https://example.com/m.py", path: "m.py", text: many });
  assert.ok(big.slices.length >= 10);
  for (const slice of big.slices.slice(1)) {
    assert.match(big.sliceText(slice.index), /^## def f\d+ \(lines \d+-\d+\) — Function \d+\./);
  }
});

Deno.test("codeDocument: C++ qualified names, Rust impls, Go receivers are addressable", async () => {
  const cases: [string, string, string][] = [
    ["sample.rs", "Point.new", "fn new"],
    ["sample.rs", "new", "fn new"],
    ["sample.rs", "fmt", "fn fmt"],
    ["sample.rs", "fmt::Display for Point", "impl fmt::Display for Point"],
    ["sample.go", "Server.Start", "func Start"],
    ["sample.go", "Start", "func Start"],
    ["sample.cpp", "Shape.area", "method area"],
    ["sample.cpp", "twice", "function twice"],
    ["sample.rb", "Geometry.Point.origin", "def self.origin"],
    ["Sample.cs", "Account.Deposit", "method Deposit"],
    ["sample.php", "User.__construct", "function __construct"],
  ];
  for (const [file, name, title] of cases) {
    const text = await Deno.readTextFile(`${DIR}/${file}`);
    const doc = await codeDocument({ url: `https://example.com/${file}`, path: file, text });
    const [lookup] = findSections(doc, [name]);
    assert.ok(lookup.index !== undefined, `${file}: ${name}`);
    assert.ok(doc.sections[lookup.index].title.startsWith(`${title} (`), `${file}: ${name}`);
  }
});

Deno.test("codeDocument: a line selection gives those lines only, numbered, and says so", async () => {
  const text = await Deno.readTextFile(`${DIR}/sample.py`);
  const doc = await codeDocument({
    url: "https://example.com/sample.py#L13-L14",
    path: "sample.py",
    text,
    lines: { from: 13, to: 14 },
  });
  assert.equal(doc.sections.length, 0);
  assert.equal(doc.markdown, "```\n13      def __init__(self):\n14          self._ready = []\n```");
  assert.match(String(doc.facts.find((f) => f.key === "note")?.value), /lines 13-14 of 32/);
});

Deno.test("codeDocument: other languages fall back to 100-line chunks with a note", async () => {
  const text = Array.from({ length: 250 }, (_, i) => `local x${i} = ${i}`).join("\n");
  const doc = await codeDocument({ url: "https://example.com/a.lua", path: "a.lua", text });
  assert.deepEqual(doc.sections.map((s) => s.title), [
    "lines 1-100",
    "lines 101-200",
    "lines 201-250",
  ]);
  assert.match(
    String(doc.facts.find((f) => f.key === "note")?.value),
    /no outline for this file type/,
  );
  assert.equal(findSections(doc, ["lines 101-200"])[0].index, 1);
  assert.match(doc.sectionText(2), /^250 {2}local x249 = 249$/m);
});

Deno.test("codeDocument: a fence longer than any backtick run in the code", async () => {
  const text = 'def f():\n    """Example:\n\n    ````py\n    x\n    ````\n    """\n';
  const doc = await codeDocument({ url: "https://example.com/f.py", path: "f.py", text });
  assert.ok(doc.markdown.includes("`````\n1  def f():"), doc.markdown);
  assert.equal(doc.sections.length, 1);
});

Deno.test("codeDocument: hostile input never crashes", async () => {
  const cases: [string, string][] = [
    ["huge_line.py", `x = '${"a".repeat(1_000_000)}'\ndef after():\n    pass\n`],
    [
      "binary.c",
      Array.from({ length: 20_000 }, (_, i) => String.fromCharCode((i * 7919) % 256)).join(""),
    ],
    [
      "deep.py",
      Array.from({ length: 400 }, (_, i) => `${" ".repeat(i)}def f${i}():`).join("\n") +
      `\n${" ".repeat(400)}pass\n`,
    ],
    ["deep.js", "function f(){".repeat(3_000) + "}".repeat(3_000)],
    ["brackets.ts", "[".repeat(100_000)],
    ["names.rs", `fn ${"n".repeat(5_000)}() {}\n`],
    ["huge.go", "x".repeat(MAX_OUTLINE_CHARS + 1)],
    ["empty.py", ""],
  ];
  for (const [path, text] of cases) {
    const doc = await codeDocument({ url: `https://example.com/${path}`, path, text });
    assert.ok(doc.markdown.length > 0 || text === "", path);
    for (const s of doc.sections) assert.ok(s.title.length < 400, `${path}: a short heading`);
    if (path === "huge_line.py") assert.equal(findSections(doc, ["after"])[0].index, 0);
    if (path === "deep.py") {
      // Headings stop at ######; deeper definitions stay in their parent's text.
      assert.equal(doc.sections.length, 5);
      assert.ok(doc.markdown.includes("def f399():"));
    }
    if (path === "huge.go") {
      assert.match(String(doc.facts.find((f) => f.key === "note")?.value), /no outline .*larger/);
    }
  }
});

Deno.test({
  name: "outline: the real CPython base_events.py",
  ignore: !SHARED,
  async fn() {
    const text = new TextDecoder().decode(await gunzipFile(REAL));
    const defs = flatten(await outline(text, languageOf("base_events.py")!));
    const by = (q: string) => defs.find((d) => d.qualified === q);
    assert.deepEqual(
      [by("BaseEventLoop")?.startLine, by("BaseEventLoop")?.kind],
      [387, "class"],
    );
    const run = by("BaseEventLoop.run_forever")!;
    assert.deepEqual([run.kind, run.startLine, run.endLine, run.doc], [
      "method",
      604,
      626,
      "Run until stop() is called.",
    ]);
    assert.equal(by("BaseEventLoop._run_once")?.startLine, 1874);
    assert.equal(by("Server")?.startLine, 274);
    // Slices start at definition headings, or continue a definition too long for one, or
    // start at its code when its heading closed the slice before.
    const doc = await codeDocument({ url: "https://example.com/b.py", path: "b.py", text });
    const starts = doc.slices.filter((s) => s.index > 0 && !s.part);
    assert.ok(starts.length > 20);
    for (const s of starts) {
      if (/^#{2,6} /.test(doc.markdown.slice(s.start, s.start + 8))) continue;
      assert.match(doc.sliceText(s.index - 1), /\n#{2,6} [^\n]*$/, doc.sliceText(s.index));
    }
  },
});

// --- End to end ---------------------------------------------------------------

Deno.test("CLI: fetch a local .py file with --section by bare and qualified name", async () => {
  const read = [`--allow-read=${DIR}`];
  const bare = await runCli(
    ["fetch", `${DIR}/sample.py`, "--section", "run_forever"],
    {},
    MAIN,
    read,
  );
  assert.equal(bare.code, 0, bare.stderr);
  assert.match(bare.stdout, /### async def run_forever \(lines 20-27\)/);
  assert.match(bare.stdout, /20 {6}async def run_forever\(self\):/);
  assert.doesNotMatch(bare.stdout, /def inner/);
  const expanded = await runCli(
    ["fetch", `${DIR}/sample.py`, "--section", "Loop.run_forever", "--auto-expand"],
    {},
    MAIN,
    read,
  );
  assert.match(expanded.stdout, /25 {10}def inner\(\):/);
  const outlined = await runCli(["sections", `${DIR}/sample.rs`], {}, MAIN, read);
  assert.match(outlined.stdout, /- impl Point \(lines 16-21\)/);
  assert.ok(outlined.stdout.includes("  - fn new (lines 17-20) — Makes a point. (#Point.new)"));
});

const SAMPLE_PY = await Deno.readTextFile(`${DIR}/sample.py`);
const SAMPLE_RS = await Deno.readTextFile(`${DIR}/sample.rs`);
const REAL_TEXT = SHARED ? new TextDecoder().decode(await gunzipFile(REAL)) : "";
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
  const type = (t: string) => ({ headers: { "content-type": t } });
  switch (new URL(req.url).pathname) {
    case "/src/sample.py":
      return new Response(SAMPLE_PY, type("text/plain; charset=utf-8"));
    case "/src/sample.rs":
      return new Response(SAMPLE_RS, type("application/octet-stream"));
    case "/src/base_events.py":
      return new Response(REAL_TEXT, type("text/plain; charset=utf-8"));
    case "/src/app.js":
      return new Response("export function main() {\n  return 1;\n}\n", type("text/javascript"));
    case "/src/script.lua":
      return new Response("local x = 1\nreturn x\n", type("text/plain"));
    case "/src/blob.py":
      return new Response(
        new Uint8Array([0, 1, 2, 3, 0, 0, 9, 0]),
        type("application/octet-stream"),
      );
    default:
      return new Response("not here", { status: 404 });
  }
});
const BASE = `http://127.0.0.1:${server.addr.port}/src`;

const connect = (): Promise<Client> =>
  connectServer({ env: { MCP_ALLOW_PRIVATE_IPS: "1" }, replay: false, name: "code-outline" });
const call = callTool;

const client = await connect();

Deno.test("MCP: web_fetch_sections lists definitions with line ranges and docstring lines", async () => {
  const outlined = await call(client, "web_fetch_sections", { url: `${BASE}/sample.py` });
  assert.equal(outlined.isError, false, outlined.text);
  assert.equal(outlined.fm.language, "python");
  assert.equal(outlined.fm.definitions, 7);
  assert.ok(
    outlined.body.includes(
      "  - async def run_forever (lines 20-27) — Run until stop() is called. (#Loop.run_forever)",
    ),
    outlined.body.join("\n"),
  );
  const rust = await call(client, "web_fetch_sections", { url: `${BASE}/sample.rs` });
  assert.equal(rust.fm.language, "rust", "octet-stream with a code extension is read as code");
  assert.ok(rust.body.includes("- trait Area (lines 11-14) — Things with an area. (#Area)"));
  const js = await call(client, "web_fetch_sections", { url: `${BASE}/app.js` });
  assert.equal(js.isError, false, js.text);
  assert.ok(js.body.includes("- function main (lines 1-3) (#main)"), js.body.join("\n"));
});

Deno.test("MCP: web_fetch_incisive section= selects a definition by name", async () => {
  const bare = await call(client, "web_fetch_incisive", {
    url: `${BASE}/sample.py`,
    section: "run_forever",
  });
  assert.equal(bare.isError, false, bare.text);
  assert.equal(bare.fm.sections_returned, 1);
  assert.ok(
    bare.body.includes("### async def run_forever (lines 20-27) — Run until stop() is called."),
  );
  assert.ok(bare.body.includes("20      async def run_forever(self):"));
  assert.ok(!bare.body.some((l) => l.includes("def inner")), "nested definitions are separate");
  const qualified = await call(client, "web_fetch_incisive", {
    url: `${BASE}/sample.py`,
    section: ["Loop.__init__", "decorated"],
  });
  assert.equal(qualified.fm.sections_returned, 2);
  assert.ok(qualified.body.includes("14          self._ready = []"));
  assert.ok(qualified.body.includes("30  @decorator"));
  const found = await call(client, "web_fetch_incisive", {
    url: `${BASE}/sample.py`,
    search: "stop() is called",
  });
  assert.ok(
    found.body.includes("### async def run_forever (lines 20-27) — Run until stop() is called."),
    found.body.join("\n"),
  );
});

Deno.test("MCP: other languages come in line chunks; binary bytes are refused", async () => {
  const lua = await call(client, "web_fetch_sections", { url: `${BASE}/script.lua` });
  assert.equal(lua.isError, false, lua.text);
  assert.match(String(lua.fm.note), /no outline for this file type; sections are 100-line chunks/);
  assert.ok(lua.body.includes("- lines 1-2 (#lines-1-2)"), lua.body.join("\n"));
  const blob = await call(client, "web_fetch_incisive", { url: `${BASE}/blob.py` });
  assert.equal(blob.isError, true);
  assert.match(blob.text, /cannot be read as text/);
});

Deno.test({
  name: "MCP: section=BaseEventLoop.run_forever on the real CPython file",
  ignore: !SHARED,
  async fn() {
    const url = `${BASE}/base_events.py`;
    const outlined = await call(client, "web_fetch_sections", { url });
    assert.equal(outlined.fm.language, "python");
    assert.ok(
      outlined.body.includes("- class BaseEventLoop (lines 387-1976) (#BaseEventLoop)") ||
        outlined.body.some((l) => l.startsWith("- class BaseEventLoop (lines 387-")),
      outlined.body.join("\n"),
    );
    for (const section of ["BaseEventLoop.run_forever", "run_forever"]) {
      const answer = await call(client, "web_fetch_incisive", { url, section });
      assert.ok(
        answer.body.includes("### def run_forever (lines 604-626) — Run until stop() is called."),
        answer.body.slice(0, 5).join("\n"),
      );
      assert.ok(
        answer.body.includes("626              sys.set_asyncgen_hooks(*old_agen_hooks)"),
      );
    }
  },
});

Deno.test({
  name: "code outline: close the client and the file server",
  sanitizeResources: false,
  async fn() {
    await client.close();
    await server.shutdown();
  },
});
