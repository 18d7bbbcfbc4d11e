/**
 * The command line: version, help, and one-line usage errors with exit 2.
 */
import assert from "node:assert/strict";
import meta from "../deno.json" with { type: "json" };
import { runCli } from "./support/process.ts";

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
