/**
 * Credentials with a line break (or any character a header cannot carry),
 * through the real server and CLI: every source refuses the value with a
 * message naming the variable (or file) and the fix, and the value itself
 * appears nowhere: not in the answer, not on stderr.
 */
import assert from "node:assert/strict";
import { asList, callLenient, startServer } from "./support/mcp_client.ts";
import { replaySetup, runCli } from "./support/process.ts";
import { sharedDir } from "./support/shared.ts";

const bad = (name: string) => `zq9zq${name}value\r\nX-Injected: 1`;
const SHAPE =
  /holds characters no credential contains \(a space, a line break, a control or non-ASCII character\)/;

Deno.test("credentials: a malformed key is refused by name, its value never shown", async () => {
  const config = await Deno.makeTempDir({ prefix: "parkour-cred-" });
  await Deno.mkdir(`${config}/parkour`);
  await Deno.writeTextFile(`${config}/parkour/github_token`, "zq9zqfileline1\nzq9zqfileline2\n", {
    mode: 0o600,
  });
  let stderr = "";
  const { client } = await startServer({
    env: {
      XDG_CONFIG_HOME: config,
      HF_TOKEN: bad("hf"),
      KAGI_API_KEY: bad("kagi"),
      S2_API_KEY: bad("s2"),
      S2_ACCEPT_TOS: "1",
      REDDIT_CLIENT_ID: "client-id",
      REDDIT_CLIENT_SECRET: bad("reddit"),
    },
    readDirs: [config],
    onStderr: (text) => (stderr += text),
  });
  try {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ["github", { action: "repo", query: "octo-org/widget" }, /parkour\/github_token holds/],
      ["huggingface", { action: "model", query: "acme/widget" }, /^Error: HF_TOKEN holds/],
      ["kagi_search", { query: "deno" }, /^Error: KAGI_API_KEY holds/],
      ["semantic_scholar", { action: "search", query: "widget" }, /^Error: S2_API_KEY holds/],
      [
        "web_fetch_incisive",
        { url: "https://old.reddit.com/r/BackToTheFuture/comments/abc123/flux/" },
        /^Error: REDDIT_CLIENT_SECRET holds/,
      ],
    ];
    for (const [tool, args, source] of cases) {
      const a = await callLenient(client, tool, args);
      assert.equal(a.isError, true, `${tool}: ${a.text}`);
      assert.match(a.text, source, `${tool}: ${a.text}`);
      assert.match(a.text, SHAPE, tool);
      assert.match(a.text, /on one line, without quotes or spaces/, `${tool} says the fix`);
      assert.doesNotMatch(
        a.text,
        /zq9zq|X-Injected/,
        `${tool} shows no part of the value: ${a.text}`,
      );
    }
  } finally {
    await client.close();
    await Deno.remove(config, { recursive: true });
  }
  assert.doesNotMatch(stderr, /zq9zq|X-Injected/, "nor does the log");
});

Deno.test("credentials: the CLI refuses a malformed GITHUB_TOKEN the same way", async () => {
  const replay = replaySetup();
  const { stdout, stderr } = await runCli(
    ["fetch", "https://github.com/octo-org/widget"],
    { ...replay.env, GITHUB_TOKEN: bad("gh") },
    undefined,
    replay.flags,
  );
  assert.match(stdout + stderr, /GITHUB_TOKEN holds/);
  assert.match(stdout + stderr, SHAPE);
  assert.doesNotMatch(stdout + stderr, /zq9zq|X-Injected/);
});

Deno.test("credentials: doctor fails a malformed key by the same rule, without its value", async () => {
  const { stdout, stderr } = await runCli(["doctor"], { HF_TOKEN: bad("hf") });
  assert.match(stdout + stderr, /HF_TOKEN holds characters no credential contains/);
  assert.doesNotMatch(stdout + stderr, /zq9zq|X-Injected/);
});

Deno.test("credentials: a key file others can read is refused, and every source's answer says so with the chmod 600 fix", async () => {
  const config = await Deno.makeTempDir({ prefix: "parkour-cred-mode-" });
  const dir = `${config}/parkour`;
  await Deno.mkdir(dir);
  const files = ["github_token", "hf_token", "kagi_api_key", "s2_api_key", "reddit_client_secret"];
  for (const name of files) {
    await Deno.writeTextFile(`${dir}/${name}`, `zq9zq${name}\n`);
    await Deno.chmod(`${dir}/${name}`, 0o644);
  }
  await Deno.writeTextFile(`${dir}/reddit_client_id`, "client-id\n");
  let stderr = "";
  const { client } = await startServer({
    env: { XDG_CONFIG_HOME: config, S2_ACCEPT_TOS: "1" },
    readDirs: [config],
    onStderr: (text) => (stderr += text),
  });
  const said = (file: string) =>
    `the credential file ${dir}/${file} was not read: its mode 644 lets group or others read it; run chmod 600 on it and restart the server (until then requests go without it)`;
  try {
    const cases: [string, Record<string, unknown>, string][] = [
      ["github", { action: "repo", query: "octo-org/widget" }, "github_token"],
      ["huggingface", { action: "model", query: "acme/tiny-llama-bf16" }, "hf_token"],
      ["kagi_search", { query: "deno" }, "kagi_api_key"],
      ["semantic_scholar", { action: "paper", query: "DOI:10.5555/widget.2021.1" }, "s2_api_key"],
    ];
    // The Reddit thread is a shared real capture: without it that case is left out, visibly.
    if (sharedDir()) {
      cases.push([
        "web_fetch_incisive",
        { url: "https://www.reddit.com/r/SubTestBot1/comments/jlbw48/test_self_post/" },
        "reddit_client_secret",
      ]);
    } else {
      console.log("credentials_test: PARKOUR_SHARED_DIR is not set; the Reddit case is left out");
    }
    for (const [tool, args, file] of cases) {
      const a = await callLenient(client, tool, args);
      const warnings = asList(a.fm.warning).map(String);
      assert.ok(warnings.includes(said(file)), `${tool} says ${file} was refused: ${a.text}`);
      assert.doesNotMatch(a.text, /zq9zq/, `${tool} shows no part of the value`);
    }
    const kagi = await callLenient(client, "kagi_search", { query: "deno" });
    assert.doesNotMatch(String(kagi.fm.status), /no API key configured/, kagi.text);
    assert.match(String(kagi.fm.status), /refused/, kagi.text);
  } finally {
    await client.close();
    await Deno.remove(config, { recursive: true });
  }
  for (const file of files.filter((f) => sharedDir() || f !== "reddit_client_secret")) {
    assert.ok(stderr.includes(said(file)), `stderr says the same of ${file}: ${stderr}`);
  }
  assert.doesNotMatch(stderr, /zq9zq/, "nor does the log");
});
