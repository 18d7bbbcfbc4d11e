/**
 * The budget holds when the best passage is one block larger than it: the
 * query view through the CLI cuts it to fit and says how to read it whole,
 * instead of returning thousands of tokens for `--max-tokens 200`.
 */
import assert from "node:assert/strict";
import { ROOT_DIR, runCli } from "../support/process.ts";

Deno.test("views: a block larger than the budget is cut to fit it, and the note says how to read it whole", async () => {
  const page = `${ROOT_DIR}/fixtures/pages/one_big_block.html`;
  for (const budget of [100, 200, 600]) {
    const out = await runCli(
      [
        "fetch",
        page,
        "--query",
        "configure sprocket flange",
        "--max-tokens",
        String(budget),
        "--format",
        "json",
      ],
      {},
      undefined,
      [`--allow-read=${ROOT_DIR}/fixtures`],
    );
    assert.equal(out.code, 0, out.stderr);
    const fm = JSON.parse(out.stdout).frontmatter;
    assert.equal(fm.extracted, true);
    assert.ok(fm.returned_tokens <= budget, `${fm.returned_tokens} > ${budget}`);
    assert.ok(fm.original_tokens > 2000);
    assert.match(
      String(fm.note),
      /larger than the budget, cut to fit it; read it whole with .*--section/,
    );
  }
});
