/**
 * GitHub: the source that serves every GitHub URL shape through the REST
 * API and raw.githubusercontent.com (never the HTML app), and the Document
 * builders the `github` tool shares.
 *
 * - Files (blob and raw URLs): the raw bytes, refused when binary (a NUL
 *   byte, or not UTF-8), then {@link codeDocument}: numbered lines; the
 *   outline work turns definitions into sections. The file is kept with its
 *   Document, so a `#L10-L20` anchor ({@link githubLineView}) selects lines
 *   from the cached file without refetching.
 * - Issues and pull requests: the body first, then one heading per comment
 *   (`ic_<id>`, review comments `rc_<id>` under their file), each heading
 *   addressable by that id: `section=` and `search=` work on long threads.
 * - Repositories: metadata, README, CITATION.cff (the repository goes on the
 *   research shelf: by the DOI CITATION.cff gives, else `github:owner/repo`),
 *   the OpenSSF Scorecard from deps.dev when it has one.
 * - Trees, accounts, gists, wikis, commits, comparisons, releases; blame,
 *   Actions and Projects URLs are refused with what to do instead.
 *
 * @module
 */

import { callTool, hint, messageFact, ph, readPage } from "../../hint.ts";
import { envelopeReady, yamlModule } from "../../yaml.ts";
import { codeDocument, type CodeFile } from "../../content/code/files.ts";
import { Document, type DocumentFact, type Sized } from "../../content/document/document.ts";
import { ContentError, SourceError } from "../../errors.ts";
import { trusted } from "../../trust.ts";
import { LARGE_MAX_BYTES } from "../../net/fetch.ts";
import { NetError } from "../../net/errors.ts";
import type { CitationInput } from "../../citation.ts";
import { githubScorecard } from "../depsdev.ts";
import {
  GITHUB_RAW,
  githubGraphql,
  githubJson,
  githubRaw,
  githubToken,
  optional,
  rateWarnings,
} from "./api.ts";
import {
  arr,
  day,
  type Json,
  num,
  obj,
  renderAccount,
  renderCommit,
  renderCompare,
  renderDiscussion,
  renderGist,
  renderRelease,
  renderReleases,
  renderRepo,
  renderThread,
  renderTree,
  str,
  threadState,
} from "./render.ts";
import {
  encodePath,
  type GithubTarget,
  type LineRange,
  parseGithubUrl,
  parseLineAnchor,
} from "./urls.ts";
import type { LoadOptions, Source } from "../source.ts";

/** Kinds of GitHub Documents, as the frontmatter's `type` says them. */
export const GITHUB_TYPES = [
  "file",
  "tree",
  "repository",
  "organization",
  "user",
  "issue",
  "pull_request",
  "gist",
  "wiki",
  "commit",
  "compare",
  "releases",
  "release",
  "discussion",
] as const;

/** Thread states. */
export const THREAD_STATES = ["open", "closed", "merged"] as const;

/** Tokens (about 4 characters each) above which a file's answer says how to narrow it. */
export const FILE_HINT_TOKENS = 5000;

/** Options of the Document builders. */
export interface GithubLoadOptions {
  /** Cancels the requests. */
  signal?: AbortSignal;
}

function fact(key: string, value: DocumentFact["value"]): DocumentFact {
  return { key, value };
}

function typeFact(type: typeof GITHUB_TYPES[number]): DocumentFact {
  return fact("type", trusted.oneOf(GITHUB_TYPES, type));
}

const API = fact("api", trusted.text`GitHub`);

// ---------------------------------------------------------------------------
// Files

const FILE_MEMO = Symbol("github file");

class FileMemo implements Sized {
  constructor(readonly file: CodeFile, readonly lineCount: number) {}
  approxBytes(): number {
    return this.file.text.length * 2;
  }
}

/** Whether bytes are text: no NUL byte and valid UTF-8. */
export function decodeText(bytes: Uint8Array): string | undefined {
  if (bytes.subarray(0, 8192).includes(0)) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** A file at a ref, as a Document of numbered lines (the file kept for line views). */
export async function loadFile(
  t: { owner: string; repo: string; ref: string; path: string },
  options: GithubLoadOptions & { lines?: LineRange; url?: string } = {},
): Promise<Document> {
  const ref = t.ref || "HEAD";
  const raw = `${GITHUB_RAW}/${t.owner}/${t.repo}/${encodePath(ref)}/${encodePath(t.path)}`;
  const result = await githubRaw(raw, `the file ${t.path} at ${ref} in ${t.owner}/${t.repo}`, {
    signal: options.signal,
    maxBytes: LARGE_MAX_BYTES,
  });
  const text = decodeText(result!.bytes);
  const blob = `https://github.com/${t.owner}/${t.repo}/blob/${encodePath(ref)}/${
    encodePath(t.path)
  }`;
  if (text === undefined) {
    throw new ContentError(
      `${t.path} in ${t.owner}/${t.repo} is a binary file (${
        result!.bytes.length
      } bytes, not UTF-8) and cannot be read as text; look for its source or documentation instead, or download it from ${raw}`,
      { kind: "unsupported_type" },
    );
  }
  const lineCount = text.endsWith("\n") ? text.split("\n").length - 1 : text.split("\n").length;
  const facts: DocumentFact[] = [
    fact("api", trusted.text`GitHub (raw)`),
    typeFact("file"),
    fact("raw_url", trusted.url(raw)),
    fact("total_lines", lineCount),
    ...rateWarnings(result!.headers),
  ];
  if (text.trim() === "") facts.push(fact("note", trusted.text`the file is empty`));
  const file: CodeFile = {
    url: options.url ?? blob,
    path: t.path,
    text: text.endsWith("\n") ? text.slice(0, -1) : text,
    title: `${t.owner}/${t.repo}: ${t.path}`,
    source: "github",
    facts,
  };
  if (options.lines) return await linesDocument(file, lineCount, options.lines);
  const tokens = Math.ceil(text.length / 4);
  if (tokens > FILE_HINT_TOKENS) {
    file.facts = [
      ...facts,
      messageFact(
        hint`the file is ~${tokens} tokens (${lineCount} lines); if the answer is cut, select lines with a #L anchor on the URL (e.g. #L100-L200), a definition with ${
          readPage({ section: ph("name") })
        }, or search it with ${readPage({ search: ph("words") })}`,
      ),
    ];
  }
  const doc = await codeDocument(file);
  doc.memo(FILE_MEMO, () => new FileMemo(file, lineCount));
  return doc;
}

async function linesDocument(file: CodeFile, total: number, range: LineRange): Promise<Document> {
  if (range.from > total) {
    throw new SourceError(
      `lines ${range.from}-${range.to} were requested but ${file.path} has only ${total} lines; use an anchor within #L1-L${total}`,
    );
  }
  const facts = [...(file.facts ?? [])];
  let to = range.to;
  if (to > total) {
    facts.push(
      fact(
        "warning",
        trusted
          .text`lines ${range.from}-${range.to} were requested but the file ends at line ${total}`,
      ),
    );
    to = total;
  }
  facts.push(fact("lines", trusted.text`${range.from}-${to} of ${total}`));
  return await codeDocument({ ...file, facts, lines: { from: range.from, to } });
}

/**
 * The Document for a GitHub line anchor (`#L10`, `#L10-L20`) on a file
 * Document loaded by this source, or undefined when the fragment is not a
 * line anchor or the Document is not a GitHub file (then the fragment is a
 * section request as usual). Bad ranges throw errors that say what to do.
 */
async function githubLineView(
  doc: Document,
  fragment: string | undefined,
): Promise<Document | undefined> {
  if (doc.source !== "github" || !doc.hasMemo(FILE_MEMO)) return undefined;
  const range = parseLineAnchor(fragment);
  if (!range) return undefined;
  const memo = doc.memo(FILE_MEMO, () => {
    throw new Error("unreachable");
  }) as FileMemo;
  return await linesDocument(memo.file, memo.lineCount, range);
}

/** Whether `fragment` on `url` is a GitHub line anchor (not a section name). */
function isGithubLineAnchor(url: string, fragment: string | undefined): boolean {
  if (!fragment || !/^L\d+(?:-L?\d+)?$/.test(fragment)) return false;
  try {
    return parseGithubUrl(new URL(url))?.kind === "file";
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------
// Issues and pull requests

/** Comment paging of a thread. */
export interface ThreadPaging {
  /** Comments per page (at most 100). */
  limit: number;
  /** Page, from 1. */
  page: number;
}

/** An issue or pull request with its comments, as a Document of sections. */
export async function loadThread(
  t: { owner: string; repo: string; number: number },
  pull: boolean,
  paging: ThreadPaging = { limit: 100, page: 1 },
  options: GithubLoadOptions = {},
): Promise<Document> {
  const repo = `${t.owner}/${t.repo}`;
  const base = `/repos/${t.owner}/${t.repo}`;
  const what = `${pull ? "pull request" : "issue"} ${repo}#${t.number}`;
  const o = { signal: options.signal };
  const q = `?per_page=${paging.limit}&page=${paging.page}`;
  const main = await githubJson<Json>(
    `${base}/${pull ? "pulls" : "issues"}/${t.number}`,
    what,
    o,
  );
  const item = main.data;
  if (!pull && obj(item, "pull_request")) {
    // The issues API also serves pull requests; read it as one.
    return loadThread(t, true, paging, options);
  }
  const [comments, review] = await Promise.all([
    githubJson<Json[]>(`${base}/issues/${t.number}/comments${q}`, `comments of ${what}`, o),
    pull
      ? githubJson<Json[]>(
        `${base}/pulls/${t.number}/comments${q}`,
        `review comments of ${what}`,
        o,
      )
      : Promise.resolve(undefined),
  ]);
  const commentList = arr(comments.data);
  const reviewList = review ? arr(review.data) : [];
  const rendered = renderThread(item, pull, {
    repo,
    comments: commentList,
    reviewComments: reviewList,
    page: paging.page,
  });
  const state = threadState(item, pull);
  const total = num(item, "comments") ?? commentList.length;
  const facts: DocumentFact[] = [
    API,
    typeFact(pull ? "pull_request" : "issue"),
    fact("state", trusted.oneOf(THREAD_STATES, state)),
    fact("comments", total),
  ];
  if (pull) facts.push(fact("review_comments", num(item, "review_comments") ?? reviewList.length));
  const shown = (paging.page - 1) * paging.limit + commentList.length;
  if (total > shown || reviewList.length === paging.limit) {
    facts.push(messageFact(
      hint`comments ${(paging.page - 1) * paging.limit + 1}-${shown} of ${total} are shown; ${
        callTool("github", {
          action: pull ? "pull_request" : "issue",
          query: `${t.owner}/${t.repo}#${t.number}`,
          page: paging.page + 1,
        })
      } reads the next page`,
    ));
  }
  if (rendered.anchors.size > 0) {
    facts.push(
      messageFact(
        hint`each comment is a section: read one with ${
          readPage({ section: "ic_<id>" })
        } (review comments rc_<id>), or search the thread with ${
          readPage({ search: ph("words") })
        }`,
      ),
    );
  }
  facts.push(...rateWarnings(comments.headers));
  return new Document({
    url: `https://github.com/${t.owner}/${t.repo}/${pull ? "pull" : "issues"}/${t.number}`,
    kind: "record",
    title: `${repo}#${t.number}: ${str(item, "title")}`,
    markdown: rendered.markdown,
    anchors: rendered.anchors,
    source: "github",
    facts,
  });
}

// ---------------------------------------------------------------------------
// Repositories

/** The citation a CITATION.cff describes (undefined when it cannot be read). */
export function citationFromCff(
  text: string,
  ownerRepo: string,
  fallbackYear?: number,
): CitationInput | undefined {
  let data: unknown;
  try {
    data = yamlModule().parse(text, { maxAliasCount: 20 });
  } catch {
    return undefined;
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) return undefined;
  const top = data as Json;
  const preferred = obj(top, "preferred-citation");
  const src = preferred ?? top;
  const doiOf = (o: Json | undefined): string | undefined => {
    if (!o) return undefined;
    const direct = str(o, "doi");
    if (direct) return direct;
    const id = arr(o, "identifiers").find((i) => str(i, "type") === "doi");
    return id ? str(id, "value") : undefined;
  };
  const rawDoi = (doiOf(src) ?? doiOf(top))?.trim().replace(/^https?:\/\/(dx\.)?doi\.org\//i, "");
  const doi = rawDoi && /^10\.\d{4,9}\/\S+$/.test(rawDoi) ? rawDoi.toLowerCase() : undefined;
  const authors = arr(src, "authors").map((a) => {
    const family = str(a, "family-names");
    const given = str(a, "given-names");
    return family ? (given ? `${family}, ${given}` : family) : str(a, "name");
  }).filter(Boolean);
  const released = String((src as Json)["date-released"] ?? top["date-released"] ?? "");
  const yearValue = num(src, "year") ?? (Number(released.slice(0, 4)) || undefined) ??
    fallbackYear;
  const title = str(src, "title") || str(top, "title") || ownerRepo;
  return {
    doi: doi ?? `github:${ownerRepo.toLowerCase()}`,
    title,
    authors,
    year: yearValue,
    venue: `GitHub (${ownerRepo})`,
    sourceTool: "github",
    kind: "software",
    url: `https://github.com/${ownerRepo}`,
  };
}

function decodeBase64(content: string): string | undefined {
  try {
    const bin = atob(content.replace(/\s+/g, ""));
    const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
    return decodeText(bytes);
  } catch {
    return undefined;
  }
}

/** A repository: metadata, README, CITATION.cff, Scorecard; tracked on the shelf. */
export async function loadRepo(
  t: { owner: string; repo: string },
  options: GithubLoadOptions = {},
): Promise<Document> {
  const o = { signal: options.signal };
  const base = `/repos/${t.owner}/${t.repo}`;
  const main = await githubJson<Json>(base, `repository ${t.owner}/${t.repo}`, o);
  const repo = main.data;
  const fullName = str(repo, "full_name") || `${t.owner}/${t.repo}`;
  const branch = str(repo, "default_branch") || "HEAD";
  const [readme, cff, templates, scorecard] = await Promise.all([
    optional("readme", async () => {
      const r = await githubJson<Json>(`${base}/readme`, `the README of ${fullName}`, o);
      return decodeBase64(str(r.data, "content"));
    }),
    optional("CITATION.cff", async () => {
      const r = await githubRaw(
        `${GITHUB_RAW}/${fullName}/${encodePath(branch)}/CITATION.cff`,
        `CITATION.cff of ${fullName}`,
        { ...o, missingOk: true, deadlineMs: 10_000 },
      );
      return r ? decodeText(r.bytes) : undefined;
    }),
    optional("issue templates", async () => {
      const r = await githubJson<unknown>(
        `${base}/contents/.github/ISSUE_TEMPLATE`,
        `issue templates of ${fullName}`,
        o,
      );
      return Array.isArray(r.data) ? r.data.length : 0;
    }),
    optional("scorecard", () => githubScorecard(fullName, options.signal)),
  ]);
  const created = Number(day(str(repo, "created_at")).slice(0, 4)) || undefined;
  const spdx = str(obj(repo, "license"), "spdx_id");
  const description = str(repo, "description");
  if (cff) await envelopeReady(); // the YAML reader CITATION.cff needs, loaded on first use
  const citation = (cff ? citationFromCff(cff, fullName, created) : undefined) ?? {
    doi: `github:${fullName.toLowerCase()}`,
    title: description ? `${fullName}: ${description}` : fullName,
    authors: [str(obj(repo, "owner"), "login")].filter(Boolean),
    year: created,
    venue: spdx && spdx !== "NOASSERTION" ? `GitHub | ${spdx}` : "GitHub",
    sourceTool: "github" as const,
    kind: "software" as const,
    url: `https://github.com/${fullName}`,
  };
  const facts: DocumentFact[] = [
    API,
    typeFact("repository"),
    fact("stars", num(repo, "stargazers_count") ?? 0),
    fact("default_branch", trusted.matching(branch, /^[A-Za-z0-9._\/+@-]{1,200}$/)),
  ];
  if (spdx && /^[A-Za-z0-9.+-]{1,64}$/.test(spdx)) {
    facts.push(fact("license", trusted.matching(spdx, /^[A-Za-z0-9.+-]{1,64}$/)));
  }
  if (repo.archived === true) facts.push(fact("note", trusted.text`the repository is archived`));
  if (scorecard) {
    facts.push(
      fact(
        "openssf_scorecard",
        scorecard.date && /^\d{4}-\d{2}-\d{2}$/.test(scorecard.date)
          ? trusted.text`${Math.round(scorecard.overall * 10) / 10}/10 (@ ${
            trusted.isoDate(scorecard.date)
          })`
          : trusted.text`${Math.round(scorecard.overall * 10) / 10}/10`,
      ),
    );
  }
  if (cff) facts.push(fact("citation_cff", true));
  if (templates && templates > 0) {
    facts.push(messageFact(
      hint`the repository has a custom issue submission flow: read it with ${
        callTool("github", { action: "issue_templates", query: `${t.owner}/${t.repo}` })
      } before filing an issue`,
    ));
  }
  facts.push(...rateWarnings(main.headers));
  return new Document({
    url: `https://github.com/${fullName}`,
    kind: "record",
    title: fullName,
    markdown: renderRepo(repo, readme, cff !== undefined),
    source: "github",
    facts,
    citation,
  });
}

/** A directory listing at a ref. */
export async function loadTree(
  t: { owner: string; repo: string; ref?: string; path: string },
  options: GithubLoadOptions = {},
): Promise<Document> {
  const ref = t.ref ? `?ref=${encodeURIComponent(t.ref)}` : "";
  const where = `${t.path || "/"}${t.ref ? ` at ${t.ref}` : ""} in ${t.owner}/${t.repo}`;
  const r = await githubJson<unknown>(
    `/repos/${t.owner}/${t.repo}/contents${t.path ? `/${encodePath(t.path)}` : ""}${ref}`,
    `the directory ${where}`,
    options,
  );
  if (!Array.isArray(r.data)) {
    throw new ContentError(
      `${t.path} in ${t.owner}/${t.repo} is a file, not a directory; read it with action=file (or its blob URL)`,
    );
  }
  const entries = arr(r.data);
  return new Document({
    url: `https://github.com/${t.owner}/${t.repo}/tree/${encodePath(t.ref ?? "HEAD")}${
      t.path ? `/${encodePath(t.path)}` : ""
    }`,
    kind: "record",
    title: `${t.owner}/${t.repo}/${t.path}`,
    markdown: renderTree(entries, `${t.owner}/${t.repo}/${t.path}`),
    source: "github",
    facts: [API, typeFact("tree"), fact("entries", entries.length), ...rateWarnings(r.headers)],
  });
}

async function loadAccount(name: string, options: GithubLoadOptions): Promise<Document> {
  const account = await githubJson<Json>(`/users/${name}`, `the account ${name}`, options);
  const repos = await githubJson<Json[]>(
    `/users/${name}/repos?sort=pushed&per_page=30`,
    `repositories of ${name}`,
    options,
  );
  const org = str(account.data, "type") === "Organization";
  return new Document({
    url: `https://github.com/${name}`,
    kind: "record",
    title: name,
    markdown: renderAccount(account.data, arr(repos.data)),
    source: "github",
    facts: [
      API,
      typeFact(org ? "organization" : "user"),
      fact("public_repos", num(account.data, "public_repos") ?? 0),
      ...rateWarnings(repos.headers),
    ],
  });
}

/** Comments and replies per comment a discussion answer holds. */
export const DISCUSSION_COMMENTS = 50;
/** Replies per comment. */
export const DISCUSSION_REPLIES = 20;

const DISCUSSION_QUERY = `query($owner: String!, $repo: String!, $number: Int!) {
  repository(owner: $owner, name: $repo) {
    discussion(number: $number) {
      number title body createdAt upvoteCount closed
      author { login }
      category { name }
      answer { databaseId }
      comments(first: ${DISCUSSION_COMMENTS}) {
        totalCount
        nodes {
          databaseId body createdAt upvoteCount isAnswer
          author { login }
          replies(first: ${DISCUSSION_REPLIES}) {
            totalCount
            nodes { databaseId body createdAt author { login } }
          }
        }
      }
    }
  }
}`;

async function loadDiscussion(
  t: { owner: string; repo: string; number: number },
  options: GithubLoadOptions,
): Promise<Document> {
  const what = `discussion ${t.owner}/${t.repo}#${t.number}`;
  const r = await githubGraphql<Json>(
    DISCUSSION_QUERY,
    { owner: t.owner, repo: t.repo, number: t.number },
    what,
    options,
  );
  const d = obj(obj(r.data, "repository"), "discussion");
  if (!d || (!str(d, "title") && !str(d, "body"))) {
    throw new ContentError(`Not found on GitHub: ${what} does not exist, or it is private`);
  }
  const rendered = renderDiscussion(d);
  const comments = obj(d, "comments");
  const total = num(comments, "totalCount") ?? 0;
  const shown = arr(comments, "nodes").length;
  const facts: DocumentFact[] = [
    fact("api", trusted.text`GitHub (GraphQL)`),
    typeFact("discussion"),
    fact("comments", total),
    fact("answered", num(obj(d, "answer"), "databaseId") !== undefined),
    ...rateWarnings(r.headers),
  ];
  if (total > shown) {
    facts.push(fact(
      "note",
      trusted
        .text`the first ${shown} of ${total} comments are shown (with up to ${DISCUSSION_REPLIES} replies each); the rest are on the discussion's page`,
    ));
  }
  if (shown > 0) {
    facts.push(messageFact(
      hint`each comment is a section named by its id: ${
        readPage({ section: ph("dc_id"), auto_expand: true })
      } reads a comment with its replies`,
    ));
  }
  return new Document({
    url: `https://github.com/${t.owner}/${t.repo}/discussions/${t.number}`,
    kind: "record",
    title: "",
    markdown: rendered.markdown,
    anchors: rendered.anchors,
    source: "github",
    facts,
  });
}

async function loadGist(id: string, options: GithubLoadOptions): Promise<Document> {
  const r = await githubJson<Json>(`/gists/${id}`, `gist ${id}`, options);
  return new Document({
    url: `https://gist.github.com/${id}`,
    kind: "record",
    title: str(r.data, "description") || `gist ${id}`,
    markdown: renderGist(r.data),
    source: "github",
    facts: [API, typeFact("gist"), ...rateWarnings(r.headers)],
  });
}

async function loadWiki(
  t: { owner: string; repo: string; page?: string },
  options: GithubLoadOptions,
): Promise<Document> {
  const page = t.page ?? "Home";
  const raw = `${GITHUB_RAW}/wiki/${t.owner}/${t.repo}/${encodePath(page)}.md`;
  const r = await githubRaw(raw, `the wiki page ${page} of ${t.owner}/${t.repo}`, {
    ...options,
    missingOk: true,
    deadlineMs: 15_000,
  });
  if (!r) {
    throw new ContentError(
      t.page
        ? `the wiki of ${t.owner}/${t.repo} has no page '${page}' (or the repository has no wiki); list its pages at https://github.com/${t.owner}/${t.repo}/wiki/Home`
        : `${t.owner}/${t.repo} has no wiki (or it is private); read its README with the github tool (action=repo)`,
    );
  }
  const text = decodeText(r.bytes);
  if (text === undefined) throw new ContentError(`the wiki page ${page} is not UTF-8 text`);
  return new Document({
    url: `https://github.com/${t.owner}/${t.repo}/wiki${t.page ? `/${encodePath(page)}` : ""}`,
    kind: "markdown",
    title: `${t.owner}/${t.repo} wiki: ${page}`,
    markdown: text,
    source: "github",
    facts: [fact("api", trusted.text`GitHub (wiki)`), typeFact("wiki"), ...rateWarnings(r.headers)],
  });
}

async function loadCommit(
  t: { owner: string; repo: string; sha: string },
  options: GithubLoadOptions,
): Promise<Document> {
  const r = await githubJson<Json>(
    `/repos/${t.owner}/${t.repo}/commits/${t.sha}`,
    `commit ${t.sha} of ${t.owner}/${t.repo}`,
    options,
  );
  return new Document({
    url: `https://github.com/${t.owner}/${t.repo}/commit/${t.sha}`,
    kind: "record",
    title: `${t.owner}/${t.repo}@${t.sha.slice(0, 10)}`,
    markdown: renderCommit(r.data),
    source: "github",
    facts: [API, typeFact("commit"), ...rateWarnings(r.headers)],
  });
}

const COMPARE_STATUS = ["ahead", "behind", "diverged", "identical"] as const;

async function loadCompare(
  t: { owner: string; repo: string; spec: string },
  options: GithubLoadOptions,
): Promise<Document> {
  if (!/^[A-Za-z0-9._\/+@^~:-]{1,300}(?:\.{2,3}[A-Za-z0-9._\/+@^~:-]{1,300})?$/.test(t.spec)) {
    throw new ContentError(
      `'${
        t.spec.slice(0, 80)
      }' is not a comparison; accepted form: base...head, e.g. https://github.com/${t.owner}/${t.repo}/compare/v1.0...v1.1`,
    );
  }
  const r = await githubJson<Json>(
    `/repos/${t.owner}/${t.repo}/compare/${t.spec.split("/").map(encodeURIComponent).join("/")}`,
    `the comparison ${t.spec} in ${t.owner}/${t.repo}`,
    options,
  );
  const status = str(r.data, "status");
  const facts: DocumentFact[] = [API, typeFact("compare")];
  if ((COMPARE_STATUS as readonly string[]).includes(status)) {
    facts.push(fact("status", trusted.oneOf(COMPARE_STATUS, status)));
  }
  return new Document({
    url: `https://github.com/${t.owner}/${t.repo}/compare/${t.spec}`,
    kind: "record",
    title: `${t.owner}/${t.repo} compare ${t.spec}`,
    markdown: renderCompare(r.data),
    source: "github",
    facts: [...facts, ...rateWarnings(r.headers)],
  });
}

async function loadReleases(
  t: { owner: string; repo: string; tag?: string },
  options: GithubLoadOptions,
): Promise<Document> {
  const repo = `${t.owner}/${t.repo}`;
  if (t.tag) {
    const r = await githubJson<Json>(
      `/repos/${repo}/releases/tags/${encodeURIComponent(t.tag)}`,
      `the release ${t.tag} of ${repo}`,
      options,
    );
    return new Document({
      url: `https://github.com/${repo}/releases/tag/${encodeURIComponent(t.tag)}`,
      kind: "record",
      title: `${repo} ${t.tag}`,
      markdown: renderRelease(r.data),
      source: "github",
      facts: [API, typeFact("release"), ...rateWarnings(r.headers)],
    });
  }
  const r = await githubJson<Json[]>(
    `/repos/${repo}/releases?per_page=10`,
    `releases of ${repo}`,
    options,
  );
  const list = arr(r.data);
  if (list.length === 0) {
    throw new ContentError(
      `${repo} has no releases; its tags are at https://github.com/${repo}/tags and its history with the github tool (action=repo)`,
    );
  }
  return new Document({
    url: `https://github.com/${repo}/releases`,
    kind: "record",
    title: `Releases of ${repo}`,
    markdown: renderReleases(list, repo),
    source: "github",
    facts: [
      API,
      typeFact("releases"),
      fact("releases", list.length),
      fact(
        "hint",
        trusted.text`read one release's notes and assets with its tag URL (…/releases/tag/<tag>)`,
      ),
      ...rateWarnings(r.headers),
    ],
  });
}

/**
 * Loads a blob or tree URL's target; when GitHub finds nothing at the first
 * segment as the ref and the URL had more segments, the branch or tag may
 * have a `/` in its name (feature/x): the refs API names the ones that start
 * with that segment, and the longest that leads the URL's path is used.
 */
async function withSlashRef<
  T extends { owner: string; repo: string; ref?: string; path: string; refPath?: string },
>(
  target: T,
  options: GithubLoadOptions,
  load: (t: T) => Promise<Document>,
  explicit = false,
): Promise<Document> {
  try {
    return await load(target);
  } catch (error) {
    if (!target.refPath || !(error instanceof NetError) || error.remote?.status !== 404) {
      throw error;
    }
    const split = await slashRef(target.owner, target.repo, target.refPath, options);
    if (!split || split.ref === target.ref) throw error;
    return await load({ ...target, ref: explicit ? split.full : split.ref, path: split.path });
  }
}

/** The branch or tag with `/` that leads `refPath` (longest first), and the path after it. */
export async function slashRef(
  owner: string,
  repo: string,
  refPath: string,
  options: GithubLoadOptions = {},
): Promise<{ ref: string; full: string; path: string } | undefined> {
  const first = refPath.split("/")[0];
  const names: { name: string; full: string }[] = [];
  for (const kind of ["heads", "tags"] as const) {
    const r = await optional(`${kind} matching ${first}`, () =>
      githubJson<Json[]>(
        `/repos/${owner}/${repo}/git/matching-refs/${kind}/${encodeURIComponent(first)}`,
        `the ${kind === "heads" ? "branches" : "tags"} of ${owner}/${repo} starting with ${first}`,
        options,
      ));
    for (const item of arr(r?.data)) {
      const full = str(item, "ref");
      const name = full.replace(/^refs\/(?:heads|tags)\//, "");
      if (name.includes("/") && (refPath === name || refPath.startsWith(`${name}/`))) {
        names.push({ name, full });
      }
    }
  }
  const best = names.sort((a, b) => b.name.length - a.name.length)[0];
  return best === undefined
    ? undefined
    : { ref: best.name, full: best.full, path: refPath.slice(best.name.length + 1) };
}

/** The Document of a parsed GitHub target. */
export function loadTarget(
  target: GithubTarget,
  options: GithubLoadOptions & { url?: string } = {},
): Promise<Document> {
  switch (target.kind) {
    case "file":
      // Raw URLs spell a resolved branch or tag explicitly (refs/heads/feature/x).
      return withSlashRef(target, options, (t) => loadFile(t, options), true);
    case "tree":
      return withSlashRef(target, options, (t) => loadTree(t, options));
    case "repo":
      return loadRepo(target, options);
    case "account":
      return loadAccount(target.name, options);
    case "issue":
      return loadThread(target, false, undefined, options);
    case "pull":
      return loadThread(target, true, undefined, options);
    case "discussion":
      return loadDiscussion(target, options);
    case "gist":
      return loadGist(target.id, options);
    case "wiki":
      return loadWiki(target, options);
    case "commit":
      return loadCommit(target, options);
    case "compare":
      return loadCompare(target, options);
    case "releases":
      return loadReleases(target, options);
    case "refused":
      return Promise.reject(new ContentError(target.message));
  }
}

/** Whether a token is configured (for messages). */
export function hasGithubToken(): boolean {
  return githubToken().token !== undefined;
}

/** The source: every GitHub URL shape, through the API. */
export const githubSource: Source = {
  name: "github",
  detect: (url) => parseGithubUrl(url) !== undefined,
  load: (url: URL, options: LoadOptions): Promise<Document> => {
    const target = parseGithubUrl(url)!;
    options.onStage?.("fetching");
    return loadTarget(target, { signal: options.signal, url: url.href });
  },
  ownsFragment: (url, fragment) => isGithubLineAnchor(url.href, fragment),
  fragmentView: githubLineView,
};
