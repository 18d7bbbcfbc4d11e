/**
 * Names joined to a number by a hyphen ("SHA-512", "P-256", "UTF-8"), read
 * through the CLI (`fetch FILE --query`) on
 * `fixtures/pages/joined_names_spec.html`, an invented catalogue of lamps
 * named "KX-10" to "KX-90", each in its own section: a question writing the
 * name as one word ("kx40", as "rsa-pss-sha512" writes "sha512") found the
 * first lamp of the series before, since its words "kx" and "40" are not
 * "kx40"; both spellings are one term now.
 */
import assert from "node:assert/strict";
import { askPage } from "../../support/ask.ts";
import { questionTerms, scanTerms } from "../../../lib/content/question/terms.ts";

Deno.test("joined names: a question writing 'kx40' finds the section of the KX-40 lamp", async () => {
  const text = await askPage("joined_names_spec.html", "what fuel does the kx40 lamp burn", 80);
  assert.match(text, /### 1\.4\. The KX-40 Lamp/);
  assert.match(text, /Its reservoir takes colza oil only/);
  assert.doesNotMatch(text, /KX-10/);
});

Deno.test("joined names: both spellings give the one-word term, and nothing else is joined", () => {
  const page: string[] = [];
  scanTerms(
    "RSASSA-PSS Using SHA-512, UTF-8 and P-256; pages 10-20 and x-1-2",
    (t) => page.push(t),
  );
  for (const t of ["sha512", "utf8", "p256"]) assert.ok(page.includes(t), `${t} in ${page}`);
  assert.ok(!page.some((t) => /^(x1|pages10|x12)$/.test(t)), page.join(" "));
  assert.ok(questionTerms("which curve does ecdsa-p256-sha256 use").terms.includes("sha256"));
  assert.ok(questionTerms("is SHA-512 allowed").terms.includes("sha512"));
});
