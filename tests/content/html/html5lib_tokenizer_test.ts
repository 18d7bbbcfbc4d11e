/**
 * The html5lib tokenizer tests (vendored in fixtures/html5lib, MIT, see its
 * PROVENANCE.md) against lib/content/html/tokenizer.ts: every case of every
 * `.test` file, in each of its initial states, compared token by token
 * (adjacent text merged, parse errors not compared). The test asserts the
 * pass rate and prints the figures and the failing cases.
 */
import assert from "node:assert/strict";
import { TextMode, tokenize, type TokenSink } from "../../../lib/content/html/tokenizer.ts";
import { ROOT_DIR } from "../../support/process.ts";

const DIR = `${ROOT_DIR}/fixtures/html5lib/tokenizer`;
/** Share of cases that must pass. */
const THRESHOLD = 0.999;

type Token = unknown[];

interface Case {
  description: string;
  input: string;
  output: Token[];
  initialStates?: string[];
  lastStartTag?: string;
  doubleEscaped?: boolean;
}

const STATES: Record<string, { mode?: TextMode; cdata?: boolean }> = {
  "Data state": {},
  "PLAINTEXT state": { mode: TextMode.Plaintext },
  "RCDATA state": { mode: TextMode.Rcdata },
  "RAWTEXT state": { mode: TextMode.Rawtext },
  "Script data state": { mode: TextMode.Script },
  "CDATA section state": { cdata: true },
};

function unescape(s: string): string {
  return s.replace(/\\u([0-9a-fA-F]{4})/g, (_, h) => String.fromCharCode(parseInt(h, 16)));
}

function deep(value: unknown): unknown {
  if (typeof value === "string") return unescape(value);
  if (Array.isArray(value)) return value.map(deep);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [unescape(k), deep(v)]));
  }
  return value;
}

/** Our tokens in the tests' shape; a start tag that opens raw text switches the mode as a tree builder would. */
export function ourTokens(input: string, state: string, lastStartTag?: string): Token[] {
  const out: Token[] = [];
  const push = (token: Token) => {
    const last = out[out.length - 1];
    if (token[0] === "Character" && last?.[0] === "Character") last[1] = `${last[1]}${token[1]}`;
    else out.push(token);
  };
  const sink: TokenSink = {
    startTag(name, attrs, selfClosing) {
      push(selfClosing ? ["StartTag", name, attrs, true] : ["StartTag", name, attrs]);
      return TextMode.Data;
    },
    endTag: (name) => push(["EndTag", name]),
    text: (text) => push(["Character", text]),
    comment: (data) => push(["Comment", data]),
    doctype: (name, publicId, systemId, quirks) =>
      push(["DOCTYPE", name, publicId, systemId, !quirks]),
    cdata: () => false,
  };
  tokenize(input, sink, undefined, { ...STATES[state], lastStartTag });
  return out;
}

function expected(test: Case): Token[] {
  const out: Token[] = [];
  for (const raw of test.output) {
    const token = test.doubleEscaped ? deep(raw) as Token : raw;
    const last = out[out.length - 1];
    if (token[0] === "Character" && last?.[0] === "Character") last[1] = `${last[1]}${token[1]}`;
    else out.push(token);
  }
  return out;
}

Deno.test("html5lib tokenizer tests: at least 99.9 % of the cases pass", async () => {
  let total = 0;
  let passed = 0;
  const failures: string[] = [];
  const files = [...Deno.readDirSync(DIR)].map((e) => e.name).filter((n) => n.endsWith(".test"))
    .sort();
  assert.ok(files.length >= 14, `the vendored tokenizer tests are in ${DIR}`);
  for (const file of files) {
    const data = JSON.parse(await Deno.readTextFile(`${DIR}/${file}`));
    // xmlViolation.test describes an XML-compatible tokenizer, not the HTML one.
    const cases: Case[] = data.tests ?? [];
    for (const test of cases) {
      const input = test.doubleEscaped ? unescape(test.input) : test.input;
      for (const state of test.initialStates ?? ["Data state"]) {
        total++;
        const got = ourTokens(input, state, test.lastStartTag);
        const want = expected(test);
        if (JSON.stringify(got) === JSON.stringify(want)) passed++;
        else {
          failures.push(
            `${file} ${JSON.stringify(test.description)} (${state}): input ${
              JSON.stringify(input).slice(0, 80)
            }\n    want ${JSON.stringify(want).slice(0, 160)}\n    got  ${
              JSON.stringify(got).slice(0, 160)
            }`,
          );
        }
      }
    }
  }
  const rate = passed / total;
  console.log(
    `html5lib tokenizer: ${passed} / ${total} cases pass (${(rate * 100).toFixed(2)} %)` +
      (failures.length ? `; failing:\n  ${failures.slice(0, 40).join("\n  ")}` : ""),
  );
  assert.ok(rate >= THRESHOLD, `pass rate ${(rate * 100).toFixed(2)} % is below 99.9 %`);
});
