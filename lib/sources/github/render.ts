/**
 * GitHub API JSON to Markdown: issues and pull requests (one heading per
 * comment, so `section=` and `search=` work on long threads), repositories,
 * directory listings, accounts, gists, commits, comparisons and releases.
 * Pure functions; everything they write is untrusted text that goes inside
 * the fence.
 *
 * @module
 */

import { type Json, num, obj, str } from "../json.ts";

export { type Json, num, obj, str };

/** An array field, or []. */
export function arr(o: unknown, key?: string): Json[] {
  const v = key === undefined ? o : (o as Json | null)?.[key];
  return Array.isArray(v) ? v.filter((x) => x !== null && typeof x === "object") as Json[] : [];
}

/** `YYYY-MM-DD` of an ISO timestamp, or "". */
export function day(iso: string): string {
  return /^\d{4}-\d{2}-\d{2}/.test(iso) ? iso.slice(0, 10) : "";
}

/** One line of text: no newlines, trimmed, capped. */
export function oneLine(text: string, max = 200): string {
  const s = text.replace(/\s+/g, " ").trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** Bytes as `12.3 KB`. */
export function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * Pushes the Markdown headings of `text` down by `by` levels (at most 6),
 * outside code fences, so a comment's own headings nest under its heading.
 */
export function demote(text: string, by: number): string {
  let fence: string | undefined;
  return text.replace(/\r\n?/g, "\n").split("\n").map((line) => {
    const f = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (fence === undefined) fence = f[1];
      else if (f[1][0] === fence[0] && f[1].length >= fence.length) fence = undefined;
      return line;
    }
    if (fence !== undefined) return line;
    const h = /^(#{1,6})(\s.*)?$/.exec(line);
    if (!h) return line;
    return "#".repeat(Math.min(6, h[1].length + by)) + (h[2] ?? "");
  }).join("\n");
}

const REACTIONS: [string, string][] = [
  ["+1", "👍"],
  ["-1", "👎"],
  ["laugh", "😄"],
  ["hooray", "🎉"],
  ["confused", "😕"],
  ["heart", "❤️"],
  ["rocket", "🚀"],
  ["eyes", "👀"],
];

function reactions(item: Json): string {
  const r = obj(item, "reactions");
  if (!r) return "";
  return REACTIONS.map(([k, e]) => (num(r, k) ?? 0) > 0 ? `${e} ${num(r, k)}` : "")
    .filter(Boolean).join(" ");
}

function who(item: Json): string {
  const login = str(obj(item, "user"), "login") || "ghost";
  const assoc = str(item, "author_association");
  return assoc && assoc !== "NONE" ? `@${login} (${assoc})` : `@${login}`;
}

/** A rendered thread and the offsets of its comment headings. */
export interface Rendered {
  /** Markdown. */
  markdown: string;
  /** Comment id (`ic_123`, `rc_456`) to the offset of its heading. */
  anchors: Map<string, number>;
}

class Builder {
  parts: string[] = [];
  length = 0;
  anchors = new Map<string, number>();
  add(text: string): void {
    this.parts.push(text);
    this.length += text.length;
  }
  heading(id: string | undefined, text: string): void {
    if (this.length > 0 && !this.parts.at(-1)!.endsWith("\n\n")) this.add("\n\n");
    if (id) this.anchors.set(id, this.length);
    this.add(text + "\n\n");
  }
  result(): Rendered {
    return { markdown: this.parts.join("").trim() + "\n", anchors: this.anchors };
  }
}

/** What the thread renderer needs besides the issue or pull request JSON. */
export interface ThreadParts {
  /** `owner/repo`. */
  repo: string;
  /** Issue comments (this page). */
  comments: Json[];
  /** Review comments (pull requests). */
  reviewComments?: Json[];
  /** Page of comments shown. */
  page: number;
}

/** State of an issue or pull request (`merged` for merged pull requests). */
export function threadState(item: Json, pull: boolean): string {
  if (pull && (item.merged === true || str(item, "merged_at"))) return "merged";
  return str(item, "state") === "closed" ? "closed" : "open";
}

/** An issue or pull request as Markdown: the body first, then one heading per comment. */
export function renderThread(item: Json, pull: boolean, parts: ThreadParts): Rendered {
  const b = new Builder();
  const state = threadState(item, pull);
  const meta = [
    `**${pull ? "pull request" : "issue"}** · ${state}`,
    `by **${who(item)}**`,
    `opened ${day(str(item, "created_at"))}`,
  ];
  if (str(item, "closed_at") && state !== "open") {
    meta.push(`${state} ${day(str(item, "merged_at") || str(item, "closed_at"))}`);
  }
  meta.push(`${num(item, "comments") ?? 0} comments`);
  if (pull) meta.push(`${num(item, "review_comments") ?? 0} review comments`);
  const lines = [meta.join(" · ")];
  if (pull) {
    const head = str(obj(item, "head"), "label");
    const base = str(obj(item, "base"), "label");
    if (head || base) lines.push(`Branches: ${head} → ${base}`);
    if (item.draft === true) lines.push("Draft");
  }
  const labels = arr(item, "labels").map((l) => str(l, "name")).filter(Boolean);
  if (labels.length) lines.push(`Labels: ${labels.join(", ")}`);
  const milestone = str(obj(item, "milestone"), "title");
  if (milestone) lines.push(`Milestone: ${milestone}`);
  const r = reactions(item);
  if (r) lines.push(`Reactions: ${r}`);
  b.add(lines.join("  \n") + "\n\n");
  const body = str(item, "body").trim();
  b.add((body ? demote(body, 2) : "*No description provided.*") + "\n\n");

  if (pull) {
    b.heading(undefined, "## Diff stat");
    const files = num(item, "changed_files");
    const commits = num(item, "commits");
    b.add(
      `${files ?? "?"} files changed, +${num(item, "additions") ?? "?"} / -${
        num(item, "deletions") ?? "?"
      } lines${commits !== undefined ? `, ${commits} commits` : ""}\n\n`,
    );
    const review = parts.reviewComments ?? [];
    if (review.length > 0) {
      b.heading(undefined, "## Review comments");
      const byPath = new Map<string, Json[]>();
      for (const c of review) {
        const p = str(c, "path") || "(no path)";
        byPath.set(p, [...byPath.get(p) ?? [], c]);
      }
      for (const [path, list] of byPath) {
        b.heading(undefined, `### ${path}`);
        for (const c of list) {
          const id = num(c, "id");
          const reply = num(c, "in_reply_to_id");
          const line = num(c, "line") ?? num(c, "original_line");
          b.heading(
            id !== undefined ? `rc_${id}` : undefined,
            `#### rc_${id ?? "?"} — ${who(c)}, ${day(str(c, "created_at"))}${
              line !== undefined ? `, L${line}` : ""
            }${reply !== undefined ? ` (reply to rc_${reply})` : ""}`,
          );
          const hunk = str(c, "diff_hunk");
          if (hunk && reply === undefined) {
            const last = hunk.split("\n").slice(-6).join("\n");
            const fence = "`".repeat(Math.max(3, longestRun(last) + 1));
            b.add(`${fence}diff\n${last}\n${fence}\n\n`);
          }
          b.add(demote(str(c, "body").trim(), 4) + "\n\n");
        }
      }
    }
  }
  if (parts.comments.length > 0) {
    b.heading(undefined, "## Comments");
    for (const c of parts.comments) {
      const id = num(c, "id");
      b.heading(
        id !== undefined ? `ic_${id}` : undefined,
        `### ic_${id ?? "?"} — ${who(c)}, ${day(str(c, "created_at"))}`,
      );
      const rc = reactions(c);
      if (rc) b.add(`Reactions: ${rc}\n\n`);
      b.add(demote(str(c, "body").trim(), 3) + "\n\n");
    }
  }
  return b.result();
}

function longestRun(text: string): number {
  return Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
}

/** A repository's metadata and README as Markdown. */
export function renderRepo(repo: Json, readme: string | undefined, cff: boolean): string {
  const lines: string[] = [];
  const description = str(repo, "description");
  if (description) lines.push(oneLine(description, 500), "");
  const facts = [
    `Stars: ${num(repo, "stargazers_count") ?? 0}`,
    `Forks: ${num(repo, "forks_count") ?? 0}`,
    `Open issues: ${num(repo, "open_issues_count") ?? 0}`,
  ];
  lines.push(facts.join(" | ") + "  ");
  const second = [
    `Language: ${str(repo, "language") || "none"}`,
    `License: ${str(obj(repo, "license"), "spdx_id") || "none"}`,
    `Default branch: ${str(repo, "default_branch") || "?"}`,
  ];
  lines.push(second.join(" | ") + "  ");
  const topics = Array.isArray(repo.topics) ? repo.topics.filter((t) => typeof t === "string") : [];
  if (topics.length) lines.push(`Topics: ${topics.join(", ")}  `);
  const homepage = str(repo, "homepage");
  if (homepage) lines.push(`Homepage: ${homepage}  `);
  lines.push(
    `Created ${day(str(repo, "created_at"))}, last push ${day(str(repo, "pushed_at"))}` +
      (repo.archived === true ? " · archived (read-only)" : "") +
      (repo.fork === true
        ? ` · fork of ${str(obj(repo, "parent"), "full_name") || "another repository"}`
        : ""),
  );
  if (cff) lines.push("", "The repository has a CITATION.cff (how to cite it).");
  lines.push("", "## README", "");
  lines.push(readme?.trim() ? demote(readme.trim(), 2) : "*No README.*");
  return lines.join("\n") + "\n";
}

/** A directory listing: directories first, then files with sizes. */
export function renderTree(entries: Json[], title: string): string {
  const sorted = [...entries].sort((a, b) => {
    const da = str(a, "type") === "dir" ? 0 : 1;
    const db = str(b, "type") === "dir" ? 0 : 1;
    return da - db || str(a, "name").localeCompare(str(b, "name"));
  });
  const lines = [`Contents of ${title}:`, ""];
  for (const e of sorted) {
    const type = str(e, "type");
    const name = str(e, "name");
    if (type === "dir") lines.push(`- ${name}/`);
    else if (type === "symlink") lines.push(`- ${name} (symlink)`);
    else if (type === "submodule") lines.push(`- ${name} (submodule)`);
    else lines.push(`- ${name} (${size(num(e, "size") ?? 0)})`);
  }
  if (sorted.length === 0) lines.push("*Empty directory.*");
  return lines.join("\n") + "\n";
}

/** An organisation or user and its recently pushed repositories. */
export function renderAccount(account: Json, repos: Json[]): string {
  const org = str(account, "type") === "Organization";
  const lines = [
    `**${oneLine(str(account, "name") || str(account, "login"))}** — ${
      org ? "Organization" : "User"
    }`,
  ];
  const about = str(account, "description") || str(account, "bio");
  if (about) lines.push("", oneLine(about, 500));
  const extra = [
    str(account, "blog") && `Website: ${str(account, "blog")}`,
    str(account, "location") && `Location: ${oneLine(str(account, "location"), 100)}`,
    `Public repositories: ${num(account, "public_repos") ?? "?"}`,
  ].filter(Boolean);
  lines.push("", extra.join(" | "));
  lines.push("", "## Recently active repositories", "");
  for (const r of repos) {
    const bits = [
      `**${str(r, "name")}**`,
      str(r, "language"),
      `${num(r, "stargazers_count") ?? 0} stars`,
    ].filter(Boolean);
    const d = str(r, "description");
    lines.push(`- ${bits.join(" | ")}${d ? ` — ${oneLine(d)}` : ""}`);
  }
  if (repos.length === 0) lines.push("*No public repositories.*");
  return lines.join("\n") + "\n";
}

/** A gist: each file under its own heading. */
export function renderGist(gist: Json): string {
  const lines: string[] = [];
  const owner = str(obj(gist, "owner"), "login");
  lines.push(
    `Gist ${str(gist, "id")}${owner ? ` by @${owner}` : ""}, created ${
      day(str(gist, "created_at"))
    }, updated ${day(str(gist, "updated_at"))}`,
    "",
  );
  const files = obj(gist, "files") ?? {};
  for (const [name, file] of Object.entries(files)) {
    const content = str(file, "content");
    const lang = str(file, "language").toLowerCase().replace(/[^a-z0-9+#-]/g, "");
    lines.push(`## ${name}`, "");
    if (!content && file !== null && (file as Json).truncated === true) {
      lines.push(`*Too large to include; raw: ${str(file, "raw_url")}*`, "");
      continue;
    }
    const fence = "`".repeat(Math.max(3, longestRun(content) + 1));
    lines.push(`${fence}${lang}`, content.replace(/\n$/, ""), fence, "");
  }
  return lines.join("\n");
}

function fileMark(status: string): string {
  return status === "added"
    ? "+"
    : status === "removed"
    ? "-"
    : status === "modified" || status === "changed"
    ? "~"
    : status === "renamed"
    ? ">"
    : "?";
}

function fileLines(files: Json[], max = 50): string[] {
  const lines = files.slice(0, max).map((f) =>
    `- ${fileMark(str(f, "status"))} ${str(f, "filename")} (+${num(f, "additions") ?? 0}/-${
      num(f, "deletions") ?? 0
    })`
  );
  if (files.length > max) lines.push(`- … ${files.length - max} more files`);
  return lines;
}

/** A commit: message, author, stats and files. */
export function renderCommit(commit: Json): string {
  const c = obj(commit, "commit") ?? {};
  const author = str(obj(commit, "author"), "login") || str(obj(c, "author"), "name");
  const message = str(c, "message").trim();
  const stats = obj(commit, "stats") ?? {};
  const files = arr(commit, "files");
  return [
    `**${str(commit, "sha").slice(0, 10)}** by ${author ? `@${author}` : "unknown"} — ${
      day(str(obj(c, "author"), "date"))
    }`,
    "",
    demote(message, 2),
    "",
    "## Files changed",
    "",
    `${num(stats, "total") ?? 0} changes: +${num(stats, "additions") ?? 0} / -${
      num(stats, "deletions") ?? 0
    } across ${files.length} files`,
    "",
    ...fileLines(files),
  ].join("\n") + "\n";
}

/** A comparison of two refs. */
export function renderCompare(cmp: Json): string {
  const commits = arr(cmp, "commits");
  const files = arr(cmp, "files");
  const lines = [
    `**${str(cmp, "status")}** — ${num(cmp, "ahead_by") ?? 0} ahead, ${
      num(cmp, "behind_by") ?? 0
    } behind, ${
      num(cmp, "total_commits") ?? commits.length
    } commits, ${files.length} files changed`,
    "",
    `${str(obj(cmp, "base_commit"), "sha").slice(0, 10)} → ${
      str(commits.at(-1), "sha").slice(0, 10)
    }`,
    "",
    "## Commits",
    "",
  ];
  for (const c of commits.slice(0, 30)) {
    lines.push(
      `- \`${str(c, "sha").slice(0, 10)}\` ${
        oneLine(str(obj(c, "commit"), "message").split("\n")[0] ?? "", 120)
      }`,
    );
  }
  if (commits.length > 30) lines.push(`- … ${commits.length - 30} more commits`);
  lines.push("", "## Files changed", "", ...fileLines(files));
  return lines.join("\n") + "\n";
}

/** A list of releases. */
export function renderReleases(releases: Json[], repo: string): string {
  const lines = [`Latest releases of ${repo}:`, ""];
  for (const r of releases) {
    const flags = [r.prerelease === true && "pre-release", r.draft === true && "draft"]
      .filter(Boolean);
    lines.push(
      `- **${oneLine(str(r, "name") || str(r, "tag_name"))}** \`${str(r, "tag_name")}\` — ${
        day(str(r, "published_at") || str(r, "created_at"))
      }${flags.length ? ` (${flags.join(", ")})` : ""}`,
    );
  }
  return lines.join("\n") + "\n";
}

/** One release with its notes and assets. */
export function renderRelease(r: Json): string {
  const lines = [
    `**${oneLine(str(r, "name") || str(r, "tag_name"))}**`,
    "",
    `Tag \`${str(r, "tag_name")}\` by @${str(obj(r, "author"), "login") || "unknown"} — ${
      day(str(r, "published_at") || str(r, "created_at"))
    }${r.prerelease === true ? " · pre-release" : ""}`,
    "",
    demote(str(r, "body").trim() || "*No release notes.*", 1),
    "",
  ];
  const assets = arr(r, "assets");
  if (assets.length) {
    lines.push("## Assets", "");
    for (const a of assets) {
      lines.push(
        `- ${str(a, "name")} (${size(num(a, "size") ?? 0)}, ${
          (num(a, "download_count") ?? 0).toLocaleString("en-US")
        } downloads)`,
      );
    }
  }
  return lines.join("\n") + "\n";
}

function login(node: Json): string {
  return `@${str(obj(node, "author"), "login") || "ghost"}`;
}

/**
 * A discussion (GraphQL `Discussion`) as Markdown: the opening post, then
 * one heading per comment (`dc_<id>`) with its replies nested one level
 * below, each saying whom it answers; the accepted answer is marked.
 */
export function renderDiscussion(d: Json): Rendered {
  const b = new Builder();
  const comments = obj(d, "comments");
  const meta = [
    `**discussion** · ${str(obj(d, "category"), "name") || "uncategorised"}`,
    `by **${login(d)}**`,
    `opened ${day(str(d, "createdAt"))}`,
    `${num(comments, "totalCount") ?? 0} comments`,
    `${num(d, "upvoteCount") ?? 0} upvotes`,
  ];
  if (d.closed === true) meta.push("closed");
  b.add(`# ${str(d, "title").replace(/\s+/g, " ").trim() || "(untitled)"}\n\n`);
  b.add(meta.join(" · ") + "\n\n");
  const body = str(d, "body").trim();
  b.add((body ? demote(body, 2) : "*No description provided.*") + "\n\n");
  const nodes = arr(comments, "nodes");
  if (nodes.length > 0) b.heading(undefined, "## Comments");
  for (const c of nodes) {
    const id = num(c, "databaseId");
    const mark = c.isAnswer === true ? " · accepted answer" : "";
    b.heading(
      id !== undefined ? `dc_${id}` : undefined,
      `### dc_${id ?? "?"} — ${login(c)}, ${day(str(c, "createdAt"))} · ${
        num(c, "upvoteCount") ?? 0
      } upvotes${mark}`,
    );
    b.add(demote(str(c, "body").trim(), 3) + "\n\n");
    const replies = obj(c, "replies");
    for (const r of arr(replies, "nodes")) {
      const rid = num(r, "databaseId");
      b.heading(
        rid !== undefined ? `dc_${rid}` : undefined,
        `#### dc_${rid ?? "?"} — ${login(r)}, ${day(str(r, "createdAt"))} (reply to dc_${
          id ?? "?"
        })`,
      );
      b.add(demote(str(r, "body").trim(), 4) + "\n\n");
    }
    const more = (num(replies, "totalCount") ?? 0) - arr(replies, "nodes").length;
    if (more > 0) b.add(`*${more} more repl${more === 1 ? "y" : "ies"} not loaded here.*\n\n`);
  }
  return b.result();
}
