/**
 * Exports parse in a well-kept third-party parser (Citation.js with its
 * BibTeX and RIS plugins) and give back what went in: entry types, keys,
 * titles with any characters, authors, DOIs. The BibTeX escaping is
 * property-tested: whatever a title holds, the entry parses and the title
 * comes back (whitespace flattened).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { Cite } from "@citation-js/core";
import "@citation-js/plugin-bibtex";
import "@citation-js/plugin-ris";
import { escapeBibtex, flatten, toBibtex, uniqueKeys } from "../../lib/shelf/bibtex.ts";
import { byAdded, normalizeKey, nowStamp, recordFromInput } from "../../lib/shelf/merge.ts";
import type { CitationInput, ShelfRecord } from "../../lib/shelf/record.ts";
import { toRis } from "../../lib/shelf/ris.ts";
import { Shelf } from "../../lib/shelf/shelf.ts";
import {
  ATTENTION_ARXIV,
  ATTENTION_JOURNAL,
  NATURE,
  REPO,
  RETRACTED,
  RFC9110,
} from "./fixtures.ts";

interface Csl {
  id: string;
  type: string;
  title?: string;
  DOI?: string;
  author?: { family?: string; given?: string; literal?: string }[];
  number?: string;
  publisher?: string;
  "container-title"?: string;
  issued?: { "date-parts": number[][] };
}

function parse(text: string): Csl[] {
  return new Cite(text).data as Csl[];
}

function record(input: CitationInput): ShelfRecord {
  return recordFromInput(input, nowStamp())!;
}

/** The shelf's records after tracking `inputs`, in the order the inputs first appeared. */
async function shelfOf(...inputs: CitationInput[]): Promise<ShelfRecord[]> {
  const shelf = new Shelf();
  for (const input of inputs) await shelf.track(input);
  const state = await shelf.snapshot();
  const position = (r: ShelfRecord) =>
    inputs.findIndex((i) => [r.doi, ...r.alt_dois].includes(normalizeKey(i.doi)!));
  return [...byAdded(state.active), ...byAdded(state.retracted)]
    .sort((a, b) => position(a) - position(b));
}

Deno.test("BibTeX: entry types follow the kind of work and parse as such", async () => {
  const records = await shelfOf(NATURE, ATTENTION_JOURNAL, RFC9110, REPO, ATTENTION_ARXIV, {
    ...ATTENTION_ARXIV,
    doi: "10.48550/arXiv.2001.00001",
    arxivId: "2001.00001",
    title: "A preprint",
    altDois: [],
  });
  const bib = toBibtex(records);
  const types = [...bib.matchAll(/^@(\w+)\{([^,]+),/gm)].map((m) => `${m[1]}:${m[2]}`);
  assert.deepEqual(types, [
    "article:lecun2015",
    "inproceedings:vaswani2017",
    "techreport:rfc9110",
    "misc:land2024",
    "misc:vaswani2017a",
  ]);
  assert.match(
    bib,
    /institution = \{Internet Engineering Task Force\},\n {2}type = \{Request for Comments\},\n {2}number = \{9110\}/,
  );
  assert.match(bib, /eprint = \{2001\.00001\},\n {2}archiveprefix = \{arXiv\}/);
  assert.match(bib, /title = \{\{Deno: a modern runtime for JavaScript \\& TypeScript\}\}/);
  const parsed = parse(bib);
  assert.deepEqual(parsed.map((p) => [p.id, p.type]), [
    ["lecun2015", "article-journal"],
    ["vaswani2017", "paper-conference"],
    ["rfc9110", "report"],
    ["land2024", "document"],
    ["vaswani2017a", "document"],
  ]);
  assert.equal(parsed[0].DOI, "10.1038/nature14539");
  assert.equal(parsed[0]["container-title"], "Nature");
  assert.deepEqual(parsed[0].author?.[0], { family: "LeCun", given: "Yann" });
  assert.equal(parsed[2].DOI, "10.17487/RFC9110");
  assert.equal(parsed[2].number, "9110");
  assert.equal(parsed[2].publisher, "Internet Engineering Task Force");
  assert.equal(parsed[3].title, "Deno: a modern runtime for JavaScript & TypeScript");
});

Deno.test("BibTeX: keys are unique (a, b, ... suffixes) and ASCII", () => {
  const base = record({ ...NATURE, authors: ["Müller, Jörg"], year: 2020 });
  const records = Array.from({ length: 30 }, (_, i) => ({ ...base, doi: `10.1234/x${i}` }));
  const keys = uniqueKeys(records);
  assert.equal(new Set(keys).size, 30);
  assert.deepEqual(keys.slice(0, 3), ["muller2020", "muller2020a", "muller2020b"]);
  assert.equal(keys[26], "muller2020z");
  assert.equal(keys[27], "muller2020aa");
  const parsed = parse(toBibtex(records));
  assert.deepEqual(parsed.map((p) => p.id), keys);
  // No authors and no year: a title word and "nd".
  assert.equal(
    uniqueKeys([
      record({ ...NATURE, authors: [], year: undefined, title: "The Ünïcode Study" }),
    ])[0],
    "unicodend",
  );
});

Deno.test("BibTeX: a retracted work is exported only on request, marked in a note", async () => {
  const records = await shelfOf(RETRACTED);
  const bib = toBibtex(records);
  assert.match(
    bib,
    /note = \{RETRACTED: notice 10\.1016\/s0140-6736\(20\)31324-6 \(2020-06-05\), reported by retraction-watch\}/,
  );
  assert.equal(parse(bib).length, 1);
});

Deno.test("BibTeX: special characters in every field are escaped", () => {
  const r = record({
    ...NATURE,
    title: "50% of {braces} & #hash _x $y$ ~ ^ \\ <tag>",
    authors: ["O'Brien & Sons, Jane_Doe", "Research and Development Group"],
    venue: "J. of 100% #Science & $Art",
  });
  const bib = toBibtex([r]);
  for (const line of bib.split("\n").filter((l) => /^ {2}(title|author|journal) =/.test(l))) {
    // Every special character is preceded by a backslash (or is part of a command).
    const stripped = line.replace(
      /\\(?:textbackslash|textasciitilde|textasciicircum|textless|textgreater)\{\}/g,
      "",
    )
      .replace(/\\[{}%$&#_]/g, "");
    const value = stripped.slice(stripped.indexOf("{") + 1, stripped.lastIndexOf("}"));
    assert.doesNotMatch(value.replace(/^\{|\}$/g, ""), /[%$&#_~^\\<>]/, line);
  }
  const [parsed] = parse(bib);
  assert.equal(parsed.title, "50% of {braces} & #hash _x $y$ ~ ^ \\ <tag>");
  assert.equal(parsed["container-title"], "J. of 100% #Science & $Art");
  assert.equal(parsed.author?.length, 2, "an organisation name holding 'and' stays one author");
  assert.deepEqual(parsed.author?.[0], { family: "O'Brien & Sons", given: "Jane_Doe" });
});

Deno.test("BibTeX property: any title parses back to itself (whitespace flattened)", () => {
  const special = fc.constantFrom(
    ..."{}\\%$&#_~^<>\"'@,=() \n\t".split(""),
    "and",
    "ü",
    "中",
    "😀",
  );
  const title = fc.array(
    fc.oneof(special, fc.string({ maxLength: 4 }), fc.string({ unit: "grapheme", maxLength: 3 })),
    {
      minLength: 1,
      maxLength: 12,
    },
  ).map((parts) => parts.join("")).filter((t) => flatten(t) !== "");
  fc.assert(
    fc.property(title, fc.string({ maxLength: 20 }), (t, venue) => {
      const r = record({ ...NATURE, title: t, venue: venue.trim() === "" ? "Nature" : venue });
      const bib = toBibtex([r]);
      const parsed = parse(bib);
      assert.equal(parsed.length, 1);
      assert.equal(parsed[0].title, flatten(t), `escaped as ${escapeBibtex(t)}`);
      assert.equal(parsed[0].DOI, "10.1038/nature14539");
      assert.equal(parsed[0]["container-title"], flatten(r.venue!));
    }),
    { numRuns: 300 },
  );
});

Deno.test("RIS: type codes per kind, one line per value, parses back", async () => {
  const records = await shelfOf(NATURE, ATTENTION_JOURNAL, RFC9110, REPO, {
    ...ATTENTION_ARXIV,
    doi: "10.48550/arXiv.2001.00001",
    arxivId: "2001.00001",
    title: "A preprint\nwith a line break",
    altDois: [],
  }, RETRACTED);
  const ris = toRis(records);
  assert.deepEqual([...ris.matchAll(/^TY {2}- (\w+)$/gm)].map((m) => m[1]), [
    "JOUR",
    "CONF",
    "RPRT",
    "COMP",
    "GEN",
    "JOUR",
  ]);
  assert.equal(ris.match(/^ER {2}- $/gm)?.length, 6);
  assert.ok(ris.split("\n").every((l) => l === "" || /^[A-Z][A-Z0-9] {2}- /.test(l)), ris);
  assert.match(ris, /TI {2}- A preprint with a line break/);
  assert.match(ris, /N1 {2}- RETRACTED: notice/);
  const parsed = parse(ris);
  assert.deepEqual(parsed.map((p) => p.type), [
    "article-journal",
    "paper-conference",
    "report",
    "software",
    "document",
    "article-journal",
  ]);
  assert.equal(parsed[0].title, "Deep learning");
  assert.equal(parsed[0].DOI, "10.1038/nature14539");
  assert.equal(parsed[2].DOI, "10.17487/RFC9110");
  assert.deepEqual(parsed[0].issued?.["date-parts"], [[2015]]);
  assert.deepEqual(parsed[0].author?.map((a) => a.family), ["LeCun", "Bengio", "Hinton"]);
});
