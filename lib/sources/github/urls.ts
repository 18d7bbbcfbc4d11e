/**
 * GitHub URL shapes and the forms the `github` tool accepts, parsed into
 * one {@link GithubTarget} (pure functions, no network).
 *
 * Shapes: `raw.githubusercontent.com/{o}/{r}/{ref}/{path}` and
 * `github.com/{o}/{r}/blob/{ref}/{path}` (files), `/tree/{ref}[/{path}]`,
 * `github.com/{o}/{r}` (repository), `github.com/{name}` (organisation or
 * user), `/issues/{n}`, `/pull/{n}`, `gist.github.com/[user/]{id}`,
 * `/wiki[/{page}]`, `/commit/{sha}`, `/compare/{spec}`,
 * `/releases[/tag/{tag}]`; `/blame/`, `/actions`, `/projects` are refused
 * with a message. Anything else on github.com is not claimed.
 *
 * @module
 */
import { ToolError } from "../../errors.ts";

/** An owner or repository name as GitHub allows them. */
export const NAME_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,99})$/;
/** `owner/repo`. */
export const OWNER_REPO_PATTERN = /^[A-Za-z0-9][A-Za-z0-9-]{0,38}\/[A-Za-z0-9._-]{1,100}$/;
/** A git ref as this module accepts it (no spaces, no `..`, no control characters). */
export const REF_PATTERN = /^(?!.*\.\.)(?!\/)[A-Za-z0-9._\/+@-]{1,200}$/;
/** A commit SHA (7 to 40 hex digits). */
export const SHA_PATTERN = /^[0-9a-f]{7,40}$/i;

/** Single-segment github.com paths that are GitHub's own pages, not accounts. */
const SYSTEM_PAGES = new Set([
  "settings",
  "orgs",
  "marketplace",
  "explore",
  "topics",
  "trending",
  "collections",
  "sponsors",
  "features",
  "security",
  "enterprise",
  "pricing",
  "login",
  "signup",
  "join",
  "new",
  "about",
  "readme",
  "codespaces",
  "copilot",
  "issues",
  "pulls",
  "discussions",
  "notifications",
  "search",
  "site",
  "apps",
  "customer-stories",
  "team",
  "contact",
  "logout",
  "dashboard",
]);

/** What a GitHub URL or tool query names. */
export type GithubTarget =
  | {
    kind: "file";
    owner: string;
    repo: string;
    ref: string;
    path: string;
    /** The ref and path as the URL wrote them, when a ref with `/` could claim more of it. */
    refPath?: string;
  }
  | {
    kind: "tree";
    owner: string;
    repo: string;
    ref?: string;
    path: string;
    /** As for files. */
    refPath?: string;
  }
  | { kind: "repo"; owner: string; repo: string }
  | { kind: "account"; name: string }
  | { kind: "issue"; owner: string; repo: string; number: number }
  | { kind: "pull"; owner: string; repo: string; number: number }
  | { kind: "discussion"; owner: string; repo: string; number: number }
  | { kind: "gist"; id: string }
  | { kind: "wiki"; owner: string; repo: string; page?: string }
  | { kind: "commit"; owner: string; repo: string; sha: string }
  | { kind: "compare"; owner: string; repo: string; spec: string }
  | { kind: "releases"; owner: string; repo: string; tag?: string }
  | { kind: "refused"; message: string };

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Whether `path` is a safe repository path (no `..` segments, no control characters). */
export function safePath(path: string): boolean {
  if (path.length === 0 || path.length > 1000) return false;
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(path)) return false;
  return path.split("/").every((s) => s !== "" && s !== "." && s !== "..");
}

/** Encodes a repository path for a URL, segment by segment. */
export function encodePath(path: string): string {
  return path.split("/").map(encodeURIComponent).join("/");
}

/** Whether a github.com host (with or without `www.`). */
function isGithubHost(host: string): boolean {
  return host === "github.com" || host === "www.github.com";
}

/** Whether this module claims `url` (without reading the network). */
export function isGithubUrl(url: URL): boolean {
  return parseGithubUrl(url) !== undefined;
}

/**
 * The target of a GitHub URL, or undefined when it is not one of the known
 * shapes (then the generic web path serves it).
 */
export function parseGithubUrl(url: URL): GithubTarget | undefined {
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
  const host = url.hostname.toLowerCase();
  const parts = url.pathname.split("/").filter(Boolean).map(decode);
  if (host === "raw.githubusercontent.com") {
    if (parts[0] === "wiki" && parts.length >= 3) {
      const page = parts.slice(3).join("/").replace(/\.md$/, "");
      return { kind: "wiki", owner: parts[1], repo: parts[2], page: page || undefined };
    }
    if (parts.length < 4 || !NAME_PATTERN.test(parts[0]) || !NAME_PATTERN.test(parts[1])) {
      return undefined;
    }
    // refs/heads/<branch> is how raw URLs spell a branch explicitly.
    let ref = parts[2];
    let rest = parts.slice(3);
    if (ref === "refs" && (rest[0] === "heads" || rest[0] === "tags") && rest.length >= 3) {
      ref = rest[1];
      rest = rest.slice(2);
    }
    return { kind: "file", owner: parts[0], repo: parts[1], ref, path: rest.join("/") };
  }
  if (host === "gist.github.com") {
    const id = parts.at(-1);
    if (parts.length >= 1 && parts.length <= 2 && id && /^[0-9a-f]{5,64}$/i.test(id)) {
      return { kind: "gist", id };
    }
    return undefined;
  }
  if (!isGithubHost(host)) return undefined;
  if (parts.length === 1) {
    const name = parts[0];
    if (SYSTEM_PAGES.has(name.toLowerCase()) || !NAME_PATTERN.test(name)) return undefined;
    return { kind: "account", name };
  }
  if (parts.length < 2) return undefined;
  const owner = parts[0];
  const repo = parts[1].replace(/\.git$/, "");
  if (SYSTEM_PAGES.has(owner.toLowerCase()) || !NAME_PATTERN.test(owner)) return undefined;
  if (!NAME_PATTERN.test(repo)) return undefined;
  const base = { owner, repo };
  if (parts.length === 2) return { kind: "repo", ...base };
  const [, , section, ...rest] = parts;
  switch (section) {
    // A branch or tag may hold '/' (feature/x): the first segment is tried as the ref, and
    // refPath lets the loader find a longer ref against the refs API when that fails.
    case "blob":
      if (rest.length < 2) return undefined;
      return {
        kind: "file",
        ...base,
        ref: rest[0],
        path: rest.slice(1).join("/"),
        ...(rest.length > 2 ? { refPath: rest.join("/") } : {}),
      };
    case "tree":
      if (rest.length === 0) return undefined;
      return {
        kind: "tree",
        ...base,
        ref: rest[0],
        path: rest.slice(1).join("/"),
        ...(rest.length > 1 ? { refPath: rest.join("/") } : {}),
      };
    case "issues":
    case "pull": {
      if (!/^\d{1,9}$/.test(rest[0] ?? "")) return undefined;
      const number = Number(rest[0]);
      return section === "issues"
        ? { kind: "issue", ...base, number }
        : { kind: "pull", ...base, number };
    }
    case "discussions":
      if (rest.length !== 1 || !/^\d{1,9}$/.test(rest[0])) return undefined;
      return { kind: "discussion", ...base, number: Number(rest[0]) };
    case "wiki":
      return { kind: "wiki", ...base, page: rest.length > 0 ? rest.join("/") : undefined };
    case "commit":
      if (rest.length !== 1 || !SHA_PATTERN.test(rest[0])) return undefined;
      return { kind: "commit", ...base, sha: rest[0] };
    case "compare":
      if (rest.length === 0) return undefined;
      return { kind: "compare", ...base, spec: rest.join("/") };
    case "releases":
      if (rest.length === 0) return { kind: "releases", ...base };
      if (rest[0] === "tag" && rest.length >= 2) {
        return { kind: "releases", ...base, tag: rest.slice(1).join("/") };
      }
      if (rest[0] === "latest" && rest.length === 1) return { kind: "releases", ...base };
      return undefined;
    case "blame":
      return {
        kind: "refused",
        message:
          `GitHub's blame view is not available through the API; read the file itself with the blob URL https://github.com/${owner}/${repo}/blob/${
            rest.join("/")
          } (line anchors such as #L10-L20 select lines)`,
      };
    case "actions":
      return {
        kind: "refused",
        message:
          `GitHub Actions pages (workflow runs and logs) are not content this server reads; read the workflow files instead, e.g. the tree https://github.com/${owner}/${repo}/tree/HEAD/.github/workflows`,
      };
    case "projects":
      return {
        kind: "refused",
        message:
          `GitHub Projects boards are not supported; read the repository's issues with the github tool (action=search_issues, query='repo:${owner}/${repo} is:open')`,
      };
    default:
      return undefined;
  }
}

/** The forms `owner/repo#N` queries accept, for error messages. */
export const ISSUE_FORMS =
  "accepted forms: owner/repo#123, owner/repo/123, or a URL such as https://github.com/owner/repo/issues/123 or https://github.com/owner/repo/pull/123";
/** The forms repository queries accept. */
export const REPO_FORMS =
  "accepted forms: owner/repo, or a URL such as https://github.com/owner/repo";
/** The forms file and tree queries accept. */
export const PATH_FORMS =
  "accepted forms: owner/repo/path/to/file.py (with ref= for a branch, tag or commit), or a URL such as https://github.com/owner/repo/blob/main/path/to/file.py or https://raw.githubusercontent.com/owner/repo/main/path/to/file.py";

function tryUrl(query: string): GithubTarget | undefined {
  if (!/^https?:\/\//i.test(query)) return undefined;
  try {
    return parseGithubUrl(new URL(query));
  } catch {
    return undefined;
  }
}

function show(query: string): string {
  return query.length > 80 ? `${query.slice(0, 80)}…` : query;
}

/** `owner/repo#N` (or an issue/pull URL) for the issue and pull_request actions. */
export function parseIssueQuery(
  query: string,
): { owner: string; repo: string; number: number } {
  const q = query.trim();
  const fromUrl = tryUrl(q);
  if (fromUrl && (fromUrl.kind === "issue" || fromUrl.kind === "pull")) return fromUrl;
  const m =
    /^([A-Za-z0-9][A-Za-z0-9-]{0,38})\/([A-Za-z0-9._-]{1,100})(?:#|\/(?:issues\/|pull\/)?)(\d{1,9})$/
      .exec(q);
  if (!m) {
    throw new ToolError(`'${show(q)}' is not an issue or pull request; ${ISSUE_FORMS}`);
  }
  return { owner: m[1], repo: m[2], number: Number(m[3]) };
}

/** `owner/repo` (or a repository URL). */
export function parseRepoQuery(query: string): { owner: string; repo: string } {
  const q = query.trim().replace(/\/$/, "");
  const fromUrl = tryUrl(q);
  if (fromUrl && "owner" in fromUrl) return { owner: fromUrl.owner, repo: fromUrl.repo };
  const bare = q.replace(/^github\.com\//i, "").replace(/\.git$/, "");
  if (!OWNER_REPO_PATTERN.test(bare)) {
    throw new ToolError(`'${show(q)}' is not a repository; ${REPO_FORMS}`);
  }
  const [owner, repo] = bare.split("/");
  return { owner, repo };
}

/**
 * `owner/repo/path` (or a blob, tree or raw URL) for the file and tree
 * actions; `ref` overrides the URL's ref. `pathRequired` is false for tree
 * (the root is listed).
 */
export function parsePathQuery(
  query: string,
  ref: string | undefined,
  pathRequired: boolean,
): { owner: string; repo: string; ref?: string; path: string; lines?: string } {
  let q = query.trim();
  let lines: string | undefined;
  const hash = q.indexOf("#");
  if (hash >= 0) {
    lines = q.slice(hash + 1);
    q = q.slice(0, hash);
  }
  if (ref !== undefined && !REF_PATTERN.test(ref)) {
    throw new ToolError(
      `ref '${
        show(ref)
      }' is not a git ref; give a branch, tag or commit SHA such as main, v1.2.0 or 3f2a9c1`,
    );
  }
  const fromUrl = tryUrl(q);
  let target: { owner: string; repo: string; ref?: string; path: string };
  if (fromUrl && (fromUrl.kind === "file" || fromUrl.kind === "tree")) target = fromUrl;
  else if (fromUrl && fromUrl.kind === "repo" && !pathRequired) target = { ...fromUrl, path: "" };
  else {
    const m = /^([A-Za-z0-9][A-Za-z0-9-]{0,38})\/([A-Za-z0-9._-]{1,100})(?:\/(.*))?$/.exec(
      q.replace(/^github\.com\//i, ""),
    );
    if (!m) throw new ToolError(`'${show(q)}' is not a repository path; ${PATH_FORMS}`);
    target = { owner: m[1], repo: m[2], path: (m[3] ?? "").replace(/\/$/, "") };
  }
  if (pathRequired && target.path === "") {
    throw new ToolError(
      `'${show(q)}' names no file; ${PATH_FORMS} (list a directory with action=tree)`,
    );
  }
  if (target.path !== "" && !safePath(target.path)) {
    throw new ToolError(
      `'${
        show(target.path)
      }' is not a valid repository path (no empty, '.' or '..' segments, no control characters or backslashes); ${PATH_FORMS}`,
    );
  }
  return { ...target, ref: ref ?? target.ref, lines };
}

/** A line range from a `#L10` or `#L10-L20` anchor. */
export interface LineRange {
  /** First line, 1-based. */
  from: number;
  /** Last line, inclusive. */
  to: number;
}

/** The line range of a GitHub line anchor (`L10`, `L10-L20`, `L10-20`), or undefined. */
export function parseLineAnchor(fragment: string | undefined): LineRange | undefined {
  if (!fragment) return undefined;
  const m = /^L(\d{1,7})(?:-L?(\d{1,7}))?$/.exec(fragment.trim());
  if (!m) return undefined;
  const from = Number(m[1]);
  const to = m[2] === undefined ? from : Number(m[2]);
  if (from < 1) throw new ToolError(`line anchor #${fragment}: lines are numbered from 1`);
  if (to < from) {
    throw new ToolError(
      `invalid line range L${from}-L${to}: the start must not exceed the end (e.g. #L${to}-L${from})`,
    );
  }
  return { from, to };
}
