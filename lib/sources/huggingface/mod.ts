/**
 * Hugging Face Hub: model ids and URLs, the Hub API client, and the
 * Documents of models, repository files, file trees and authors' models.
 *
 * - Ids: `owner/name`, `owner/name@rev`, `owner/name/path/in/repo` (files
 *   and trees), or any huggingface.co URL. Datasets, Spaces and the site's
 *   own pages (docs, blog, ...) are not models: the page tools read them on
 *   the generic web path and the tool refuses them.
 * - API: `GET https://huggingface.co/api/models/<repo>` (with file sizes and
 *   LFS checksums), `/api/models/<repo>/tree/<rev>/<dir>`, `/api/models?…`;
 *   files from `/<repo>/resolve/<rev>/<path>` with a byte cap. All through
 *   the one network door (1 s spacing for huggingface.co). The token comes
 *   from `HF_TOKEN` or `~/.config/parkour/hf_token` and is only ever sent as
 *   an Authorization header (dropped on redirects to other hosts).
 * - Errors: 401 is ambiguous on the Hub (gated, private and missing repos
 *   look alike without a token) and says so; 403, 404, 400, 429 (with the
 *   reset time), 5xx and malformed JSON each get a message saying what to do.
 * - Weight files are never downloaded; a safetensors header can be read by
 *   byte range (see `huggingface_safetensors.ts`).
 *
 * @module
 */
import { ContentError, ToolError } from "../../errors.ts";
import { codeDocument } from "../../content/code/files.ts";
import { Document, type DocumentFact } from "../../content/document/document.ts";
import { type Trusted, trusted } from "../../trust.ts";
import { callTool, messageFact } from "../../hint.ts";
import { credential } from "../../config.ts";
import { defaultNet } from "../../net/default.ts";
import { NetError } from "../../net/errors.ts";
import type { FetchResult } from "../../net/fetch.ts";
import {
  analyzeQuant,
  auditAgainstBase,
  describeSet,
  type HfSibling,
  humanBytes,
  humanCount,
  isWeightFile,
  partitionCheckpoints,
  quantBlock,
  quantSummary,
  type SafetensorsSummary,
  sizeOf,
} from "./quant.ts";
import {
  headerLength,
  headerMarkdown,
  MAX_HEADER_BYTES,
  parseHeader,
  type SafetensorsHeader,
} from "./safetensors.ts";
import type { LoadOptions, Source } from "../source.ts";

/** The Hub. */
export const HUB = "https://huggingface.co";
/** A repository id as the Hub allows it. */
export const REPO_PATTERN = /^[A-Za-z0-9][\w.-]{0,95}\/[\w.-]{1,96}$/;
/** An owner (user or organisation) name. */
export const OWNER_PATTERN = /^[A-Za-z0-9][\w.-]{0,95}$/;
/** Identifiers from the Hub promoted to the frontmatter (model types, libraries). */
export const IDENT_PATTERN = /^[A-Za-z0-9][\w.-]{0,63}$/;
/** A revision: branch, tag, commit or `refs/pr/N`. */
export const REV_PATTERN = /^(?:refs\/(?:pr|convert)\/[\w.-]{1,64}|[\w.-]{1,128})$/;
const SHA_PATTERN = /^[0-9a-f]{40}$/;
const SHA256_PATTERN = /^[0-9a-f]{64}$/;
const DTYPE_PATTERN = /^[A-Z][A-Z0-9_]{0,15}$/;

/** First path segments of huggingface.co that are not owners. */
export const RESERVED = new Set([
  "datasets",
  "spaces",
  "models",
  "docs",
  "blog",
  "learn",
  "papers",
  "collections",
  "posts",
  "login",
  "join",
  "settings",
  "pricing",
  "notifications",
  "new",
  "organizations",
  "chat",
  "tasks",
  "inference",
  "api",
  "search",
  "welcome",
  "enterprise",
  "changelog",
  "terms-of-service",
  "privacy",
  "content-guidelines",
  "code-of-conduct",
  "brand",
  "static-proxy",
  "front",
  "avatars",
  "oauth",
  "hf-mirror",
]);

/** The forms errors show. */
export const ACCEPTED_FORMS =
  "accepted forms: owner/name (google-bert/bert-base-uncased), owner/name@revision, owner/name/path/to/file for files and folders, or a huggingface.co URL such as https://huggingface.co/google-bert/bert-base-uncased/blob/main/config.json";

/** Most bytes of a text file read. */
export const MAX_FILE_BYTES = 1_000_000;
/** Cap on API answers (model info and file lists of large repos run to megabytes). */
export const API_MAX_BYTES = 20 * 1024 * 1024;
/** Most characters of a model card kept. */
export const MAX_CARD_CHARS = 12_000;
/** Most files listed by a tree. */
export const MAX_TREE_FILES = 2_000;

/** The Hub token: `HF_TOKEN`, else `hf_token` in the config folder. Never logged or shown. */
export function hfToken(): string | undefined {
  return credential("HF_TOKEN", "hf_token");
}

// ---------------------------------------------------------------------------
// What a URL or query names.

/** A thing on the Hub. */
export type HfTarget =
  | { kind: "org"; owner: string }
  | { kind: "model"; repo: string; rev?: string }
  | { kind: "tree"; repo: string; rev: string; path: string }
  | { kind: "file"; repo: string; rev: string; path: string };

/** Why a huggingface.co URL is not read by this source. */
export type Declined = { kind: "declined"; what: string };

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Splits `rev/path...` where the revision may be `refs/pr/N`. */
function splitRev(parts: string[]): { rev: string; rest: string[] } | undefined {
  if (parts.length === 0) return undefined;
  if (parts[0] === "refs" && parts.length >= 3) {
    return { rev: parts.slice(0, 3).join("/"), rest: parts.slice(3) };
  }
  return { rev: parts[0], rest: parts.slice(1) };
}

/** What a huggingface.co URL names, a declined kind (dataset, space, site page), or undefined. */
export function parseHfUrl(url: URL): HfTarget | Declined | undefined {
  const host = url.hostname.toLowerCase();
  if (host !== "huggingface.co" && host !== "www.huggingface.co" && host !== "hf.co") {
    return undefined;
  }
  const parts = url.pathname.split("/").filter(Boolean).map(decode);
  if (parts.length === 0) return { kind: "declined", what: "the Hub's home page" };
  const first = parts[0].toLowerCase();
  if (RESERVED.has(first)) {
    return {
      kind: "declined",
      what: first === "datasets" ? "a dataset" : first === "spaces" ? "a Space" : "a site page",
    };
  }
  if (!OWNER_PATTERN.test(parts[0])) return undefined;
  if (parts.length === 1) return { kind: "org", owner: parts[0] };
  const repo = `${parts[0]}/${parts[1]}`;
  if (!REPO_PATTERN.test(repo)) return undefined;
  const tab = parts[2];
  if (tab === "tree") {
    const r = splitRev(parts.slice(3));
    if (!r) return { kind: "tree", repo, rev: "main", path: "" };
    return { kind: "tree", repo, rev: r.rev, path: r.rest.join("/") };
  }
  if (tab === "blob" || tab === "resolve" || tab === "raw") {
    const r = splitRev(parts.slice(3));
    if (!r || r.rest.length === 0) return { kind: "tree", repo, rev: r?.rev ?? "main", path: "" };
    return { kind: "file", repo, rev: r.rev, path: r.rest.join("/") };
  }
  if (tab === "commit" && parts[3] && /^[0-9a-f]{7,40}$/.test(parts[3])) {
    return { kind: "model", repo, rev: parts[3] };
  }
  return { kind: "model", repo };
}

/**
 * Reads a query: a URL, `owner/name[@rev]`, or `owner/name/path` (the path
 * makes it a file or folder). Throws {@link ToolError} with the accepted
 * forms otherwise.
 */
export function parseHfQuery(query: string, ref?: string): HfTarget {
  const q = query.trim();
  if (/^https?:\/\//i.test(q)) {
    let url: URL;
    try {
      url = new URL(q);
    } catch {
      throw new ToolError(`'${q.slice(0, 100)}' is not a valid URL; ${ACCEPTED_FORMS}`);
    }
    const t = parseHfUrl(url);
    if (!t) {
      throw new ToolError(
        `'${q.slice(0, 100)}' is not a Hugging Face model URL; ${ACCEPTED_FORMS}`,
      );
    }
    if (t.kind === "declined") {
      throw new ToolError(
        `the URL names ${t.what}; Hugging Face datasets, Spaces and site pages are out of scope for this tool — read them with web_fetch_incisive`,
      );
    }
    if (ref && (t.kind === "model" || t.kind === "tree" || t.kind === "file")) {
      return { ...t, rev: checkRev(ref) } as HfTarget;
    }
    return t;
  }
  const at = q.indexOf("@");
  const main = at >= 0 ? q.slice(0, at) : q;
  const rev = ref ?? (at >= 0 ? q.slice(at + 1) : undefined);
  const parts = main.split("/").filter((p) => p !== "");
  if (parts.length < 2 || !REPO_PATTERN.test(`${parts[0]}/${parts[1]}`) || /\s/.test(main)) {
    throw new ToolError(`'${q.slice(0, 100)}' is not a model id; ${ACCEPTED_FORMS}`);
  }
  const repo = `${parts[0]}/${parts[1]}`;
  if (rev !== undefined) checkRev(rev);
  if (parts.length === 2) return { kind: "model", repo, rev };
  const path = parts.slice(2).join("/");
  if (parts.slice(2).some((p) => p === ".." || p === ".")) {
    throw new ToolError(
      `the path '${
        path.slice(0, 100)
      }' has '.' or '..' segments; give a path inside the repository`,
    );
  }
  return { kind: "file", repo, rev: rev ?? "main", path };
}

function checkRev(rev: string): string {
  if (!REV_PATTERN.test(rev)) {
    throw new ToolError(
      `'${
        rev.slice(0, 80)
      }' is not a revision; give a branch, tag or commit (main, v1.0, 86b5e09…) or refs/pr/N`,
    );
  }
  return rev;
}

/** A path with each segment URL-encoded. */
function encPath(path: string): string {
  return path.split("/").map(encodeURIComponent).join("/");
}

/** The web URL of a repo, file or tree (for sources and links). */
export function hubUrl(t: HfTarget): string {
  switch (t.kind) {
    case "org":
      return `${HUB}/${encodeURIComponent(t.owner)}`;
    case "model":
      return t.rev ? `${HUB}/${t.repo}/tree/${encPath(t.rev)}` : `${HUB}/${t.repo}`;
    case "tree":
      return `${HUB}/${t.repo}/tree/${encPath(t.rev)}${t.path ? "/" + encPath(t.path) : ""}`;
    case "file":
      return `${HUB}/${t.repo}/blob/${encPath(t.rev)}/${encPath(t.path)}`;
  }
}

// ---------------------------------------------------------------------------
// The API client.

/** Options of a Hub call. */
export interface HubOptions {
  /** Cancels the call. */
  signal?: AbortSignal;
  /** Body cap. */
  maxBytes?: number;
  /** Extra headers (Range). */
  headers?: Record<string, string>;
}

/** What a request was for, for error messages. */
interface What {
  /** The repository, owner or query. */
  subject: string;
  /** Kind of thing asked for. */
  thing?: "model" | "file" | "tree" | "author" | "search";
  /** Revision. */
  rev?: string;
  /** Path of a file. */
  path?: string;
}

/** Warnings gathered while answering (rate limit). */
export type Warnings = Trusted[];

function remote(r: FetchResult) {
  return { status: r.status, body: r.text(), contentType: r.contentType };
}

/** The 429 reset time from RFC 9651 `ratelimit` or `retry-after`, in seconds. */
function resetSeconds(h: Headers): number | undefined {
  const t = /;\s*t=(\d+)/.exec(h.get("ratelimit") ?? "");
  if (t) return Number(t[1]);
  const ra = Number(h.get("retry-after"));
  return Number.isFinite(ra) && ra >= 0 ? ra : undefined;
}

/** A warning when the `ratelimit` headers say the budget is low. */
export function rateLimitWarning(h: Headers, token: boolean): Trusted | undefined {
  const m = /"?([\w-]+)"?\s*;\s*r=(\d+)\s*;\s*t=(\d+)/.exec(h.get("ratelimit") ?? "");
  if (!m) return undefined;
  const remaining = Number(m[2]);
  if (remaining >= 25) return undefined;
  const q = /;\s*q=(\d+)/.exec(h.get("ratelimit-policy") ?? "");
  const bucket = trusted.matching(m[1], IDENT_PATTERN);
  const of = q ? trusted.text` of ${Number(q[1])}` : trusted.text``;
  return trusted
    .text`HuggingFace rate limit low: ${remaining}${of} requests remaining on the '${bucket}' bucket, resets in ${
    Number(m[3])
  }s.${token ? trusted.text`` : trusted.text` Set HF_TOKEN to raise the limit.`}`;
}

/** GET on the Hub with the token; non-2xx statuses become errors that say what to do. */
export async function hubGet(
  url: string,
  what: What,
  options: HubOptions = {},
  warnings?: Warnings,
): Promise<FetchResult> {
  const token = hfToken();
  const headers: Record<string, string> = { ...options.headers };
  if (token) headers.authorization = `Bearer ${token}`;
  const r = await defaultNet().fetch(url, {
    headers,
    signal: options.signal,
    maxBytes: options.maxBytes,
    retry: { retries: 3, baseDelayMs: 1000 },
  });
  const w = rateLimitWarning(r.headers, token !== undefined);
  if (w && warnings) warnings.push(w);
  if (r.status >= 200 && r.status < 300) return r;
  const s = what.subject;
  const target = what.thing === "file" || what.thing === "tree"
    ? `'${what.path || "/"}' at revision '${what.rev}' of '${s}'`
    : `'${s}'`;
  if (r.status === 401) {
    throw new NetError(
      "status",
      token
        ? `HTTP 401 from the Hub for ${target}: the token in HF_TOKEN (or ~/.config/parkour/hf_token) was refused; check that it is valid and not expired`
        : `HTTP 401 from the Hub for ${target}. The repo is gated, private, or does not exist — the Hub returns an identical 401 for all three when unauthenticated. Set HF_TOKEN (or put a token in ~/.config/parkour/hf_token) to tell them apart; otherwise check the spelling (${ACCEPTED_FORMS})`,
      url,
      { remote: { status: 401 } },
    );
  }
  if (r.status === 403) {
    throw new NetError(
      "status",
      `HTTP 403 from the Hub for ${target}: this is a gated repo and the token has not been granted access; request access on ${HUB}/${
        what.thing === "author" || what.thing === "search" ? "" : s
      } and try again once approved`,
      url,
      { remote: remote(r) },
    );
  }
  if (r.status === 404) {
    const msg = what.thing === "file"
      ? `Not found on the Hub: no file ${target}; list the repository with action=tree`
      : what.thing === "tree"
      ? `Not found on the Hub: no folder or revision ${target}; check the revision (main by default) and list the top with action=tree`
      : what.thing === "author"
      ? `Not found on the Hub: no user or organisation '${s}'`
      : `Not found on the Hub: '${s}'${
        what.rev ? ` at revision '${what.rev}'` : ""
      }. Check the id (${ACCEPTED_FORMS}), or find it with action=search`;
    throw new NetError("status", msg, url, { remote: { status: 404 } });
  }
  if (r.status === 400) {
    let detail = "";
    try {
      detail = String((r.json() as { error?: unknown }).error ?? "");
    } catch { /* not JSON */ }
    throw new NetError(
      "status",
      `HuggingFace API rejected the request (HTTP 400)${
        detail ? "; its explanation is quoted below" : ""
      }; check the parameters`,
      url,
      { remote: { status: 400, body: detail || r.text(), contentType: "text/plain" } },
    );
  }
  if (r.status === 429) {
    const reset = resetSeconds(r.headers);
    throw new NetError(
      "status",
      `HTTP 429 from the Hub: rate limited${
        reset !== undefined ? `; the limit resets in ${reset} s` : ""
      }. Wait before the next call${token ? "" : ", or set HF_TOKEN to raise the limit"}`,
      url,
      { remote: { status: 429 } },
    );
  }
  if (r.status >= 500) {
    throw new NetError(
      "status",
      `the Hub failed with HTTP ${r.status} (after retries); try again in a minute`,
      url,
      { remote: remote(r) },
    );
  }
  throw new NetError("status", `HTTP ${r.status} from the Hub for ${target}`, url, {
    remote: remote(r),
  });
}

function parseJson<T>(r: FetchResult, what: string): T {
  try {
    return r.json<T>();
  } catch {
    throw new ContentError(
      `the Hub answered ${what} with malformed JSON; this is usually a passing fault on the Hub's side, try again in a minute`,
    );
  }
}

/** The model info as the Hub's API gives it (fields this source reads). */
export interface HfModelInfo {
  /** `owner/name`. */
  id: string;
  /** Commit. */
  sha?: string;
  /** Private repo. */
  private?: boolean;
  /** Gating: false, "auto" or "manual". */
  gated?: boolean | string;
  /** Disabled by the Hub. */
  disabled?: boolean;
  /** Downloads (last 30 days). */
  downloads?: number;
  /** Likes. */
  likes?: number;
  /** Last commit date. */
  lastModified?: string;
  /** Library. */
  library_name?: string;
  /** Task. */
  pipeline_tag?: string;
  /** Tags. */
  tags?: string[];
  /** The Hub's copy of config.json (possibly partial). */
  config?: Record<string, unknown>;
  /** The card's YAML. */
  cardData?: Record<string, unknown>;
  /** Safetensors parameter counts. */
  safetensors?: SafetensorsSummary;
  /** Files. */
  siblings?: HfSibling[];
  /** Lineage. */
  baseModels?: { relation?: string; models?: { id?: string }[] };
  /** GGUF summary. */
  gguf?: { total?: number; architecture?: string; context_length?: number };
}

const EXPAND = [
  "safetensors",
  "config",
  "gated",
  "private",
  "disabled",
  "cardData",
  "baseModels",
  "siblings",
  "tags",
  "library_name",
  "pipeline_tag",
  "gguf",
  "sha",
  "lastModified",
  "downloads",
  "likes",
];

/** The model-info URL (file sizes and LFS checksums included). */
export function modelInfoUrl(repo: string, rev?: string): string {
  const params = new URLSearchParams({ blobs: "true" });
  for (const e of EXPAND) params.append("expand", e);
  const base = rev
    ? `${HUB}/api/models/${repo}/revision/${encodeURIComponent(rev)}`
    : `${HUB}/api/models/${repo}`;
  return `${base}?${params}`;
}

/** Fetches a model's info. */
export async function fetchModelInfo(
  repo: string,
  rev: string | undefined,
  options: HubOptions = {},
  warnings?: Warnings,
): Promise<HfModelInfo> {
  const r = await hubGet(modelInfoUrl(repo, rev), { subject: repo, thing: "model", rev }, {
    ...options,
    maxBytes: API_MAX_BYTES,
  }, warnings);
  const info = parseJson<HfModelInfo>(r, `the model info of '${repo}'`);
  if (!info || typeof info !== "object" || typeof info.id !== "string") {
    throw new ContentError(`the Hub's answer for '${repo}' has no model id; try again later`);
  }
  return info;
}

/** The model card (README.md), or undefined when the repo has none. */
async function fetchCard(
  repo: string,
  rev: string,
  options: HubOptions,
  warnings: Warnings,
): Promise<string | undefined | null> {
  try {
    const r = await hubGet(
      `${HUB}/${repo}/raw/${encPath(rev)}/README.md`,
      { subject: repo, thing: "file", rev, path: "README.md" },
      { ...options, maxBytes: 2 * 1024 * 1024 },
      warnings,
    );
    return r.text();
  } catch (error) {
    if (options.signal?.aborted) throw error;
    if (error instanceof NetError && error.remote?.status === 404) return undefined;
    return null;
  }
}

// ---------------------------------------------------------------------------
// Frontmatter helpers.

function tryT<T>(make: () => T): T | undefined {
  try {
    return make();
  } catch {
    return undefined;
  }
}

function facts() {
  const list: DocumentFact[] = [];
  const add = (key: string, value: Trusted | number | boolean | undefined) => {
    if (value === undefined) return;
    const text = String(value);
    // A next step that is a huggingface tool call names the tool: shown where it is active.
    if ((key === "hint" || key === "see_also") && text.startsWith("action=")) {
      list.push(messageFact({ kind: key, parts: [callTool("huggingface"), " ", text] }));
      return;
    }
    // Other hints that name the huggingface tool's actions mean nothing on the other faces.
    const mcpOnly = key === "hint" && /\baction=/.test(text);
    list.push(mcpOnly ? { key, value, mcpOnly } : { key, value });
  };
  return { list, add };
}

function ident(v: unknown): Trusted | undefined {
  return typeof v === "string" ? tryT(() => trusted.matching(v, IDENT_PATTERN)) : undefined;
}

function repoT(v: unknown): Trusted | undefined {
  return typeof v === "string" ? tryT(() => trusted.matching(v, REPO_PATTERN)) : undefined;
}

/**
 * Server-written text (sizes, counts, the analysis's sentences) that may
 * carry file and dtype names from the Hub: accepted only in a narrow
 * character set (no brackets, backticks, quotes or line breaks), checked in
 * chunks; undefined when anything falls outside it.
 */
const SAFE_TEXT = /^[\w .,:;+=()%·—…×≥'\/\-]{1,250}$/;

function str(s: string): Trusted | undefined {
  if (s.length === 0 || s.length > 2000) return undefined;
  let out: Trusted = trusted.text``;
  for (let i = 0; i < s.length; i += 250) {
    const part = tryT(() => trusted.matching(s.slice(i, i + 250), SAFE_TEXT));
    if (!part) return undefined;
    out = trusted.text`${out}${part}`;
  }
  return out;
}

/** The base model: lineage from the API, else the card's `base_model`. */
export function baseModelOf(info: HfModelInfo, card?: string): string | undefined {
  const fromApi = info.baseModels?.models?.[0]?.id;
  if (fromApi && REPO_PATTERN.test(fromApi)) return fromApi;
  const cd = info.cardData?.base_model;
  const first = Array.isArray(cd) ? cd[0] : cd;
  if (typeof first === "string" && REPO_PATTERN.test(first)) return first;
  const m = card && /^base_model:\s*\n?\s*-?\s*([A-Za-z0-9][\w.-]*\/[\w.-]+)\s*$/m.exec(card);
  return m && REPO_PATTERN.test(m[1]) ? m[1] : undefined;
}

const QUANT_SUFFIX =
  /[-_.](?:\d+-?bits?|q\d(?:_[a-z0-9]+)*|gguf|mlx|awq|gptq|fp8|fp16|bf16|int[48]|nf4|exl2|lm|mxfp4|nvfp4|quantized|\d+bpw)$/i;

/** A model family's stem: the repo name with quantisation suffixes stripped. */
export function familyStem(repo: string): string {
  let name = repo.slice(repo.indexOf("/") + 1);
  for (let i = 0; i < 8; i++) {
    const next = name.replace(QUANT_SUFFIX, "");
    if (next === name || next === "") break;
    name = next;
  }
  return name;
}

function stripYaml(card: string): string {
  const m = /^---\r?\n[\s\S]*?\r?\n---\r?\n?/.exec(card);
  return m ? card.slice(m[0].length) : card;
}

// ---------------------------------------------------------------------------
// The model Document.

/** Everything a model view needs. */
export interface ModelRecord {
  /** The API's info. */
  info: HfModelInfo;
  /** Card text, undefined when there is none, null when it could not be read. */
  card?: string | null;
  /** Revision asked for. */
  rev?: string;
  /** Rate-limit warnings. */
  warnings: Warnings;
}

/** Loads a model's info and card. */
export async function fetchModel(
  repo: string,
  rev: string | undefined,
  options: HubOptions = {},
): Promise<ModelRecord> {
  const warnings: Warnings = [];
  const [info, card] = await Promise.all([
    fetchModelInfo(repo, rev, options, warnings),
    fetchCard(repo, rev ?? "main", options, warnings),
  ]);
  return { info, card, rev, warnings };
}

function weightLines(siblings: HfSibling[]): string[] {
  const weights = siblings.filter((s) => isWeightFile(s.rfilename));
  if (weights.length === 0) return ["_No weight files in this repo._"];
  const lines: string[] = [];
  for (const s of weights.slice(0, 500)) {
    const size = sizeOf(s);
    const sha = s.lfs?.sha256;
    lines.push(
      `- ${s.rfilename} — ${size !== undefined ? humanBytes(size) : "size unknown"}${
        sha ? ` — sha256 ${sha}` : ""
      }`,
    );
  }
  if (weights.length > 500) lines.push(`- … ${weights.length - 500} more (action=tree lists all)`);
  return lines;
}

function formatsOf(siblings: HfSibling[]): string[] {
  const seen = new Set<string>();
  for (const s of siblings) {
    if (!isWeightFile(s.rfilename)) continue;
    const ext = s.rfilename.slice(s.rfilename.lastIndexOf(".") + 1).toLowerCase();
    seen.add(ext === "bin" ? "pytorch (.bin)" : ext);
  }
  return [...seen];
}

/** Builds the model's record Document. */
export function modelDocument(record: ModelRecord, url: string): Document {
  const { info, card, rev } = record;
  const siblings = info.siblings ?? [];
  const names = new Set(siblings.map((s) => s.rfilename));
  const base = baseModelOf(info, card ?? undefined);
  const relation = info.baseModels?.relation;
  const quant = analyzeQuant({
    siblings,
    safetensors: info.safetensors,
    config: info.config,
    tags: info.tags,
    relation,
  });
  const { list, add } = facts();
  add("api", trusted.text`HuggingFace`);
  for (const w of record.warnings) add("warning", w);
  add("repo", repoT(info.id));
  add("model_type", ident(info.config?.model_type));
  const arch = Array.isArray(info.config?.architectures) ? info.config.architectures[0] : undefined;
  add("architecture", ident(arch));
  if (info.safetensors?.total) add("params", str(humanCount(info.safetensors.total)));
  const canonical = quant.canonical;
  if (canonical && canonical.sized) add("size", str(humanBytes(canonical.bytes)));
  if (canonical) {
    const idx = names.has(
      `${canonical.dir ? canonical.dir + "/" : ""}model.safetensors.index.json`,
    );
    add(
      "weights",
      str(
        `${describeSet(canonical)}${
          canonical.group !== "singles" && idx ? ", model.safetensors.index.json present" : ""
        }`,
      ),
    );
  }
  if (quant.bpw !== undefined) add("bits_per_weight", quant.bpw);
  const q = quantSummary(quant);
  if (q) add("quant", str(q));
  if (quant.fingerprint.length) {
    const fp = quant.fingerprint.filter((f) => DTYPE_PATTERN.test(f.dtype))
      .map((f) => `${f.dtype} ${humanCount(f.count)}`).join(" + ");
    if (fp) add("dtype_fingerprint", str(fp));
  }
  if (quant.nativeFormat) add("weight_format", str(quant.nativeFormat));
  const formats = formatsOf(siblings);
  if (formats.length) add("file_formats", str(formats.join(", ")));
  add("library", ident(info.library_name));
  add("pipeline_tag", ident(info.pipeline_tag));
  if (info.gated !== undefined) {
    add(
      "gated",
      typeof info.gated === "boolean"
        ? info.gated
        : tryT(() => trusted.oneOf(["auto", "manual"], String(info.gated))),
    );
  }
  if (typeof info.private === "boolean") add("private", info.private);
  if (typeof info.disabled === "boolean") add("disabled", info.disabled);
  add("base_model", repoT(base));
  add("lineage_relation", ident(relation));
  add(
    "revision",
    typeof info.sha === "string" ? tryT(() => trusted.matching(info.sha!, SHA_PATTERN)) : undefined,
  );
  if (rev) add("revision_pinned", tryT(() => trusted.matching(rev, REV_PATTERN)));
  if (typeof info.downloads === "number") add("downloads", info.downloads);
  if (typeof info.likes === "number") add("likes", info.likes);
  if (typeof info.lastModified === "string") {
    add("last_modified", tryT(() => trusted.isoDate(info.lastModified!.slice(0, 10))));
  }
  if (info.gguf?.total) add("gguf_params", str(humanCount(info.gguf.total)));
  if (info.gated) {
    add(
      "warning",
      trusted
        .text`this repo is gated: downloading its files needs an approved account and HF_TOKEN`,
    );
  }
  if (info.private) add("warning", trusted.text`this repo is private`);
  if (info.disabled) add("warning", trusted.text`the Hub has disabled this repo`);
  for (const w of quant.warnings) add("warning", str(w));
  for (const n of quant.notes) add("note", str(n));
  const why = quant.withheld ? str(quant.withheld) : undefined;
  if (why) add("note", trusted.text`bits per weight withheld: ${why}`);
  const self = repoT(info.id)!;
  if (names.has("config.json")) {
    add(
      "hint",
      trusted
        .text`action=file query='${self}/config.json' for the full config (dimensions, attention, quantization block)`,
    );
  }
  if (canonical) {
    const idx = `${canonical.dir ? canonical.dir + "/" : ""}model.safetensors.index.json`;
    const idxT = str(idx);
    if (names.has(idx) && idxT) {
      add("hint", trusted.text`action=file query='${self}/${idxT}' for the shard map`);
    }
    const first = str(canonical.files[0].rfilename);
    if (first) {
      add(
        "hint",
        trusted
          .text`action=file query='${self}/${first}' safetensors_header=true reads that file's tensor list by byte range (Range: bytes=0-7 gives the u64 little-endian header length N, then bytes 8..8+N-1 the JSON header); weights are never downloaded`,
      );
    }
  }
  if (card && card.length > MAX_CARD_CHARS) {
    add(
      "note",
      trusted.text`the model card was cut to ${MAX_CARD_CHARS} characters of ${card.length}`,
    );
  }
  if (card === null) add("note", trusted.text`the model card (README.md) could not be read`);
  if (base) {
    add("see_also", trusted.text`action=model query='${repoT(base)!}' for the base model`);
  }
  if (quant.isQuant || base) {
    const stem = familyStem(info.id);
    if (IDENT_PATTERN.test(stem)) {
      add(
        "see_also",
        trusted.text`action=search query='${
          trusted.matching(stem, IDENT_PATTERN)
        }' for sibling quants of the same family`,
      );
    }
  }
  if (quant.isQuant && base) {
    add(
      "hint",
      trusted
        .text`action=quant_audit compares this checkpoint with the base model (one more request)`,
    );
  }
  const lines: string[] = [];
  const tags = (info.tags ?? []).filter((t) => typeof t === "string");
  if (tags.length) lines.push(`**Tags:** ${tags.slice(0, 30).join(", ")}`, "");
  lines.push("## Weight files", "", ...weightLines(siblings), "");
  lines.push("## Model card", "");
  if (card) {
    const body = stripYaml(card).trim();
    lines.push(body.length > MAX_CARD_CHARS ? body.slice(0, MAX_CARD_CHARS) + "\n\n…" : body);
  } else {lines.push(
      card === null
        ? "_The model card could not be read._"
        : "_No model card (README.md) in this repo._",
    );}
  return new Document({
    url,
    kind: "record",
    title: info.id,
    markdown: lines.join("\n"),
    canonicalUrl: `${HUB}/${info.id}`,
    contentType: "application/json",
    facts: list,
    source: "huggingface",
  });
}

/** Loads the model Document. */
export async function loadModelDocument(
  repo: string,
  rev: string | undefined,
  url: string,
  options: HubOptions = {},
): Promise<Document> {
  return modelDocument(await fetchModel(repo, rev, options), url);
}

// ---------------------------------------------------------------------------
// Quant audit.

/** Runs the quant audit: this model's view plus the base's numbers (one more request). */
export async function quantAuditDocument(
  repo: string,
  rev: string | undefined,
  url: string,
  options: HubOptions = {},
): Promise<Document> {
  const record = await fetchModel(repo, rev, options);
  const doc = modelDocument(record, url);
  const base = baseModelOf(record.info, record.card ?? undefined);
  const extra: DocumentFact[] = [];
  const note = (v: Trusted) => extra.push({ key: "note", value: v });
  const side = (info: HfModelInfo) => {
    const set = partitionCheckpoints(info.siblings ?? [])[0];
    return {
      params: info.safetensors?.total,
      bytes: set?.sized ? set.bytes : undefined,
      dtypes: info.safetensors?.parameters ?? {},
      bits: analyzeQuant({ siblings: [], config: info.config }).declaredBits,
    };
  };
  let verdict: string;
  const lines: string[] = [];
  if (!base) {
    verdict = "verdict unavailable: the repo declares no base model to compare with";
  } else {
    const baseInfo = await fetchModelInfo(base, undefined, options, record.warnings);
    const block = quantBlock(baseInfo.config);
    if (block && Object.keys(block).length) {
      note(
        trusted.text`the base ${repoT(
          base,
        )!} is itself quantised; the comparison is between two quantised checkpoints`,
      );
    }
    const result = auditAgainstBase(side(record.info), side(baseInfo));
    verdict = result.verdict;
    for (const n of result.notes) {
      const t = str(n);
      if (t) note(trusted.text`audit: ${t}`);
    }
    lines.push(`- compared with ${base}`, ...result.notes.map((n) => `- ${n}`));
  }
  extra.unshift({ key: "quant_audit", value: str(verdict) });
  return new Document({
    url,
    kind: "record",
    title: doc.title,
    markdown: `## Quant audit\n\n${verdict}\n\n${lines.join("\n")}\n\n${doc.markdown}`,
    canonicalUrl: doc.canonicalUrl,
    contentType: doc.contentType,
    facts: [...doc.facts.filter((f) => !String(f.value).includes("action=quant_audit")), ...extra],
    source: "huggingface",
  });
}

// ---------------------------------------------------------------------------
// Trees and files.

/** One entry of the tree API. */
export interface TreeEntry {
  /** `file` or `directory`. */
  type: string;
  /** Path. */
  path: string;
  /** Size. */
  size?: number;
  /** LFS. */
  lfs?: { oid?: string; size?: number };
}

/** Lists a folder (recursively) with the tree API. */
export async function fetchTree(
  repo: string,
  rev: string,
  path: string,
  options: HubOptions & { recursive?: boolean } = {},
  warnings?: Warnings,
): Promise<TreeEntry[]> {
  const url = `${HUB}/api/models/${repo}/tree/${encPath(rev)}${path ? "/" + encPath(path) : ""}${
    options.recursive === false ? "" : "?recursive=true"
  }`;
  const r = await hubGet(url, { subject: repo, thing: "tree", rev, path }, {
    ...options,
    maxBytes: API_MAX_BYTES,
  }, warnings);
  const entries = parseJson<TreeEntry[]>(r, `the file list of '${repo}'`);
  if (!Array.isArray(entries)) throw new ContentError("the Hub's file list is not a list");
  return entries.filter((e) => e && typeof e.path === "string");
}

/** The tree Document. */
export async function loadTreeDocument(
  repo: string,
  rev: string,
  path: string,
  url: string,
  options: HubOptions = {},
): Promise<Document> {
  const warnings: Warnings = [];
  const entries = await fetchTree(repo, rev, path, options, warnings);
  const files = entries.filter((e) => e.type === "file");
  const total = files.reduce((a, f) => a + (f.lfs?.size ?? f.size ?? 0), 0);
  const { list, add } = facts();
  add("api", trusted.text`HuggingFace`);
  for (const w of warnings) add("warning", w);
  add("repo", repoT(repo));
  add("revision", tryT(() => trusted.matching(rev, REV_PATTERN)));
  if (path) add("path", trusted.echo(path, 300));
  add("files", files.length);
  add("total_size", str(humanBytes(total)));
  const sets = partitionCheckpoints(
    files.map((f) => ({ rfilename: f.path, size: f.size, lfs: f.lfs && { size: f.lfs.size } })),
  );
  if (sets.length > 1) {
    add(
      "note",
      trusted
        .text`${sets.length} safetensors checkpoint sets are present (precision variants, subfolders or duplicates); action=model names the canonical one`,
    );
  }
  const lines = entries.slice(0, MAX_TREE_FILES).map((e) => {
    if (e.type === "directory") return `- ${e.path}/`;
    const size = e.lfs?.size ?? e.size;
    const sha = e.lfs?.oid && SHA256_PATTERN.test(e.lfs.oid)
      ? ` — lfs:${e.lfs.oid.slice(0, 12)}`
      : "";
    return `- ${e.path} — ${size !== undefined ? humanBytes(size) : "?"}${sha}`;
  });
  if (entries.length > MAX_TREE_FILES) {
    add(
      "note",
      trusted
        .text`only the first ${MAX_TREE_FILES} of ${entries.length} entries are listed; give a folder path to narrow`,
    );
  }
  if (files.length === 0) lines.push("_No files here._");
  add(
    "hint",
    trusted.text`action=file query='${repoT(
      repo,
    )!}/<path>' reads a file (weight files are described, never downloaded)`,
  );
  return new Document({
    url,
    kind: "record",
    title: `${repo}${path ? "/" + path : ""} @ ${rev}`,
    markdown: `## Files\n\n${lines.join("\n")}`,
    facts: list,
    source: "huggingface",
  });
}

/** Reads a safetensors header by two byte ranges. */
export async function readSafetensorsHeader(
  repo: string,
  rev: string,
  path: string,
  options: HubOptions = {},
): Promise<SafetensorsHeader> {
  const url = `${HUB}/${repo}/resolve/${encPath(rev)}/${encPath(path)}`;
  const what: What = { subject: repo, thing: "file", rev, path };
  const ranged = async (from: number, to: number): Promise<Uint8Array> => {
    let r: FetchResult;
    try {
      r = await hubGet(url, what, {
        signal: options.signal,
        maxBytes: to - from + 1,
        headers: { range: `bytes=${from}-${to}` },
      });
    } catch (error) {
      if (error instanceof NetError && error.kind === "too_large") {
        throw new NetError(
          "too_large",
          `the server ignored the byte range for ${path} and started sending the whole file; the transfer was stopped (weights are never downloaded)`,
          url,
        );
      }
      throw error;
    }
    if (r.status !== 206 && r.bytes.length !== to - from + 1) {
      throw new NetError(
        "status",
        `the server did not honour the byte range for ${path} (HTTP ${r.status}); the header cannot be read`,
        url,
      );
    }
    return r.bytes;
  };
  const n = headerLength(await ranged(0, 7));
  if (n > MAX_HEADER_BYTES) throw new Error("unreachable");
  const bytes = await ranged(8, 8 + n - 1);
  return parseHeader(new TextDecoder().decode(bytes), n);
}

/** Options of a file load. */
export interface FileOptions extends HubOptions {
  /** Read the safetensors header by byte range. */
  header?: boolean;
}

async function weightDocument(
  repo: string,
  rev: string,
  path: string,
  url: string,
  options: FileOptions,
): Promise<Document> {
  const warnings: Warnings = [];
  const dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "";
  const entries = await fetchTree(repo, rev, dir, { ...options, recursive: false }, warnings);
  const entry = entries.find((e) => e.path === path && e.type === "file");
  if (!entry) {
    throw new NetError(
      "status",
      `Not found on the Hub: no file '${path}' at revision '${rev}' of '${repo}'; list the repository with action=tree`,
      url,
      { remote: { status: 404 } },
    );
  }
  const { list, add } = facts();
  add("api", trusted.text`HuggingFace`);
  for (const w of warnings) add("warning", w);
  add("repo", repoT(repo));
  add("revision", tryT(() => trusted.matching(rev, REV_PATTERN)));
  add("content", trusted.text`not transferred — weight payload`);
  const size = entry.lfs?.size ?? entry.size;
  if (size !== undefined) {
    add("size", str(humanBytes(size)));
    add("size_bytes", size);
  }
  const sha = entry.lfs?.oid;
  if (sha && SHA256_PATTERN.test(sha)) add("lfs_sha256", trusted.matching(sha, SHA256_PATTERN));
  const lines = [
    `- file: ${path}`,
    `- size: ${size !== undefined ? `${humanBytes(size)} (${size} bytes)` : "unknown"}`,
  ];
  if (sha) lines.push(`- LFS sha256: ${sha}`);
  lines.push("", "The weights are not downloaded.");
  const isSt = path.toLowerCase().endsWith(".safetensors");
  if (isSt && options.header) {
    const h = await readSafetensorsHeader(repo, rev, path, options);
    add("header_bytes", h.headerBytes);
    add("tensors", h.tensors.length);
    const dtypes = [...new Set(h.tensors.map((t) => t.dtype))].filter((d) => DTYPE_PATTERN.test(d));
    if (dtypes.length) add("dtypes", str(dtypes.join(", ")));
    add(
      "note",
      trusted
        .text`tensor list read from the safetensors header by two byte-range requests; weights not downloaded`,
    );
    lines.push("", headerMarkdown(h));
  } else if (isSt) {
    add(
      "hint",
      trusted
        .text`safetensors_header=true reads the tensor list by byte range (Range: bytes=0-7 gives the u64 little-endian header length N, then bytes 8..8+N-1 the JSON header)`,
    );
  }
  return new Document({
    url,
    kind: "record",
    title: `${repo}/${path}`,
    markdown: lines.join("\n"),
    facts: list,
    source: "huggingface",
  });
}

function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

/** Facts of a config.json. */
export function configFacts(config: Record<string, unknown>): DocumentFact[] {
  const { list, add } = facts();
  const dims =
    (config.text_config && typeof config.text_config === "object"
      ? config.text_config
      : config) as Record<string, unknown>;
  add("model_type", ident(config.model_type));
  const arch = Array.isArray(config.architectures) ? config.architectures[0] : undefined;
  add("architecture", ident(arch));
  const block = quantBlock(config);
  if (block && Object.keys(block).length) {
    const method = ident(block.quant_method);
    add("checkpoint_format", method ?? trusted.text`quantized (method not named)`);
  } else if (!block) {
    const dtype = ident(config.torch_dtype ?? dims.torch_dtype);
    if (dtype) add("checkpoint_format", trusted.text`${dtype} (unquantized)`);
  }
  if (dims !== config) add("dimensions_from", trusted.text`text_config`);
  for (
    const key of [
      "max_position_embeddings",
      "num_hidden_layers",
      "hidden_size",
      "intermediate_size",
      "num_attention_heads",
      "vocab_size",
      "sliding_window",
    ]
  ) {
    const v = num(dims[key]);
    if (v !== undefined) add(key, v);
  }
  const heads = num(dims.num_attention_heads);
  const kv = num(dims.num_key_value_heads);
  const lora = num(dims.kv_lora_rank);
  if (lora !== undefined) add("kv_heads", trusted.text`(MLA, kv_lora_rank=${lora})`);
  else if (heads && kv) {
    add(
      "kv_heads",
      kv === heads
        ? trusted.text`${kv} (MHA)`
        : kv === 1
        ? trusted.text`1 (MQA)`
        : trusted.text`${kv} (GQA ${heads / kv}:1)`,
    );
  }
  const experts = num(dims.num_experts ?? dims.n_routed_experts ?? dims.num_local_experts);
  if (experts !== undefined) add("num_experts", experts);
  const perTok = num(dims.num_experts_per_tok ?? dims.experts_per_token);
  if (perTok !== undefined) add("experts_per_token", perTok);
  if (block) {
    const bits = num(block.bits);
    const gs = num(block.group_size);
    if (bits !== undefined) {
      add(
        "quantization",
        gs !== undefined
          ? trusted.text`bits=${bits}, group_size=${gs}`
          : trusted.text`bits=${bits}`,
      );
    }
  }
  const am = config.auto_map;
  if (am && typeof am === "object") {
    add(
      "warning",
      trusted.text`config declares auto_map — loading requires trust_remote_code=True`,
    );
  }
  return list;
}

/** Facts of a `*index.json`. */
export function indexFacts(path: string, json: Record<string, unknown>): DocumentFact[] {
  const { list, add } = facts();
  if (path.endsWith("model_index.json")) {
    add("index_kind", trusted.text`diffusers pipeline manifest (not a shard map)`);
    add("components", Object.keys(json).filter((k) => !k.startsWith("_")).length);
    return list;
  }
  const map = json.weight_map;
  if (map && typeof map === "object") {
    add("index_kind", trusted.text`safetensors shard map`);
    add("tensor_keys", Object.keys(map).length);
    add("shards", new Set(Object.values(map as Record<string, unknown>)).size);
    const total = num((json.metadata as Record<string, unknown> | undefined)?.total_size);
    if (total !== undefined) add("declared_total_size", str(humanBytes(total)));
    add(
      "hint",
      trusted
        .text`weight_map keys name every tensor and the shard holding it — search= for component prefixes (mtp, vision, audio) to detect a component the quantizer silently stripped`,
    );
  }
  return list;
}

/** Loads a repository file: text as a code or Markdown Document, weights described only. */
export async function loadFileDocument(
  repo: string,
  rev: string,
  path: string,
  url: string,
  options: FileOptions = {},
): Promise<Document> {
  if (isWeightFile(path)) return await weightDocument(repo, rev, path, url, options);
  const warnings: Warnings = [];
  const r = await hubGet(
    `${HUB}/${repo}/resolve/${encPath(rev)}/${encPath(path)}`,
    { subject: repo, thing: "file", rev, path },
    {
      signal: options.signal,
      maxBytes: Math.min(options.maxBytes ?? MAX_FILE_BYTES, MAX_FILE_BYTES),
    },
    warnings,
  ).catch((error) => {
    if (error instanceof NetError && error.kind === "too_large") {
      throw new NetError(
        "too_large",
        `${path} is over the ${MAX_FILE_BYTES}-byte limit for repository files; list the folder with action=tree to see sizes, or read a smaller file`,
        error.url,
      );
    }
    throw error;
  });
  if (r.bytes.subarray(0, 8000).includes(0)) {
    throw new ContentError(
      `${path} is a binary file; only text files are shown (list it with action=tree for its size)`,
    );
  }
  let text = r.text();
  const { list, add } = facts();
  add("api", trusted.text`HuggingFace`);
  for (const w of warnings) add("warning", w);
  add("repo", repoT(repo));
  add("revision", tryT(() => trusted.matching(rev, REV_PATTERN)));
  const lower = path.toLowerCase();
  if (lower.endsWith(".json")) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      add("warning", trusted.text`this .json file is not valid JSON; shown as text`);
    }
    if (json && typeof json === "object" && !Array.isArray(json)) {
      const obj = json as Record<string, unknown>;
      const base = lower.slice(lower.lastIndexOf("/") + 1);
      if (base === "config.json") list.push(...configFacts(obj));
      else if (base.endsWith("index.json")) list.push(...indexFacts(base, obj));
      if (!text.includes("\n")) text = JSON.stringify(json, null, 2);
    }
  }
  if (lower.endsWith(".md")) {
    return new Document({
      url,
      kind: "markdown",
      title: `${repo}/${path}`,
      markdown: text,
      contentType: "text/markdown",
      facts: list,
      source: "huggingface",
    });
  }
  return await codeDocument({
    url,
    path,
    text,
    title: `${repo}/${path}`,
    source: "huggingface",
    facts: list,
  });
}

// ---------------------------------------------------------------------------
// Search and authors.

/** Sort keys of the model list. */
export const SORTS = ["downloads", "likes", "lastModified", "trendingScore", "createdAt"] as const;

/** One search result. */
export interface HfListed {
  /** Id. */
  id: string;
  /** Downloads. */
  downloads?: number;
  /** Likes. */
  likes?: number;
  /** Library. */
  library_name?: string;
  /** Task. */
  pipeline_tag?: string;
  /** Gating. */
  gated?: boolean | string;
  /** Last modified. */
  lastModified?: string;
}

/** The list URL. */
export function searchUrl(q: {
  search?: string;
  author?: string;
  sort: typeof SORTS[number];
  limit: number;
}): string {
  const params = new URLSearchParams();
  if (q.search) params.set("search", q.search);
  if (q.author) params.set("author", q.author);
  params.set("sort", q.sort);
  params.set("direction", "-1");
  params.set("limit", String(q.limit));
  for (const e of ["downloads", "likes", "lastModified", "library_name", "gated", "pipeline_tag"]) {
    params.append("expand", e);
  }
  return `${HUB}/api/models?${params}`;
}

/** Lists models. */
export async function searchModels(
  q: { search?: string; author?: string; sort: typeof SORTS[number]; limit: number },
  options: HubOptions = {},
  warnings?: Warnings,
): Promise<HfListed[]> {
  const r = await hubGet(
    searchUrl(q),
    { subject: q.author ?? q.search ?? "", thing: q.author && !q.search ? "author" : "search" },
    options,
    warnings,
  );
  const list = parseJson<HfListed[]>(r, "the model search");
  if (!Array.isArray(list)) {
    throw new ContentError("the Hub's model search did not answer a list");
  }
  return list.filter((m) => m && typeof m.id === "string");
}

/** A listed model as a record row (free text stays in the fence). */
export function listedRecord(m: HfListed): Record<string, unknown> {
  return {
    id: m.id,
    downloads: m.downloads ?? null,
    likes: m.likes ?? null,
    library: m.library_name ?? "",
    task: m.pipeline_tag ?? "",
    gated: m.gated === undefined ? "" : String(m.gated),
    last_modified: typeof m.lastModified === "string" ? m.lastModified.slice(0, 10) : "",
  };
}

/** An author's models as a Document (page-tool interception of `huggingface.co/<owner>`). */
export async function loadOrgDocument(
  owner: string,
  url: string,
  options: HubOptions = {},
  limit = 20,
): Promise<Document> {
  const warnings: Warnings = [];
  const models = await searchModels({ author: owner, sort: "downloads", limit }, options, warnings);
  const { list, add } = facts();
  add("api", trusted.text`HuggingFace`);
  for (const w of warnings) add("warning", w);
  add("author", trusted.matching(owner, OWNER_PATTERN));
  add("results", models.length);
  add("sort", trusted.text`downloads`);
  if (models.length === 0) {
    add(
      "note",
      trusted
        .text`no public models by this author (it may be a user or organisation with datasets or Spaces only, or the name is misspelt)`,
    );
  }
  const lines = models.map((m) =>
    `- **${m.id}** — ${m.downloads ?? "?"} downloads | ${m.likes ?? "?"} likes${
      m.library_name ? ` | library: ${m.library_name}` : ""
    }${m.gated ? ` | gated: ${m.gated}` : ""}`
  );
  return new Document({
    url,
    kind: "record",
    title: `Models by ${owner}`,
    markdown: `## Models\n\n${lines.join("\n") || "_No models._"}`,
    facts: list,
    source: "huggingface",
  });
}

// ---------------------------------------------------------------------------
// The source.

/** Loads the Document for a target. */
export function loadTarget(t: HfTarget, url: string, options: FileOptions = {}): Promise<Document> {
  switch (t.kind) {
    case "org":
      return loadOrgDocument(t.owner, url, options);
    case "model":
      return loadModelDocument(t.repo, t.rev, url, options);
    case "tree":
      return loadTreeDocument(t.repo, t.rev, t.path, url, options);
    case "file":
      return loadFileDocument(t.repo, t.rev, t.path, url, options);
  }
}

/** The Hugging Face source: model, file, tree and author URLs on huggingface.co. */
export const huggingfaceSource: Source = {
  name: "huggingface",
  detect(url: URL): boolean {
    const t = parseHfUrl(url);
    return t !== undefined && t.kind !== "declined";
  },
  async load(url: URL, options: LoadOptions): Promise<Document> {
    const t = parseHfUrl(url) as HfTarget;
    const doc = await loadTarget(t, url.href, {
      signal: options.signal,
      maxBytes: options.maxBytes,
    });
    options.onStage?.("converting");
    return doc;
  },
};
