/**
 * Credentials with a line break (or any character a header cannot carry),
 * through the real server and CLI: every source refuses the value with a
 * message naming the variable (or file) and the fix, and the value itself
 * appears nowhere: not in the answer, not on stderr.
 */
import assert from "node:assert/strict";
import { callLenient, startServer } from "./support/mcp_client.ts";
import { replaySetup, runCli } from "./support/process.ts";

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
