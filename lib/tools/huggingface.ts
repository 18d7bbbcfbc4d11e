/**
 * `huggingface` (`HuggingFace`): models, repository files and trees, model
 * search and authors' models on the Hugging Face Hub, from its own API.
 *
 * - `model`: architecture, parameters, checkpoint layout (weight files with
 *   sizes and LFS sha256, shards, formats), effective bits per weight only
 *   when the Hub's numbers support it (else the reason it is withheld), and
 *   the model card;
 * - `quant_audit`: the model view plus one request for the base model, and a
 *   verdict on the quantisation with the figures behind it;
 * - `file`: a text file (numbered lines; Markdown as Markdown); weight files
 *   are described (size, LFS checksum), never downloaded, and with
 *   `safetensors_header=true` their tensor list is read by byte range;
 * - `tree`: files with sizes and LFS checksums;
 * - `search` / `org`: models as records in the configured output format.
 *
 * Model views and files go through the page cache shared with the page
 * tools' interception of huggingface.co URLs.
 *
 * @module
 */
import { z } from "zod";
import { Frontmatter } from "../envelope/frontmatter.ts";
import { renderRecords } from "../envelope/formats.ts";
import type { ToolResult } from "../envelope/response.ts";
import { ToolError } from "../errors.ts";
import { trusted } from "../trust.ts";
import {
  ACCEPTED_FORMS,
  type HfTarget,
  hubUrl,
  listedRecord,
  loadFileDocument,
  loadModelDocument,
  OWNER_PATTERN,
  parseHfQuery,
  quantAuditDocument,
  searchModels,
  SORTS,
  type Warnings,
} from "../sources/huggingface/mod.ts";
import { loadDocument } from "../sources/router.ts";
import { mcpHints, pageFrontmatter, pageUrl, READS_THE_WEB } from "./page_view.ts";
import { defineTool, type ToolContext } from "./registry.ts";
import type { Document } from "../content/document/document.ts";

/** Most results per call. */
export const MAX_LIMIT = 100;
/** Default results per call. */
export const DEFAULT_LIMIT = 10;

const ACTIONS = ["model", "file", "tree", "search", "org", "quant_audit"] as const;

const schema = z.object({
  action: z.enum(ACTIONS),
  query: z.string().max(1000).describe(
    "owner/name[@rev], owner/name/path, a huggingface.co URL, search words or an owner, per action",
  ),
  ref: z.string().max(200).optional().describe(
    "revision: branch, tag, commit or refs/pr/N (default main)",
  ),
  limit: z.number().int().min(1).optional().describe("search, org: results (default 10)"),
  author: z.string().max(96).optional().describe("search: this author's models only"),
  sort: z.enum(SORTS).optional().describe("search, org: sort key, descending (default downloads)"),
  safetensors_header: z.boolean().optional().describe(
    "file, .safetensors: list its tensors by byte-range reads",
  ),
});

/** Arguments of the tool. */
export type HuggingFaceArgs = z.infer<typeof schema>;

const DESCRIPTION = `Models on the Hugging Face Hub through its API.

- model owner/name[@rev] or URL: architecture, parameters, weight files,
  base model, model card;
- quant_audit: the model compared with its base model;
- file owner/name/path: text; weights are never downloaded
  (safetensors_header=true lists tensors);
- tree owner/name[/folder]; search: free text; org: an author's models.
huggingface.co URLs work in {tool:web_fetch_incisive} too. HF_TOKEN unlocks
gated repos.`;

function clampLimit(limit: number | undefined, fm: Frontmatter): number {
  const l = limit ?? DEFAULT_LIMIT;
  if (l > MAX_LIMIT) {
    fm.append("note", trusted.text`limit=${l} was lowered to ${MAX_LIMIT}, the most per call`);
    return MAX_LIMIT;
  }
  return l;
}

async function list(args: HuggingFaceArgs, ctx: ToolContext): Promise<ToolResult> {
  const fm = new Frontmatter();
  fm.set("api", trusted.text`HuggingFace`);
  fm.set("action", trusted.oneOf(ACTIONS, args.action));
  const query = args.query.trim();
  let author = args.author?.trim() || undefined;
  let search: string | undefined;
  if (args.action === "org") {
    const owner = query.replace(/^https?:\/\/(?:www\.)?huggingface\.co\//i, "").replace(/\/$/, "");
    if (!OWNER_PATTERN.test(owner)) {
      throw new ToolError(
        `'${
          query.slice(0, 80)
        }' is not a user or organisation name; give one such as google-bert or https://huggingface.co/google-bert`,
      );
    }
    author = owner;
  } else {
    search = query || undefined;
    if (!search && !author) {
      throw new ToolError("search needs a query (free text such as 'llama 3 gguf') or author=");
    }
  }
  if (author && !OWNER_PATTERN.test(author)) {
    throw new ToolError(`author='${author.slice(0, 80)}' is not a user or organisation name`);
  }
  const sort = args.sort ?? "downloads";
  const limit = clampLimit(args.limit, fm);
  const warnings: Warnings = [];
  const models = await searchModels(
    { search, author, sort, limit },
    { signal: ctx.signal },
    warnings,
  );
  for (const w of warnings) fm.append("warning", w);
  if (search) fm.set("query", trusted.echo(search, 300));
  if (author) fm.set("author", trusted.matching(author, OWNER_PATTERN));
  fm.set("sort", trusted.oneOf(SORTS, sort));
  fm.set("results", models.length);
  if (models.length === 0) {
    fm.append(
      "hint",
      args.action === "org"
        ? trusted
          .text`no public models by this author; check the name (it may have only datasets or Spaces)`
        : trusted.text`no models matched; use fewer words, or drop author=`,
    );
    return ctx.respond({ frontmatter: fm });
  }
  fm.append("hint", trusted.text`action=model query=<id> for a model's card and checkpoint`);
  if (models.length === limit && limit < MAX_LIMIT) {
    fm.append("hint", trusted.text`more may exist: raise limit= (at most ${MAX_LIMIT})`);
  }
  const rendered = renderRecords(models.map(listedRecord), ctx.defaultOutput, { name: "models" });
  return ctx.respond({
    frontmatter: fm,
    fences: [{ content: rendered.text }],
    structured: rendered.structured,
  });
}

function target(args: HuggingFaceArgs): HfTarget {
  const t = parseHfQuery(args.query, args.ref);
  const action = args.action;
  if (action === "tree") {
    if (t.kind === "org") throw new ToolError(`tree needs a repository; ${ACCEPTED_FORMS}`);
    if (t.kind === "model") return { kind: "tree", repo: t.repo, rev: t.rev ?? "main", path: "" };
    return { kind: "tree", repo: t.repo, rev: t.rev, path: t.path };
  }
  if (action === "file") {
    if (t.kind !== "file") {
      throw new ToolError(
        `file needs a path inside the repository, such as owner/name/config.json or a /blob/ URL; ${ACCEPTED_FORMS}`,
      );
    }
    return t;
  }
  // model and quant_audit: a file or tree URL names its repository's model.
  if (t.kind === "org") {
    throw new ToolError(
      `'${
        args.query.trim().slice(0, 80)
      }' names an author, not a model; use action=org for its models, or give owner/name`,
    );
  }
  if (t.kind === "file" && !/^https?:/i.test(args.query.trim())) {
    throw new ToolError(
      `'${
        args.query.trim().slice(0, 80)
      }' has a path after owner/name; use action=file for a file, or give owner/name for the model`,
    );
  }
  return { kind: "model", repo: t.repo, rev: t.rev === "main" && !args.ref ? undefined : t.rev };
}

async function view(args: HuggingFaceArgs, ctx: ToolContext): Promise<ToolResult> {
  const t = target(args);
  const url = hubUrl(t);
  const options = { signal: ctx.signal, maxBytes: 20 * 1024 * 1024 };
  let doc: Document;
  let cached = false;
  if (args.action === "quant_audit" && t.kind === "model") {
    doc = await quantAuditDocument(t.repo, t.rev, url, options);
  } else if (t.kind === "model" && t.rev) {
    // A pinned revision has no page URL of its own the source would read as a model.
    doc = await loadModelDocument(t.repo, t.rev, url, options);
  } else if (t.kind === "file" && args.safetensors_header) {
    // The header read is asked for explicitly: not the cached plain description.
    doc = await loadFileDocument(t.repo, t.rev, t.path, url, { ...options, header: true });
  } else {
    ({ doc, cached } = await loadDocument(url, options));
  }
  const fm = pageFrontmatter(pageUrl(url), doc, cached, false, mcpHints(ctx, "page"));
  fm.set("action", trusted.oneOf(ACTIONS, args.action));
  if (args.safetensors_header && !(t.kind === "file" && t.path.endsWith(".safetensors"))) {
    fm.append("note", trusted.text`safetensors_header applies only to .safetensors files`);
  }
  return ctx.respond({
    frontmatter: fm,
    fences: [{ content: doc.markdown, title: doc.title || undefined }],
  });
}

function run(args: HuggingFaceArgs, ctx: ToolContext): Promise<ToolResult> {
  return args.action === "search" || args.action === "org" ? list(args, ctx) : view(args, ctx);
}

/** The tool. */
export const huggingface = defineTool({
  key: "huggingface",
  names: { desktop: "huggingface", code: "HuggingFace" },
  title: "HuggingFace",
  description: DESCRIPTION,
  inputSchema: schema,
  annotations: READS_THE_WEB,
  handler: (args, ctx) => run(args, ctx),
});
