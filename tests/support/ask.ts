/**
 * A question on a saved page of `fixtures/pages`, read through the CLI
 * (`fetch FILE --query Q --max-tokens N --format json`) as a person or an
 * agent reads it: the answer's text, after checking that the call
 * succeeded, extracted, and stayed within its budget.
 */
import assert from "node:assert/strict";
import { MAIN, ROOT_DIR, runCli } from "./process.ts";

/** The answer to `question` on `fixtures/pages/<page>` within `maxTokens`. */
export async function askPage(page: string, question: string, maxTokens: number): Promise<string> {
  const r = await runCli(
    [
      "fetch",
      `${ROOT_DIR}/fixtures/pages/${page}`,
      "--query",
      question,
      "--max-tokens",
      String(maxTokens),
      "--format",
      "json",
    ],
    {},
    MAIN,
    [`--allow-read=${ROOT_DIR}/fixtures`],
  );
  assert.equal(r.code, 0, r.stderr);
  const parsed = JSON.parse(r.stdout);
  assert.equal(parsed.frontmatter.extracted, true);
  assert.ok(parsed.frontmatter.returned_tokens <= maxTokens);
  return parsed.content[0];
}
