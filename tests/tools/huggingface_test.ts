/**
 * Hugging Face end to end: the real server over stdio, driven by the SDK
 * client, replaying `fixtures/http/huggingface` (exchanges written from the
 * Hub API documentation, plus the shared real captures when
 * PARKOUR_SHARED_DIR is set). Covers every action of the `huggingface`
 * tool, the interception of huggingface.co URLs by the page tools, the
 * safetensors header read by byte range, and bad input and upstream
 * failures; then the checkpoint analysis and URL parsing as functions.
 */
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/client";
import { sharedDir } from "../support/shared.ts";
import { familyStem, parseHfQuery, parseHfUrl } from "../../lib/sources/huggingface/mod.ts";
import {
  analyzeQuant,
  auditAgainstBase,
  type HfSibling,
  partitionCheckpoints,
  quantSummary,
} from "../../lib/sources/huggingface/quant.ts";
import {
  type Answer,
  asList,
  callTool,
  connectServer,
  frontmatterText,
} from "../support/mcp_client.ts";

const SHARED = sharedDir() !== undefined;
if (!SHARED) {
  console.log(
    "huggingface_test: PARKOUR_SHARED_DIR is not set; the tests on real Hub captures are ignored",
  );
}

const TOKEN = "hf_TESTtokenNEVERshown0123456789";

const connect = (env: Record<string, string> = {}, profile = "desktop"): Promise<Client> =>
  connectServer({ args: ["--profile", profile], env, name: "huggingface-test" });
const call = (c: Client, args: Record<string, unknown>, name = "huggingface"): Promise<Answer> =>
  callTool(c, name, args);
const list = (value: unknown): string[] => asList(value).map(String);

const client = await connect();
const jsonClient = await connect({ PARKOUR_DEFAULT_OUTPUT: "json" }, "code");
const tokenClient = await connect({ HF_TOKEN: TOKEN });

Deno.test("huggingface: listed in both profiles with its actions", async () => {
  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === "huggingface");
  assert.ok(tool, "huggingface is listed");
  for (const word of ["quant_audit", "safetensors_header", "HF_TOKEN", "never downloaded"]) {
    assert.ok(tool.description?.includes(word), `description mentions ${word}`);
  }
  assert.match(tool.description ?? "", /web_fetch_incisive/);
  const { tools: codeTools } = await jsonClient.listTools();
  const code = codeTools.find((t) => t.name === "HuggingFace");
  assert.ok(code, "PascalCase name in the code profile");
  assert.match(code.description ?? "", /WebFetchIncisive/);
});

Deno.test("huggingface model: architecture, parameters, checkpoint layout, bits per weight", async () => {
  const a = await call(client, { action: "model", query: "acme/tiny-llama-bf16" });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.source, "https://huggingface.co/acme/tiny-llama-bf16");
  assert.equal(a.fm.api, "HuggingFace");
  assert.equal(a.fm.action, "model");
  assert.equal(a.fm.content_type, "record");
  assert.equal(a.fm.repo, "acme/tiny-llama-bf16");
  assert.equal(a.fm.model_type, "llama");
  assert.equal(a.fm.architecture, "LlamaForCausalLM");
  assert.equal(a.fm.params, "1.1B");
  assert.equal(a.fm.size, "2.05 GiB");
  assert.equal(a.fm.weights, "sharded — 2 shards, model.safetensors.index.json present");
  assert.equal(a.fm.bits_per_weight, 16);
  assert.equal(a.fm.dtype_fingerprint, "BF16 1.1B");
  assert.equal(a.fm.quant, undefined, "an unquantised model has no quant line");
  assert.equal(a.fm.gated, false);
  assert.equal(a.fm.revision, "1111111111111111111111111111111111111111");
  assert.equal(a.fm.last_modified, "2025-03-04");
  assert.equal(a.fm.downloads, 12345);
  const hints = list(a.fm.hint);
  assert.ok(hints.some((h) => h.includes("acme/tiny-llama-bf16/config.json")));
  assert.ok(hints.some((h) => h.includes("model.safetensors.index.json")));
  assert.ok(
    hints.some((h) =>
      h.includes("model-00001-of-00002.safetensors' safetensors_header=true") &&
      h.includes("Range: bytes=0-7")
    ),
    "the range-read recipe names the first shard",
  );
  assert.equal(a.fm.see_also, undefined, "no base model, not a quant: no see_also");
  assert.ok(
    a.body.includes(
      `- model-00001-of-00002.safetensors — 1.86 GiB — sha256 ${"a".repeat(64)}`,
    ),
    "weight files listed with size and LFS sha256",
  );
  assert.ok(a.body.includes("## Model card"));
  assert.ok(a.body.includes("# Tiny Llama (BF16)"));
  assert.ok(!a.body.some((l) => l.startsWith("license:")), "card YAML stripped");
  const head = frontmatterText(a.text);
  assert.ok(!head.includes("IGNORE PREVIOUS"), "card text stays in the fence");
  assert.ok(!head.includes("Tiny Llama"), "card title stays in the fence");
});

Deno.test("huggingface model: a quant whose count disagrees with its bytes withholds bpw, and a precision variant is not counted", async () => {
  const a = await call(client, { action: "model", query: "acme/tiny-llama-awq" });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.quant, "awq · declared 4-bit");
  assert.equal(a.fm.bits_per_weight, undefined);
  assert.ok(
    list(a.fm.note).some((n) =>
      n.startsWith("bits per weight withheld:") && n.includes("more than twice the declared 4-bit")
    ),
    a.text,
  );
  assert.equal(a.fm.weights, "1 unsharded file", "model.fp16.safetensors is a precision variant");
  assert.equal(a.fm.size, "667.6 MiB");
  assert.equal(a.fm.base_model, "acme/tiny-llama-bf16");
  assert.equal(a.fm.lineage_relation, "quantized");
  const see = list(a.fm.see_also);
  assert.ok(
    see.includes("huggingface action=model query='acme/tiny-llama-bf16' for the base model"),
    see.join("\n"),
  );
  assert.ok(
    see.includes(
      "huggingface action=search query='tiny-llama' for sibling quants of the same family",
    ),
  );
  assert.ok(list(a.fm.hint).some((h) => h.includes("action=quant_audit")));
});

Deno.test("huggingface model: packed U32 storage withholds bpw; gating and auto_map warned", async () => {
  const a = await call(client, { action: "model", query: "acme/tiny-llama-mlx-4bit" });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.bits_per_weight, undefined);
  assert.ok(list(a.fm.note).some((n) => n.includes("packed storage")), a.text);
  assert.equal(a.fm.weight_format, "affine (U32-packed integers)");
  assert.equal(a.fm.dtype_fingerprint, "U32 137.5M + BF16 34.0M");
  assert.equal(a.fm.gated, "manual");
  const warnings = list(a.fm.warning);
  assert.ok(warnings.some((w) => w.includes("gated")));
  assert.ok(warnings.some((w) => w.includes("trust_remote_code=True")));
  assert.ok(a.body.includes("_No model card (README.md) in this repo._"));
});

Deno.test("huggingface quant_audit: one request for the base, a verdict and its figures", async () => {
  const a = await call(client, {
    action: "quant_audit",
    query: "https://huggingface.co/acme/tiny-llama-awq",
  });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.action, "quant_audit");
  assert.match(
    String(a.fm.quant_audit),
    /^consistent with the declared 4-bit: effective 5\.09 bits per base parameter/,
  );
  const notes = list(a.fm.note);
  assert.ok(notes.includes("audit: base parameters: 1.1B"));
  assert.ok(notes.includes("audit: base checkpoint: 2.05 GiB, 16.00 bits per parameter"));
  assert.ok(notes.some((n) => n.includes("(31.8% of the base's size)")));
  assert.ok(
    !list(a.fm.hint).some((h) => h.includes("action=quant_audit")),
    "no hint to do it again",
  );
  assert.ok(a.body.includes("## Quant audit"));

  const mlx = await call(client, { action: "quant_audit", query: "acme/tiny-llama-mlx-4bit" });
  assert.equal(mlx.isError, false, mlx.text);
  assert.match(String(mlx.fm.quant_audit), /4\.49 bits per base parameter/);
  assert.ok(list(mlx.fm.note).some((n) => n.includes("reflects packed storage")));

  const none = await call(client, { action: "quant_audit", query: "acme/tiny-llama-bf16" });
  assert.equal(none.isError, false, none.text);
  assert.match(
    String(none.fm.quant_audit),
    /^verdict unavailable: the repo declares no base model/,
  );
});

Deno.test("huggingface model: a pinned revision", async () => {
  const a = await call(client, { action: "model", query: "acme/tiny-llama-bf16@v1.0" });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.revision_pinned, "v1.0");
  assert.equal(a.fm.revision, "2222222222222222222222222222222222222222");
  const b = await call(client, { action: "model", query: "acme/tiny-llama-bf16", ref: "v1.0" });
  assert.equal(b.fm.revision_pinned, "v1.0");
  const bad = await call(client, { action: "model", query: "acme/tiny-llama-bf16@bad rev!" });
  assert.equal(bad.isError, true);
  assert.match(bad.text, /is not a revision; give a branch, tag or commit/);
});

Deno.test("huggingface file: config.json summarised, numbered lines", async () => {
  const a = await call(client, { action: "file", query: "acme/tiny-llama-bf16/config.json" });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.source, "https://huggingface.co/acme/tiny-llama-bf16/blob/main/config.json");
  assert.equal(a.fm.model_type, "llama");
  assert.equal(a.fm.checkpoint_format, "bfloat16 (unquantized)");
  assert.equal(a.fm.num_hidden_layers, 22);
  assert.equal(a.fm.kv_heads, "4 (GQA 8:1)");
  assert.ok(a.body.some((l) => /^\s*1 {2}\{$/.test(l)), "pretty-printed with line numbers");
  assert.ok(a.body.some((l) => l.includes('"num_key_value_heads": 4')));
});

Deno.test("huggingface file: a shard map by URL", async () => {
  const a = await call(client, {
    action: "file",
    query: "https://huggingface.co/acme/tiny-llama-bf16/blob/main/model.safetensors.index.json",
  });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.index_kind, "safetensors shard map");
  assert.equal(a.fm.tensor_keys, 4);
  assert.equal(a.fm.shards, 2);
  assert.equal(a.fm.declared_total_size, "2.05 GiB");
});

Deno.test("huggingface file: weight files are described, never downloaded; the header by byte range", async () => {
  const plain = await call(client, {
    action: "file",
    query: "acme/tiny-llama-bf16/model-00001-of-00002.safetensors",
  });
  assert.equal(plain.isError, false, plain.text);
  assert.equal(plain.fm.content, "not transferred — weight payload");
  assert.equal(plain.fm.size_bytes, 1_999_000_000);
  assert.equal(plain.fm.lfs_sha256, "a".repeat(64));
  assert.equal(plain.fm.tensors, undefined, "no header read unless asked");
  assert.ok(list(plain.fm.hint).some((h) => h.includes("safetensors_header=true")));

  const h = await call(client, {
    action: "file",
    query: "acme/tiny-llama-bf16/model-00001-of-00002.safetensors",
    safetensors_header: true,
  });
  assert.equal(h.isError, false, h.text);
  assert.equal(h.fm.tensors, 3);
  assert.equal(h.fm.header_bytes, 352);
  assert.equal(h.fm.dtypes, "BF16");
  assert.ok(h.body.includes("- model.embed_tokens.weight BF16 [32000, 2048]"));
  assert.ok(h.body.includes("- format: pt"));

  const bad = await call(client, {
    action: "file",
    query: "acme/tiny-llama-bf16/model-00002-of-00002.safetensors",
    safetensors_header: true,
  });
  assert.equal(bad.isError, true);
  assert.match(bad.text, /over the 8388608-byte limit this tool reads/);
});

Deno.test("huggingface file: text, Markdown, missing and binary files", async () => {
  const md = await call(client, { action: "file", query: "acme/tiny-llama-bf16/README.md" });
  assert.equal(md.isError, false, md.text);
  assert.equal(md.fm.content_type, "markdown");
  assert.ok(md.body.includes("## Training"));
  const missing = await call(client, { action: "file", query: "acme/tiny-llama-bf16/nope.txt" });
  assert.equal(missing.isError, true);
  assert.match(missing.text, /Not found on the Hub: no file 'nope.txt' at revision 'main'/);
  assert.match(missing.text, /action=tree/);
  const bin = await call(client, { action: "file", query: "acme/tiny-llama-bf16/assets/logo.png" });
  assert.equal(bin.isError, true);
  assert.match(bin.text, /is a binary file/);
  const noPath = await call(client, { action: "file", query: "acme/tiny-llama-bf16" });
  assert.equal(noPath.isError, true);
  assert.match(noPath.text, /file needs a path inside the repository/);
  const dots = await call(client, { action: "file", query: "acme/tiny-llama-bf16/../x" });
  assert.equal(dots.isError, true);
  assert.match(dots.text, /'\.\.' segments/);
});

Deno.test("huggingface tree: files with sizes and LFS checksums", async () => {
  const a = await call(client, { action: "tree", query: "acme/tiny-llama-bf16" });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.files, 9);
  assert.equal(a.fm.total_size, "2.05 GiB");
  assert.equal(a.fm.revision, "main");
  assert.ok(a.body.includes("- model-00001-of-00002.safetensors — 1.86 GiB — lfs:aaaaaaaaaaaa"));
  assert.ok(a.body.includes("- config.json — 700 bytes"));
  const missing = await call(client, { action: "tree", query: "acme/tiny-llama-bf16/nope" });
  assert.equal(missing.isError, true);
  assert.match(missing.text, /no folder or revision 'nope' at revision 'main'/);
  const org = await call(client, { action: "tree", query: "https://huggingface.co/acme" });
  assert.equal(org.isError, true);
  assert.match(org.text, /tree needs a repository/);
});

Deno.test("huggingface search and org: records in the output format", async () => {
  const a = await call(client, { action: "search", query: "tiny-llama" });
  assert.equal(a.isError, false, a.text);
  assert.equal(a.fm.results, 3);
  assert.equal(a.fm.sort, "downloads");
  assert.equal(a.fm.shelf, undefined, "search results are not shelved");
  assert.ok(a.body.some((l) => l.includes("| acme/tiny-llama-mlx-4bit | 50 | 1 | mlx |")));
  const j = await call(jsonClient, {
    action: "search",
    query: "tiny-llama",
    author: "acme",
    sort: "likes",
    limit: 2,
  }, "HuggingFace");
  assert.equal(j.isError, false, j.text);
  const models = (j.structured as { models: { id: string; likes: number }[] }).models;
  assert.deepEqual(models.map((m) => m.id), ["acme/tiny-llama-bf16", "acme/tiny-llama-awq"]);
  assert.equal(j.fm.author, "acme");
  assert.equal(j.fm.sort, "likes");
  const none = await call(client, { action: "search", query: "zzzz-nothing" });
  assert.equal(none.isError, false);
  assert.equal(none.fm.results, 0);
  assert.match(list(none.fm.hint)[0], /no models matched/);
  const empty = await call(client, { action: "search", query: "  " });
  assert.equal(empty.isError, true);
  assert.match(empty.text, /search needs a query/);

  const org = await call(client, { action: "org", query: "acme" });
  assert.equal(org.isError, false, org.text);
  assert.equal(org.fm.author, "acme");
  assert.equal(org.fm.results, 3);
  const badOrg = await call(client, { action: "org", query: "not an org!" });
  assert.equal(badOrg.isError, true);
  assert.match(badOrg.text, /is not a user or organisation name/);
});

Deno.test("huggingface errors: 401 ambiguity, 403, 404, 429, 503, malformed JSON", async () => {
  const gated = await call(client, { action: "model", query: "acme/secret-model" });
  assert.equal(gated.isError, true);
  assert.match(gated.text, /The repo is gated, private, or does not exist/);
  assert.match(gated.text, /identical 401 for all three/);
  assert.match(gated.text, /Set HF_TOKEN/);

  const withToken = await call(tokenClient, { action: "model", query: "acme/secret-model" });
  assert.equal(withToken.isError, true);
  assert.match(withToken.text, /the token in HF_TOKEN .* was refused/);
  assert.ok(!withToken.text.includes(TOKEN), "the token is never shown");

  const denied = await call(client, { action: "model", query: "acme/gated-model" });
  assert.equal(denied.isError, true);
  assert.match(denied.text, /gated repo and the token has not been granted access/);

  const missing = await call(client, { action: "model", query: "acme/missing" });
  assert.equal(missing.isError, true);
  assert.match(missing.text, /Not found on the Hub: 'acme\/missing'/);
  assert.match(missing.text, /action=search/);

  const busy = await call(client, { action: "model", query: "acme/busy" });
  assert.equal(busy.isError, true);
  assert.match(busy.text, /HTTP 429 .* resets in 120 s/);

  const down = await call(client, { action: "model", query: "acme/down" });
  assert.equal(down.isError, true);
  assert.match(down.text, /the Hub failed with HTTP 503/);

  const broken = await call(client, { action: "model", query: "acme/broken" });
  assert.equal(broken.isError, true);
  assert.match(broken.text, /malformed JSON/);
});

Deno.test("huggingface errors: malformed ids and out-of-scope URLs show the accepted forms", async () => {
  for (const query of ["not a model", "justone", "/x", "a/b c", "ftp://huggingface.co/a/b"]) {
    const a = await call(client, { action: "model", query });
    assert.equal(a.isError, true, query);
    assert.match(a.text, /accepted forms: owner\/name/, query);
  }
  const ds = await call(client, {
    action: "model",
    query: "https://huggingface.co/datasets/acme/toy",
  });
  assert.equal(ds.isError, true);
  assert.match(
    ds.text,
    /names a dataset; Hugging Face datasets, Spaces and site pages are out of scope/,
  );
  const other = await call(client, { action: "model", query: "https://example.org/a/b" });
  assert.equal(other.isError, true);
  assert.match(other.text, /not a Hugging Face model URL/);
  const org = await call(client, { action: "model", query: "https://huggingface.co/acme" });
  assert.equal(org.isError, true);
  assert.match(org.text, /names an author, not a model; use action=org/);
});

Deno.test("huggingface: a low rate-limit budget is warned about", async () => {
  const a = await call(client, { action: "model", query: "acme/low-budget" });
  assert.equal(a.isError, false, a.text);
  assert.ok(
    list(a.fm.warning).includes(
      "HuggingFace rate limit low: 12 of 500 requests remaining on the 'api' bucket, resets in 140s. Set HF_TOKEN to raise the limit.",
    ),
    a.text,
  );
  assert.ok(
    list(a.fm.note).some((n) => n.includes("no safetensors parameter count")),
    "no count to divide by",
  );
});

Deno.test("huggingface interception: model, file, tree and author URLs; datasets take the web path", async () => {
  const model = await call(
    client,
    { url: "https://huggingface.co/acme/tiny-llama-awq" },
    "web_fetch_incisive",
  );
  assert.equal(model.isError, false, model.text);
  assert.equal(model.fm.api, "HuggingFace");
  assert.equal(model.fm.content_type, "record");
  assert.equal(model.fm.quant, "awq · declared 4-bit");
  const again = await call(client, {
    url: "https://huggingface.co/acme/tiny-llama-awq",
    search: "AWQ",
  }, "web_fetch_incisive");
  assert.equal(again.fm.cached, true, "a follow-up call is served from the page cache");

  const file = await call(
    client,
    { url: "https://huggingface.co/acme/tiny-llama-bf16/blob/main/generation_config.json" },
    "web_fetch_incisive",
  );
  assert.equal(file.isError, false, file.text);
  assert.equal(file.fm.repo, "acme/tiny-llama-bf16");
  assert.ok(file.body.some((l) => l.includes('"eos_token_id": 2')));

  const weight = await call(
    client,
    {
      url:
        "https://huggingface.co/acme/tiny-llama-bf16/resolve/main/model-00001-of-00002.safetensors",
    },
    "web_fetch_incisive",
  );
  assert.equal(weight.isError, false, weight.text);
  assert.equal(weight.fm.content, "not transferred — weight payload");

  const tree = await call(
    client,
    { url: "https://huggingface.co/acme/tiny-llama-bf16/tree/main" },
    "web_fetch_sections",
  );
  assert.equal(tree.isError, false, tree.text);
  assert.equal(tree.fm.files, 9);

  const org = await call(client, { url: "https://huggingface.co/acme" }, "web_fetch_incisive");
  assert.equal(org.isError, false, org.text);
  assert.equal(org.fm.author, "acme");
  assert.ok(org.body.some((l) => l.startsWith("- **acme/tiny-llama-bf16** — 12345 downloads")));

  const ds = await call(
    client,
    { url: "https://huggingface.co/datasets/acme/toy" },
    "web_fetch_incisive",
  );
  assert.equal(ds.isError, false, ds.text);
  assert.equal(ds.fm.content_type, "html", "datasets are read as web pages");
  assert.equal(ds.fm.api, undefined);
});

Deno.test({
  name: "huggingface model on a real capture: bert-base-uncased (no file sizes: bpw withheld)",
  ignore: !SHARED,
  async fn() {
    const a = await call(client, { action: "model", query: "google-bert/bert-base-uncased" });
    assert.equal(a.isError, false, a.text);
    assert.equal(a.fm.architecture, "BertForMaskedLM");
    assert.equal(a.fm.model_type, "bert");
    assert.equal(a.fm.params, "110.1M");
    assert.equal(a.fm.dtype_fingerprint, "F32 110.1M");
    assert.equal(a.fm.library, "transformers");
    assert.equal(a.fm.pipeline_tag, "fill-mask");
    assert.equal(a.fm.revision, "86b5e0934494bd15c9632b12f734a8a67f723594");
    assert.equal(a.fm.bits_per_weight, undefined);
    assert.ok(list(a.fm.note).some((n) => n.includes("gave no sizes")), a.text);
    const formats = String(a.fm.file_formats);
    assert.ok(formats.includes("safetensors") && formats.includes("pytorch (.bin)"), formats);
    assert.ok(a.body.some((l) => l.startsWith("- model.safetensors — size unknown")));
  },
});

Deno.test({
  name: "huggingface model on a real capture: roberta-base-squad2's base model from the card data",
  ignore: !SHARED,
  async fn() {
    const a = await call(client, {
      action: "model",
      query: "https://huggingface.co/deepset/roberta-base-squad2",
    });
    assert.equal(a.isError, false, a.text);
    assert.equal(a.fm.architecture, "RobertaForQuestionAnswering");
    assert.equal(a.fm.params, "124.1M");
    assert.equal(a.fm.dtype_fingerprint, "F32 124.1M");
    assert.equal(a.fm.base_model, "FacebookAI/roberta-base");
    assert.ok(
      list(a.fm.see_also).includes(
        "huggingface action=model query='FacebookAI/roberta-base' for the base model",
      ),
    );
  },
});

// ---------------------------------------------------------------------------
// The analysis and the URL shapes as functions.

const s = (rfilename: string, size = 1000): HfSibling => ({ rfilename, size });

Deno.test("huggingface analysis: checkpoint sets, variants, folded series, subfolders", () => {
  const sets = partitionCheckpoints([
    s("model.safetensors"),
    s("model.fp16.safetensors"),
    s("model-00001-of-00002.safetensors"),
    s("model-00002-of-00002.safetensors"),
    s("onnx/model.safetensors"),
    s("a-00001-of-00002.safetensors"),
    s("b-00002-of-00002.safetensors", 5),
  ]);
  // The series of two stems is folded into the singles; the fp16 variant is dropped.
  assert.deepEqual(
    sets.map((x) => [x.dir, x.group, x.files.map((f) => f.rfilename).sort()]),
    [
      ["", "of-2", ["model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"]],
      ["", "singles", [
        "a-00001-of-00002.safetensors",
        "b-00002-of-00002.safetensors",
        "model.safetensors",
      ]],
      ["onnx", "singles", ["onnx/model.safetensors"]],
    ],
  );
  const a = analyzeQuant({
    siblings: [s("model.safetensors", 2000), s("unet/diffusion_pytorch_model.safetensors")],
    safetensors: { parameters: { F16: 1000 }, total: 1000 },
  });
  assert.equal(a.bpw, 16);
  const diffusers = analyzeQuant({
    siblings: [s("model_index.json"), s("unet/diffusion_pytorch_model.safetensors", 2000)],
    safetensors: { parameters: { F16: 1000 }, total: 1000 },
  });
  assert.equal(diffusers.bpw, undefined);
  assert.match(diffusers.withheld ?? "", /diffusers pipeline/);
});

Deno.test("huggingface analysis: E8M0-scaled packing, empty quant block, mixed precision", () => {
  const mx = analyzeQuant({
    siblings: [s("model.safetensors", 600)],
    safetensors: { parameters: { I8: 500, F8_E8M0: 100 }, total: 600 },
  });
  assert.match(mx.withheld ?? "", /E8M0 scale count/);
  assert.equal(mx.nativeFormat, "FP4-packed (E8M0 scales)");
  const empty = analyzeQuant({
    siblings: [s("model.safetensors", 2000)],
    safetensors: { parameters: { BF16: 1000 }, total: 1000 },
    config: { quantization_config: {} },
  });
  assert.ok(empty.warnings.some((w) => w.includes("no bits")));
  const mixed = analyzeQuant({
    siblings: [s("model.safetensors", 400)],
    safetensors: { parameters: { I8: 1000 }, total: 1000 },
    config: { quantization_config: { quant_method: "gptq", bits: 4 } },
  });
  assert.equal(mixed.bpw, 3.2);
  assert.equal(quantSummary(mixed), "gptq · declared 4-bit · effective 3.20 bpw · mixed precision");
  const tooBig = analyzeQuant({
    siblings: [s("model.safetensors", 3000)],
    safetensors: { parameters: { BF16: 1000 }, total: 1000 },
    config: { quantization_config: { quant_method: "gptq", bits: 4 } },
  });
  assert.equal(tooBig.bpw, undefined);
  assert.match(tooBig.withheld ?? "", /more than twice the declared 4-bit/);
  const upcast = auditAgainstBase(
    { params: 1000, bytes: 2000, dtypes: { BF16: 1000 }, bits: 4 },
    { params: 1000, bytes: 2000, dtypes: { BF16: 1000 } },
  );
  assert.match(upcast.verdict, /^not smaller than the base/);
  const stripped = auditAgainstBase(
    { params: 100, bytes: 200, dtypes: { U32: 100 }, bits: 4 },
    { params: 1000, bytes: 2000, dtypes: { BF16: 1000 } },
  );
  assert.match(
    stripped.verdict,
    /below the declared 4-bit: parts of the base model may be missing/,
  );
});

Deno.test("huggingface URLs and ids: every shape", () => {
  const u = (x: string) => parseHfUrl(new URL(x));
  assert.deepEqual(u("https://huggingface.co/acme"), { kind: "org", owner: "acme" });
  assert.deepEqual(u("https://huggingface.co/acme/m"), { kind: "model", repo: "acme/m" });
  assert.deepEqual(u("https://huggingface.co/acme/m/discussions"), {
    kind: "model",
    repo: "acme/m",
  });
  assert.deepEqual(u("https://huggingface.co/acme/m/commit/86b5e09"), {
    kind: "model",
    repo: "acme/m",
    rev: "86b5e09",
  });
  assert.deepEqual(u("https://huggingface.co/acme/m/tree/main/onnx"), {
    kind: "tree",
    repo: "acme/m",
    rev: "main",
    path: "onnx",
  });
  assert.deepEqual(u("https://huggingface.co/acme/m/blob/refs/pr/3/config.json"), {
    kind: "file",
    repo: "acme/m",
    rev: "refs/pr/3",
    path: "config.json",
  });
  assert.deepEqual(u("https://huggingface.co/acme/m/resolve/main/a/b.safetensors"), {
    kind: "file",
    repo: "acme/m",
    rev: "main",
    path: "a/b.safetensors",
  });
  for (const declined of ["datasets/a/b", "spaces/a/b", "docs/hub", "blog/x", "papers/2301.1"]) {
    assert.equal(u(`https://huggingface.co/${declined}`)?.kind, "declined", declined);
  }
  assert.equal(u("https://github.com/acme/m"), undefined);
  assert.deepEqual(parseHfQuery("acme/m@v2"), { kind: "model", repo: "acme/m", rev: "v2" });
  assert.deepEqual(parseHfQuery("acme/m/x/y.json", "dev"), {
    kind: "file",
    repo: "acme/m",
    rev: "dev",
    path: "x/y.json",
  });
  assert.equal(familyStem("acme/Llama-3-8B-Instruct-4bit-mlx"), "Llama-3-8B-Instruct");
  assert.equal(familyStem("acme/model-Q4_K_M-GGUF"), "model");
});

Deno.test({
  name: "huggingface: shutdown",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await client.close();
    await jsonClient.close();
    await tokenClient.close();
  },
});
