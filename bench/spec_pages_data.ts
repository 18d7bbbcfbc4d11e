/**
 * Builds the `spec:` pages of the question sets (`bench/question_pages.ts`)
 * from checkouts of their public repositories, into the shared folder's
 * `fixtures/specs/` (outside this repository; never committed), each page
 * gzipped as `<name>.html.gz`, with a `PROVENANCE.md` naming the repository,
 * the file, its commit and its licence:
 *
 * - `bash_ref`: the Bash Reference Manual, `doc/bashref.html` of
 *   github.com/bminor/bash (GNU Free Documentation License 1.3);
 * - `rfc9110`, `rfc9111`, `rfc9112`: RFC 9110 (HTTP Semantics), RFC 9111
 *   (HTTP Caching) and RFC 9112 (HTTP/1.1), `specs/rfc911x.html` of
 *   github.com/httpwg/httpwg.github.io (the IETF Trust's licence of RFCs,
 *   the Revised BSD License for code components), from `--httpwg` as are
 *   `rfc9113` (HTTP/2), `rfc9421` (HTTP Message Signatures), `rfc6265`
 *   (Cookies), `rfc9651` (Structured Field Values), `rfc7541` (HPACK),
 *   `rfc9114` (HTTP/3), `rfc9204` (QPACK), `rfc9530` (Digest Fields),
 *   `rfc9205` (Building Protocols with HTTP), `rfc9218` (Extensible
 *   Priorities), `rfc7616` (HTTP Digest Access Authentication), `rfc9209`
 *   (the Proxy-Status HTTP response header field), `rfc8288` (Web
 *   Linking), `rfc7838` (HTTP Alternative Services) and `rfc9842`
 *   (Compression Dictionary Transport);
 * - `webdriver`: W3C WebDriver, `index.html` of github.com/w3c/webdriver
 *   (W3C Software and Document License);
 * - `wai_aria`: WAI-ARIA, `index.html` of github.com/w3c/aria (W3C
 *   Software and Document License);
 * - `lua_manual`: the Lua 5.4 Reference Manual, `doc/manual.html` of
 *   github.com/Hubert-Heijkers/lua, a copy of Lua's sources (MIT);
 * - `json_ld`: W3C JSON-LD 1.1, `index.html` of github.com/w3c/json-ld-syntax
 *   (W3C Software and Document License);
 * - `webrtc`: W3C WebRTC 1.0 as published (2.7 MB), `base-rec.html` of
 *   github.com/w3c/webrtc-pc; `vc_data_model`: W3C Verifiable Credentials
 *   Data Model 2.0 as published, `transitions/2025/PR/index.html` of
 *   github.com/w3c/vc-data-model; `app_manifest`: W3C Web Application
 *   Manifest, `index.html` of github.com/w3c/manifest; `payment_request`:
 *   W3C Payment Request API, `index.html` of github.com/w3c/payment-request
 *   (all four W3C Software and Document License);
 * - `did_core` (Decentralized Identifiers 1.0 as published), `getusermedia`
 *   (Media Capture and Streams, the 2017-08-28 snapshot), `pointer_events`
 *   (Pointer Events) and `wot_td` (WoT Thing Description 2.0, first public
 *   draft) from github.com/w3c/did-core, mediacapture-main, pointerevents
 *   and wot-thing-description (W3C Software and Document License);
 * - `encrypted_media` (Encrypted Media Extensions, the editor's draft),
 *   `encrypted-media-respec.html` of github.com/w3c/encrypted-media, and
 *   `epub_core` (EPUB 3.3), `epub33/core/index.html` of
 *   github.com/w3c/epub-specs (both W3C Software and Document License);
 * - `media_source` (Media Source Extensions, the editor's draft),
 *   `media-source-respec.html` of github.com/w3c/media-source (W3C Software
 *   and Document License), and `sparql_query` (SPARQL 1.2 Query Language,
 *   the editor's draft), `spec/index.html` of github.com/w3c/sparql-query
 *   (W3C Document License);
 * - `shacl` (W3C SHACL, the Shapes Constraint Language), `shacl/index.html`
 *   of github.com/w3c/data-shapes, and `dcat` (W3C Data Catalog Vocabulary
 *   (DCAT) 3), `dcat/index.html` of github.com/w3c/dxwg (both W3C Software
 *   and Document License).
 *
 * ```sh
 * PARKOUR_SHARED_DIR=/path/to/shared deno run -A bench/spec_pages_data.ts \
 *   --bash /tmp/bash --httpwg /tmp/httpwg.github.io --webdriver /tmp/webdriver \
 *   --aria /tmp/aria --lua /tmp/lua --jsonld /tmp/json-ld-syntax \
 *   --webrtc /tmp/webrtc-pc --vc /tmp/vc-data-model --manifest /tmp/manifest \
 *   --payment /tmp/payment-request --did /tmp/did-core --mediacapture /tmp/mediacapture-main \
 *   --pointerevents /tmp/pointerevents --wot /tmp/wot-thing-description \
 *   --eme /tmp/encrypted-media --epub /tmp/epub-specs --mse /tmp/media-source \
 *   --sparql /tmp/sparql-query --shacl /tmp/data-shapes --dcat /tmp/dxwg [--out DIR]
 * ```
 *
 * A checkout is a working tree or a bare git directory (its file is read at
 * HEAD); one checkout may give several pages. Pages whose checkout is not
 * given are left as they are, and so are their rows of `PROVENANCE.md`.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { gzipBytes, pathExists } from "../tests/support/shared.ts";

interface Source {
  name: string;
  option: string;
  repository: string;
  path: string;
  licence: string;
}

const SOURCES: Source[] = [
  {
    name: "bash_ref",
    option: "bash",
    repository: "github.com/bminor/bash",
    path: "doc/bashref.html",
    licence: "GNU Free Documentation License 1.3",
  },
  {
    name: "rfc9110",
    option: "httpwg",
    repository: "github.com/httpwg/httpwg.github.io",
    path: "specs/rfc9110.html",
    licence: "IETF Trust Legal Provisions (RFC text), Revised BSD (code components)",
  },
  {
    name: "rfc9111",
    option: "httpwg",
    repository: "github.com/httpwg/httpwg.github.io",
    path: "specs/rfc9111.html",
    licence: "IETF Trust Legal Provisions (RFC text), Revised BSD (code components)",
  },
  {
    name: "rfc9112",
    option: "httpwg",
    repository: "github.com/httpwg/httpwg.github.io",
    path: "specs/rfc9112.html",
    licence: "IETF Trust Legal Provisions (RFC text), Revised BSD (code components)",
  },
  {
    name: "rfc9113",
    option: "httpwg",
    repository: "github.com/httpwg/httpwg.github.io",
    path: "specs/rfc9113.html",
    licence: "IETF Trust Legal Provisions (RFC text), Revised BSD (code components)",
  },
  {
    name: "rfc9421",
    option: "httpwg",
    repository: "github.com/httpwg/httpwg.github.io",
    path: "specs/rfc9421.html",
    licence: "IETF Trust Legal Provisions (RFC text), Revised BSD (code components)",
  },
  {
    name: "rfc6265",
    option: "httpwg",
    repository: "github.com/httpwg/httpwg.github.io",
    path: "specs/rfc6265.html",
    licence: "IETF Trust Legal Provisions (RFC text), Revised BSD (code components)",
  },
  {
    name: "rfc9651",
    option: "httpwg",
    repository: "github.com/httpwg/httpwg.github.io",
    path: "specs/rfc9651.html",
    licence: "IETF Trust Legal Provisions (RFC text), Revised BSD (code components)",
  },
  {
    name: "rfc7541",
    option: "httpwg",
    repository: "github.com/httpwg/httpwg.github.io",
    path: "specs/rfc7541.html",
    licence: "IETF Trust Legal Provisions (RFC text), Revised BSD (code components)",
  },
  {
    name: "rfc9114",
    option: "httpwg",
    repository: "github.com/httpwg/httpwg.github.io",
    path: "specs/rfc9114.html",
    licence: "IETF Trust Legal Provisions (RFC text), Revised BSD (code components)",
  },
  {
    name: "rfc9204",
    option: "httpwg",
    repository: "github.com/httpwg/httpwg.github.io",
    path: "specs/rfc9204.html",
    licence: "IETF Trust Legal Provisions (RFC text), Revised BSD (code components)",
  },
  {
    name: "rfc9530",
    option: "httpwg",
    repository: "github.com/httpwg/httpwg.github.io",
    path: "specs/rfc9530.html",
    licence: "IETF Trust Legal Provisions (RFC text), Revised BSD (code components)",
  },
  {
    name: "rfc9205",
    option: "httpwg",
    repository: "github.com/httpwg/httpwg.github.io",
    path: "specs/rfc9205.html",
    licence: "IETF Trust Legal Provisions (RFC text), Revised BSD (code components)",
  },
  {
    name: "rfc9218",
    option: "httpwg",
    repository: "github.com/httpwg/httpwg.github.io",
    path: "specs/rfc9218.html",
    licence: "IETF Trust Legal Provisions (RFC text), Revised BSD (code components)",
  },
  {
    name: "rfc7616",
    option: "httpwg",
    repository: "github.com/httpwg/httpwg.github.io",
    path: "specs/rfc7616.html",
    licence: "IETF Trust Legal Provisions (RFC text), Revised BSD (code components)",
  },
  {
    name: "rfc9209",
    option: "httpwg",
    repository: "github.com/httpwg/httpwg.github.io",
    path: "specs/rfc9209.html",
    licence: "IETF Trust Legal Provisions (RFC text), Revised BSD (code components)",
  },
  {
    name: "rfc8288",
    option: "httpwg",
    repository: "github.com/httpwg/httpwg.github.io",
    path: "specs/rfc8288.html",
    licence: "IETF Trust Legal Provisions (RFC text), Revised BSD (code components)",
  },
  {
    name: "rfc7838",
    option: "httpwg",
    repository: "github.com/httpwg/httpwg.github.io",
    path: "specs/rfc7838.html",
    licence: "IETF Trust Legal Provisions (RFC text), Revised BSD (code components)",
  },
  {
    name: "rfc9842",
    option: "httpwg",
    repository: "github.com/httpwg/httpwg.github.io",
    path: "specs/rfc9842.html",
    licence: "IETF Trust Legal Provisions (RFC text), Revised BSD (code components)",
  },
  {
    name: "webdriver",
    option: "webdriver",
    repository: "github.com/w3c/webdriver",
    path: "index.html",
    licence: "W3C Software and Document License",
  },
  {
    name: "wai_aria",
    option: "aria",
    repository: "github.com/w3c/aria",
    path: "index.html",
    licence: "W3C Software and Document License",
  },
  {
    name: "lua_manual",
    option: "lua",
    repository: "github.com/Hubert-Heijkers/lua (a copy of Lua's sources)",
    path: "doc/manual.html",
    licence: "MIT",
  },
  {
    name: "json_ld",
    option: "jsonld",
    repository: "github.com/w3c/json-ld-syntax",
    path: "index.html",
    licence: "W3C Software and Document License",
  },
  {
    name: "webrtc",
    option: "webrtc",
    repository: "github.com/w3c/webrtc-pc",
    path: "base-rec.html",
    licence: "W3C Software and Document License",
  },
  {
    name: "vc_data_model",
    option: "vc",
    repository: "github.com/w3c/vc-data-model",
    path: "transitions/2025/PR/index.html",
    licence: "W3C Software and Document License",
  },
  {
    name: "app_manifest",
    option: "manifest",
    repository: "github.com/w3c/manifest",
    path: "index.html",
    licence: "W3C Software and Document License",
  },
  {
    name: "payment_request",
    option: "payment",
    repository: "github.com/w3c/payment-request",
    path: "index.html",
    licence: "W3C Software and Document License",
  },
  {
    name: "did_core",
    option: "did",
    repository: "github.com/w3c/did-core",
    path: "transitions/2022/REC/index.html",
    licence: "W3C Software and Document License",
  },
  {
    name: "getusermedia",
    option: "mediacapture",
    repository: "github.com/w3c/mediacapture-main",
    path: "archives/20170828/getusermedia.html",
    licence: "W3C Software and Document License",
  },
  {
    name: "pointer_events",
    option: "pointerevents",
    repository: "github.com/w3c/pointerevents",
    path: "index.html",
    licence: "W3C Software and Document License",
  },
  {
    name: "wot_td",
    option: "wot",
    repository: "github.com/w3c/wot-thing-description",
    path: "publication/ver20/1-fpwd/Overview.html",
    licence: "W3C Software and Document License",
  },
  {
    name: "encrypted_media",
    option: "eme",
    repository: "github.com/w3c/encrypted-media",
    path: "encrypted-media-respec.html",
    licence: "W3C Software and Document License",
  },
  {
    name: "epub_core",
    option: "epub",
    repository: "github.com/w3c/epub-specs",
    path: "epub33/core/index.html",
    licence: "W3C Software and Document License",
  },
  {
    name: "media_source",
    option: "mse",
    repository: "github.com/w3c/media-source",
    path: "media-source-respec.html",
    licence: "W3C Software and Document License",
  },
  {
    name: "sparql_query",
    option: "sparql",
    repository: "github.com/w3c/sparql-query",
    path: "spec/index.html",
    licence: "W3C Document License",
  },
  {
    name: "shacl",
    option: "shacl",
    repository: "github.com/w3c/data-shapes",
    path: "shacl/index.html",
    licence: "W3C Software and Document License",
  },
  {
    name: "dcat",
    option: "dcat",
    repository: "github.com/w3c/dxwg",
    path: "dcat/index.html",
    licence: "W3C Software and Document License",
  },
];

const { values } = parseArgs({
  args: Deno.args,
  options: {
    ...Object.fromEntries(SOURCES.map((s) => [s.option, { type: "string" as const }])),
    out: { type: "string" },
  },
});
const given = values as Record<string, string | undefined>;
const shared = Deno.env.get("PARKOUR_SHARED_DIR");
const out = given.out ?? (shared ? `${shared}/fixtures/specs` : undefined);
if (!out || SOURCES.every((s) => !given[s.option])) {
  console.error(
    "usage: PARKOUR_SHARED_DIR=DIR deno run -A bench/spec_pages_data.ts " +
      [...new Set(SOURCES.map((s) => s.option))].map((o) => `[--${o} CHECKOUT]`).join(" ") +
      " [--out DIR]",
  );
  Deno.exit(2);
}

async function git(dir: string, ...args: string[]): Promise<Uint8Array | undefined> {
  const bare = !(await pathExists(`${dir}/.git`)) && (await pathExists(`${dir}/HEAD`));
  const r = await new Deno.Command("git", {
    args: [bare ? `--git-dir=${dir}` : `--git-dir=${dir}/.git`, ...args],
    stdout: "piped",
    stderr: "null",
  }).output().catch(() => undefined);
  return r?.success ? r.stdout : undefined;
}

await Deno.mkdir(out, { recursive: true });
// The rows of the pages not rebuilt now are kept from the last PROVENANCE.md.
const rows = new Map<string, string>();
const previous = await Deno.readTextFile(`${out}/PROVENANCE.md`).catch(() => "");
for (const line of previous.split("\n")) {
  const name = /^\| (\w+) \| /.exec(line)?.[1];
  if (name && name !== "page" && SOURCES.some((s) => s.name === name)) rows.set(name, line);
}
const provenance = [
  "# Specification pages of the question sets",
  "",
  "Built by `bench/spec_pages_data.ts` of parkour-deno from public repositories;",
  "public material, not part of parkour-deno's repository.",
  "",
  "| page | repository | file | commit | licence |",
  "| --- | --- | --- | --- | --- |",
];
for (const s of SOURCES) {
  const dir = given[s.option];
  if (!dir) continue;
  const bytes = await git(dir, "show", `HEAD:${s.path}`) ??
    await Deno.readFile(`${dir}/${s.path}`);
  const commit = new TextDecoder().decode(await git(dir, "rev-parse", "HEAD") ?? new Uint8Array())
    .trim() || "unknown";
  await Deno.writeFile(`${out}/${s.name}.html.gz`, await gzipBytes(bytes));
  rows.set(s.name, `| ${s.name} | ${s.repository} | ${s.path} | ${commit} | ${s.licence} |`);
  console.log(`${s.name}: ${bytes.length} bytes from ${s.repository} ${commit.slice(0, 12)}`);
}
for (const s of SOURCES) if (rows.has(s.name)) provenance.push(rows.get(s.name)!);
await Deno.writeTextFile(`${out}/PROVENANCE.md`, provenance.join("\n") + "\n");
