/**
 * The command line: version, help, and one-line usage errors with exit 2.
 */
import assert from "node:assert/strict";
import meta from "../deno.json" with { type: "json" };
import { childEnv, MAIN, replaySetup, ROOT_DIR, runCli, startFlags } from "./support/process.ts";

Deno.test("cli: --version prints the package version", async () => {
  for (const flag of ["--version", "-V"]) {
    const { code, stdout } = await runCli([flag]);
    assert.equal(code, 0);
    assert.equal(stdout.trim(), `parkour-mcp ${meta.version}`);
  }
});

Deno.test("cli: --help lists commands, flags and valid values", async () => {
  const { code, stdout } = await runCli(["--help"]);
  assert.equal(code, 0);
  assert.match(stdout, /serve\s+run the MCP server/);
  assert.match(stdout, /--profile NAME.*\[desktop\|code\]/);
  assert.match(stdout, /--default-output FORMAT.*\[markdown\|json\|toon\|pretty\|compact\|csv\]/);
  assert.match(stdout, /--http/);
  assert.match(stdout, /PARKOUR_HTTP_TOKEN/);
});

Deno.test("cli: bad input is a one-line error naming the valid values, exit 2", async () => {
  const cases: [string[], RegExp][] = [
    [
      ["--bogus"],
      /unknown flag '--bogus' for 'serve'; valid flags: --http, --host, --port, --profile, --default-output/,
    ],
    [["serve", "--profile", "laptop"], /invalid --profile 'laptop'; valid values: desktop, code/],
    [["--profile=laptop"], /invalid --profile 'laptop'; valid values: desktop, code/],
    [
      ["--default-output", "xml"],
      /invalid --default-output 'xml'; valid values: markdown, json, toon, pretty, compact, csv/,
    ],
    [["--profile"], /flag '--profile' needs a value; valid values: desktop, code/],
    [["serve", "--http", "--port", "99999"], /invalid --port '99999'; valid values: 0-65535/],
    [["serve", "--http", "--port", "abc"], /invalid --port 'abc'; valid values: 0-65535/],
    [["serve", "--port", "8000"], /--host and --port apply only with --http/],
    [["frobnicate"], /unknown command 'frobnicate'; valid commands: serve/],
    [["serve", "extra"], /unexpected argument 'extra'/],
    [["--http=yes"], /flag '--http' takes no value/],
  ];
  for (const [args, pattern] of cases) {
    const { code, stdout, stderr } = await runCli(args);
    assert.equal(code, 2, args.join(" "));
    assert.equal(stdout, "", "nothing on stdout");
    const lines = stderr.trim().split("\n");
    assert.equal(lines.length, 1, `one line for ${args.join(" ")}: ${stderr}`);
    assert.match(lines[0], /^parkour: /);
    assert.match(lines[0], pattern);
  }
});

Deno.test("cli: bad environment values are refused the same way", async () => {
  const profile = await runCli([], { PARKOUR_PROFILE: "tablet" });
  assert.equal(profile.code, 2);
  assert.match(
    profile.stderr.trim(),
    /^parkour: invalid PARKOUR_PROFILE 'tablet'; valid values: desktop, code$/,
  );
  const output = await runCli([], { PARKOUR_DEFAULT_OUTPUT: "yaml" });
  assert.equal(output.code, 2);
  assert.match(output.stderr, /valid values: markdown, json, toon, pretty, compact, csv/);
});

// The terminal tool: formats for a person, the outline as data, targets, exit codes.

const GUIDE = `${ROOT_DIR}/fixtures/pages/guide.html`;
const READ_FIXTURES = [`--allow-read=${ROOT_DIR}/fixtures`];
const page = (args: string[], env: Record<string, string> = {}, flags = READ_FIXTURES) =>
  runCli(args, env, MAIN, flags);

/** A page of `n` sections under one title, in a temporary folder. */
async function manySections(n: number): Promise<{ dir: string; file: string }> {
  const dir = await Deno.makeTempDir({ prefix: "parkour-cli-" });
  const body = Array.from(
    { length: n },
    (_, i) => `<h2 id="s${i}">Part ${i}</h2><p>Text ${i}.</p>`,
  );
  const file = `${dir}/many.html`;
  await Deno.writeTextFile(file, `<html><body><h1>Many</h1>${body.join("")}</body></html>`);
  return { dir, file };
}

Deno.test("cli: sections --format json is the list of sections, with tokens and paths", async () => {
  const { code, stdout } = await page(["sections", GUIDE, "--format", "json"]);
  assert.equal(code, 0);
  const parsed = JSON.parse(stdout);
  assert.equal(parsed.error, false);
  assert.equal(parsed.frontmatter.total_sections, 6);
  assert.equal(parsed.content, undefined, "no Markdown string");
  const list = parsed.sections;
  assert.ok(Array.isArray(list), stdout);
  assert.deepEqual(list.map((s: { address: string }) => s.address), [
    "#top",
    "#choosing",
    "#sizes",
    "#fitting",
    "#care",
    "#faq",
  ]);
  const sizes = list[2];
  assert.equal(sizes.title, "Sizes");
  assert.equal(sizes.level, 3);
  assert.deepEqual(sizes.path, ["Widget Field Guide", "Choosing a widget"]);
  assert.equal(sizes.parent, 1);
  assert.ok(sizes.tokens > 10 && sizes.tokens === sizes.subtree_tokens, JSON.stringify(sizes));
  assert.ok(
    list[1].subtree_tokens > list[1].tokens && list[1].subtree_tokens >= sizes.tokens,
    "a subtree holds its children",
  );
});

Deno.test("cli: --slice all shows the whole outline; windows of 100 otherwise", async () => {
  const { dir, file } = await manySections(150);
  try {
    const flags = [`--allow-read=${dir}`];
    const windowed = await page(["sections", file, "--format", "json"], {}, flags);
    assert.equal(windowed.code, 0, windowed.stderr);
    assert.equal(JSON.parse(windowed.stdout).sections.length, 100);
    const all = await page(["sections", file, "--slice", "all", "--format", "json"], {}, flags);
    assert.equal(all.code, 0, all.stderr);
    const list = JSON.parse(all.stdout).sections;
    assert.equal(list.length, 151);
    assert.equal(list.at(-1).address, "#s149");
    const text = await page(["sections", file, "--slice", "all", "--format", "text"], {}, flags);
    assert.match(text.stdout, /└─ Part 149 +#s149/);
    assert.doesNotMatch(text.stdout, /more sections/);
    const bad = await page(["sections", file, "--slice", "most"], {}, flags);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--slice must be a whole number/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cli: --format text has no margins, draws the outline as a tree, ends with next steps", async () => {
  const outline = await page(["sections", GUIDE, "--format", "text"]);
  assert.equal(outline.code, 0);
  assert.doesNotMatch(outline.stdout, /untrusted content|fence:|trust:/);
  assert.match(outline.stdout, /^source: \S+guide\.html$/m);
  const tree = outline.stdout.split("\n").filter((l) =>
    /#(top|choosing|sizes|fitting|care|faq)\b/.test(l)
  );
  assert.equal(tree.length, 6, outline.stdout);
  assert.match(tree[0], /^Widget Field Guide +#top +\d+ +\(\d+\)$/);
  assert.match(tree[2], /^│ {2}└─ Sizes +#sizes +\d+$/);
  assert.match(tree[5], /^└─ Frequently asked +#faq/);
  // The addresses stand in one column.
  assert.equal(new Set(tree.map((l) => l.indexOf("#"))).size, 1, tree.join("\n"));
  assert.match(
    outline.stdout,
    /^next: read a section: .* fetch \S+guide\.html --section '<name or #id>'$/m,
  );
  const section = await page(["fetch", GUIDE, "--section", "care", "--format", "text"]);
  assert.equal(section.code, 0);
  assert.match(section.stdout, /^sections_returned: 1$/m);
  assert.match(section.stdout, /^### Care\n\n- Oil monthly\.$/m);
  // deno-lint-ignore no-control-regex
  assert.doesNotMatch(section.stdout, /\x1b\[/, "no colour into a pipe");
});

Deno.test("cli: a section that does not exist exits 1 with the closest names", async () => {
  for (const format of ["text", "envelope", "json"]) {
    const run = await page(["fetch", GUIDE, "--section", "Sises", "--format", format]);
    assert.equal(run.code, 1, format);
    assert.match(run.stdout, /Sizes/, `${format}: the closest heading is named`);
  }
});

Deno.test("cli: a bare page.html is a missing file, a bare host is read as https", async () => {
  const missing = await runCli(["fetch", "nope.html"], {}, MAIN, [`--allow-read=${ROOT_DIR}`]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /no such file/);
  assert.doesNotMatch(missing.stderr, /reading https:/);
  const replay = replaySetup();
  const host = await runCli(
    ["sections", "example.org/ferry-guide", "--format", "json"],
    replay.env,
    MAIN,
    replay.flags,
  );
  assert.equal(host.code, 0, host.stderr);
  assert.match(host.stderr, /^reading https:\/\/example\.org\/ferry-guide$/m);
  assert.ok(JSON.parse(host.stdout).sections.length > 1);
});

const SCRIPT = ["/usr/bin/script", "/bin/script"].find((p) => {
  try {
    return Deno.statSync(p).isFile;
  } catch {
    return false;
  }
});
if (!SCRIPT) console.log("cli_test: no `script` (util-linux): the terminal tests are ignored");

/** Runs a shell line on a pseudo-terminal; resolves to what the terminal showed. */
async function onTerminal(
  line: string,
  env: Record<string, string>,
  until?: RegExp,
): Promise<string> {
  const child = new Deno.Command(SCRIPT!, {
    args: ["-qec", line, "/dev/null"],
    env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let screen = "";
  const deadline = setTimeout(() => child.kill("SIGKILL"), 30_000);
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      screen += value;
      if (until && until.test(screen)) {
        child.kill("SIGTERM");
        break;
      }
    }
  } finally {
    clearTimeout(deadline);
    await reader.cancel().catch(() => {});
    await child.stdin.close().catch(() => {});
    await child.status;
  }
  return screen.replaceAll("\r", "");
}

const quote = (words: string[]) => words.map((w) => `'${w.replaceAll("'", "'\\''")}'`).join(" ");

Deno.test({
  name: "cli: on a terminal, text is the default, with colour unless NO_COLOR",
  ignore: !SCRIPT,
  fn: async () => {
    const line = quote([Deno.execPath(), ...startFlags(), ...READ_FIXTURES, MAIN]);
    const { NO_COLOR: _, ...colourEnv } = childEnv();
    const coloured = await onTerminal(`${line} sections ${quote([GUIDE])}`, colourEnv);
    // deno-lint-ignore no-control-regex
    assert.match(coloured, /\x1b\[36m#sizes/, "addresses in colour");
    assert.match(coloured, /├─ /);
    const plain = await onTerminal(`${line} sections ${quote([GUIDE])}`, childEnv());
    // deno-lint-ignore no-control-regex
    assert.doesNotMatch(plain, /\x1b\[[0-9;]*m/);
    assert.match(plain, /^Widget Field Guide +#top/m);
  },
});

Deno.test({
  name: "cli: serve on a terminal says on stderr what it is and what to run instead",
  ignore: !SCRIPT,
  fn: async () => {
    const line = quote([Deno.execPath(), ...startFlags(), MAIN, "serve"]);
    const screen = await onTerminal(line, childEnv(), /doctor/);
    assert.match(screen, /an MCP server speaking JSON-RPC on stdin\/stdout/);
    assert.match(screen, /add it to a client: +\S.* install/);
    assert.match(screen, /read a page here: +\S.* sections example\.org/);
  },
});

Deno.test({
  name: "cli: work over a second shows a progress line on a terminal's stderr",
  ignore: !SCRIPT,
  fn: async () => {
    const slow = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async () => {
      await new Promise((r) => setTimeout(r, 1600));
      return new Response("<h1>Slow</h1><p>at last</p>", {
        headers: { "content-type": "text/html" },
      });
    });
    try {
      const url = `http://127.0.0.1:${slow.addr.port}/page`;
      const line = quote([Deno.execPath(), ...startFlags(), MAIN, "sections", url]);
      // stderr goes to the terminal too: script runs the line with its own stderr.
      const screen = await onTerminal(`${line} 2>&1`, childEnv({ MCP_ALLOW_PRIVATE_IPS: "1" }));
      assert.match(
        screen,
        new RegExp(`[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] reading ${url.replaceAll(".", "\\.")} \\(1\\.\\d s\\)`),
      );
      // deno-lint-ignore no-control-regex
      assert.match(screen, /\x1b\[2K/, "the line is cleared");
      assert.match(screen, /^Slow +#slow/m);
    } finally {
      await slow.shutdown();
    }
  },
});

const CHROMIUM = ["/usr/bin/chromium", "/usr/lib/chromium/chromium"].some((p) => {
  try {
    return Deno.statSync(p).isFile;
  } catch {
    return false;
  }
});
if (!CHROMIUM) console.log("cli_test: no Chromium: the fetch:render test is ignored");

Deno.test({
  name: "cli: the fetch:render task renders a page built by a script (--requires-js)",
  ignore: !CHROMIUM,
  fn: async () => {
    const page = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () =>
      new Response(
        `<html><body><div id="app"></div><script>document.getElementById("app").innerHTML = "<h1>Built</h1><h2>By script</h2><p>rendered text</p>";</script></body></html>`,
        { headers: { "content-type": "text/html" } },
      ));
    try {
      const origin = `http://127.0.0.1:${page.addr.port}`;
      const env = childEnv({ MCP_ALLOW_PRIVATE_IPS: "1", PARKOUR_RENDER_ALLOW_ORIGINS: origin });
      const run = async (args: string[]) => {
        const out = await new Deno.Command(Deno.execPath(), {
          args: ["task", "-q", "fetch:render", `${origin}/`, ...args],
          cwd: ROOT_DIR,
          env,
          clearEnv: true,
          stdout: "piped",
          stderr: "piped",
        }).output();
        const dec = new TextDecoder();
        return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
      };
      const rendered = await run(["--requires-js", "--format", "json"]);
      assert.equal(rendered.code, 0, rendered.stderr);
      const parsed = JSON.parse(rendered.stdout);
      assert.equal(parsed.frontmatter.renderer, "chromium");
      assert.match(parsed.content[0], /## By script\n\nrendered text/);
      const text = await run(["--requires-js", "--format", "text"]);
      assert.equal(text.stdout.match(/^# Built$/gm)?.length, 1, "the title is said once");
    } finally {
      await page.shutdown();
    }
  },
});

Deno.test("cli: --format markdown keeps stdout the page text and says how to read on on stderr", async () => {
  const cut = await page(["fetch", GUIDE, "--max-tokens", "60", "--format", "markdown"]);
  assert.equal(cut.code, 0, cut.stderr);
  assert.doesNotMatch(cut.stdout, /^(next|hint):/m);
  assert.match(
    cut.stderr,
    /^next: the page was cut at ~\d+ of ~\d+ tokens; see its sections with .* sections /m,
  );
  const whole = await page(["fetch", GUIDE, "--section", "care", "--format", "markdown"]);
  assert.equal(whole.stderr, "", "nothing to read on");
});
