/**
 * Output formats: each format carries the records faithfully.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { decode as toonDecode } from "@toon-format/toon";
import { envelopeReady, FormatError, renderRecords } from "../../mod.ts";

// The frontmatter serializer loads on first need (the package entry awaits nothing).
await envelopeReady();

const record = fc.record({
  id: fc.integer(),
  title: fc.string({ unit: "grapheme", maxLength: 40 }),
  score: fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }),
  ok: fc.boolean(),
});

// RFC 4180 reader, to check what the writer produced.
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(field);
      field = "";
    } else if (c === "\r" && text[i + 1] === "\n") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      i++;
    } else field += c;
  }
  row.push(field);
  rows.push(row);
  return rows;
}

Deno.test("csv round-trips flat records and refuses nested ones", () => {
  fc.assert(
    fc.property(fc.array(record, { minLength: 1, maxLength: 8 }), (records) => {
      const rows = parseCsv(renderRecords(records, "csv").text);
      assert.deepEqual(rows[0], ["id", "title", "score", "ok"]);
      rows.slice(1).forEach((r, i) => {
        assert.deepEqual(r, [
          String(records[i].id),
          records[i].title,
          String(records[i].score),
          String(records[i].ok),
        ]);
      });
    }),
    { numRuns: 200 },
  );
  assert.throws(() => renderRecords([{ a: [1, 2] }], "csv"), FormatError);
});

Deno.test("json, compact and toon carry the same data", () => {
  fc.assert(
    fc.property(fc.array(record, { maxLength: 8 }), (records) => {
      const expected = JSON.parse(JSON.stringify({ results: records }));
      const json = renderRecords(records, "json");
      assert.deepEqual(JSON.parse(json.text), expected);
      assert.deepEqual(JSON.parse(JSON.stringify(json.structured)), expected);
      assert.deepEqual(JSON.parse(renderRecords(records, "compact").text), expected);
      assert.deepEqual(JSON.parse(renderRecords(records, "pretty").text), expected);
      assert.ok(!renderRecords(records, "compact").text.includes("\n"));
      assert.deepEqual(toonDecode(renderRecords(records, "toon").text), expected);
    }),
    { numRuns: 200 },
  );
});

Deno.test("markdown tables escape pipes and keep one row per record", () => {
  const text =
    renderRecords([{ a: "x|y", b: "line\nbreak" }, { a: "back\\slash", b: 2 }], "markdown").text;
  const lines = text.split("\n");
  assert.equal(lines.length, 4);
  assert.equal(lines[0], "| a | b |");
  assert.equal(lines[2], "| x\\|y | line<br>break |");
  assert.equal(lines[3], "| back\\\\slash | 2 |");
  const nested = renderRecords([{ a: 1, tags: ["x", "y"] }], "markdown").text;
  assert.match(nested, /^1\.\n {3}- a: 1\n {3}- tags: \["x","y"\]$/);
  assert.equal(renderRecords([], "markdown").text, "(no results)");
  const pretty = renderRecords([{ title: "T", url: "https://x.example" }], "pretty");
  assert.equal(
    pretty.text,
    '{\n  "results": [\n    {\n      "title": "T",\n      "url": "https://x.example"\n    }\n  ]\n}',
  );
  assert.equal(pretty.structured, undefined, "only json also sends structuredContent");
});
