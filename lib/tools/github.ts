/**
 * `github` (`GitHub`): search GitHub and read repositories, directories,
 * files, issues, pull requests and issue templates through the REST API.
 *
 * - `search_issues`, `search_code`, `search_repos`: GitHub search syntax;
 *   results are records in the configured output format (never shelved);
 * - `repo`: metadata, README, CITATION.cff and OpenSSF Scorecard; the
 *   repository goes on the research shelf;
 * - `tree`, `file` (any ref; `#L10-L20` selects lines), `issue` and
 *   `pull_request` (comments paged with limit and page),
 *   `issue_templates` (issue forms, Markdown templates, contact links).
 *
 * The URL forms of the same things are served by the page tools too (the
 * GitHub source); this tool adds search, refs, paging and templates.
 *
 * @module
 */
import { z } from "zod";

import type { Document } from "../content/document/document.ts";
import { cutToBudget } from "../content/document/views.ts";
import { Frontmatter, yamlModule } from "../envelope/frontmatter.ts";
import { renderRecords } from "../envelope/formats.ts";
import type { ToolResult } from "../envelope/response.ts";
import { ToolError } from "../errors.ts";
import { type Trusted, trusted } from "../trust.ts";
import { loadFile, loadRepo, loadThread, loadTree } from "../sources/github/mod.ts";
import {
  GITHUB_RAW,
  githubJson,
  githubRaw,
  optional,
  rateWarnings,
} from "../sources/github/api.ts";
import { arr, day, type Json, num, obj, oneLine, str } from "../sources/github/render.ts";
import {
  encodePath,
  parseIssueQuery,
  parseLineAnchor,
  parsePathQuery,
  parseRepoQuery,
  PATH_FORMS,
} from "../sources/github/urls.ts";
import {
  mcpHints,
  pageFrontmatter,
  pageUrl,
  READS_THE_WEB,
  shelveCitation,
  toolRef,
} from "./page_view.ts";
import { defineTool, type ToolContext } from "./registry.ts";

/** Default results (or comments) per call. */
export const DEFAULT_LIMIT = 10;
/** Most per call (GitHub's page size cap). */
export const MAX_LIMIT = 100;
/** Token budget of a Document answer (README, thread, file). */
export const ANSWER_TOKENS = 5000;

const ACTIONS = [
  "search_issues",
  "search_code",
  "search_repos",
  "repo",
  "tree",
  "issue",
  "pull_request",
  "file",
  "issue_templates",
] as const;

const schema = z.object({
  action: z.enum(ACTIONS),
  query: z.string().max(1000).describe(
    "search syntax, owner/repo, owner/repo/path or owner/repo#123 (or a GitHub URL), per action",
  ),
  ref: z.string().max(200).optional().describe("file, tree: branch, tag or commit"),
  limit: z.number().int().min(1).optional().describe("results or comments per page (default 10)"),
  page: z.number().int().min(1).max(1000).optional().describe("page, from 1"),
});

/** Arguments of the tool. */
export type GithubArgs = z.infer<typeof schema>;

const DESCRIPTION = `GitHub through its REST API: search, repository facts, files and threads.

- search_issues, search_repos, search_code: GitHub search syntax
  ('repo:python/cpython is:open label:bug'; code needs GITHUB_TOKEN);
- repo owner/repo: stars, licence, README, CITATION.cff, Scorecard (goes
  on the research shelf);
- tree owner/repo[/dir]; file owner/repo/path[#L10-L20];
- issue, pull_request owner/repo#123: body and comments;
- issue_templates owner/repo.`;

function limitOf(args: GithubArgs, fm: Frontmatter): number {
  const limit = args.limit ?? DEFAULT_LIMIT;
  if (limit > MAX_LIMIT) {
    fm.append("note", trusted.text`limit=${limit} was lowered to ${MAX_LIMIT}, the most per call`);
    return MAX_LIMIT;
  }
  return limit;
}

function baseFrontmatter(action: typeof ACTIONS[number]): Frontmatter {
  const fm = new Frontmatter();
  fm.set("api", trusted.text`GitHub`);
  fm.set("action", trusted.oneOf(ACTIONS, action));
  return fm;
}

// ---------------------------------------------------------------------------
// Searches

const SEARCH = {
  search_issues: { path: "/search/issues", type: "issues" },
  search_code: { path: "/search/code", type: "code" },
  search_repos: { path: "/search/repositories", type: "repositories" },
} as const;

function issueRecord(item: Json): Record<string, unknown> {
  const repoUrl = str(item, "repository_url");
  const repo = repoUrl.replace(/^https:\/\/api\.github\.com\/repos\//, "");
  return {
    ref: `${repo}#${num(item, "number") ?? "?"}`,
    type: obj(item, "pull_request") ? "pull_request" : "issue",
    state: str(item, "state"),
    title: oneLine(str(item, "title")),
    labels: arr(item, "labels").map((l) => str(l, "name")).filter(Boolean).join(", "),
    comments: num(item, "comments") ?? 0,
    updated: day(str(item, "updated_at")),
  };
}

function codeRecord(item: Json): Record<string, unknown> {
  const fragments = arr(item, "text_matches").slice(0, 3).map((m) =>
    oneLine(str(m, "fragment"), 120)
  );
  return {
    repo: str(obj(item, "repository"), "full_name"),
    path: str(item, "path"),
    ...(fragments.length ? { matches: fragments.join(" … ") } : {}),
  };
}

function repoRecord(item: Json): Record<string, unknown> {
  return {
    repo: str(item, "full_name"),
    description: oneLine(str(item, "description")),
    stars: num(item, "stargazers_count") ?? 0,
    language: str(item, "language"),
    license: str(obj(item, "license"), "spdx_id"),
    pushed: day(str(item, "pushed_at")),
  };
}

/** Most labels listed for an empty label search (one API page). */
const MAX_LABELS = 100;

/**
 * For an issue search with `repo:` and `label:` qualifiers that found
 * nothing: the repository's real labels (one page of the labels API), and
 * how many of the query's labels are not among them.
 */
async function repoLabels(
  q: string,
  ctx: ToolContext,
): Promise<
  { repo: Trusted; names: string[]; text: string; asked: number; unknown: number } | undefined
> {
  const repo = /(?:^|\s)repo:([A-Za-z0-9][A-Za-z0-9-]{0,38}\/[A-Za-z0-9._-]{1,100})(?=\s|$)/.exec(q)
    ?.[1];
  const asked = [...q.matchAll(/(?:^|\s)-?label:(?:"([^"]+)"|(\S+))/g)].flatMap((m) =>
    (m[1] ?? m[2]).split(",")
  ).map((l) => l.trim().toLowerCase()).filter(Boolean);
  if (!repo || asked.length === 0) return undefined;
  const r = await optional(
    "labels",
    () =>
      githubJson<Json[]>(`/repos/${repo}/labels?per_page=${MAX_LABELS}`, `the labels of ${repo}`, {
        signal: ctx.signal,
      }),
  );
  if (!r) return undefined;
  const labels = arr(r.data).filter((l) => str(l, "name"));
  const names = labels.map((l) => str(l, "name"));
  const known = new Set(names.map((n) => n.toLowerCase()));
  const lines = labels.map((l) => {
    const d = oneLine(str(l, "description"));
    return `- ${str(l, "name")}${d ? ` — ${d}` : ""}`;
  });
  if (labels.length === 0) lines.push("(the repository has no labels)");
  if (labels.length === MAX_LABELS) lines.push(`(the first ${MAX_LABELS} labels)`);
  return {
    repo: trusted.matching(repo, /^[A-Za-z0-9._\/-]{3,141}$/),
    names,
    text: lines.join("\n"),
    asked: asked.length,
    unknown: asked.filter((a) => !known.has(a)).length,
  };
}

async function search(
  action: keyof typeof SEARCH,
  args: GithubArgs,
  ctx: ToolContext,
): Promise<ToolResult> {
  const q = args.query.trim();
  if (!q) {
    throw new ToolError(
      `${action} needs a query in GitHub search syntax, e.g. ${
        action === "search_code"
          ? "'repo:denoland/deno Deno.serve'"
          : action === "search_repos"
          ? "'mcp server language:typescript'"
          : "'repo:python/cpython is:open label:bug'"
      }`,
    );
  }
  const fm = baseFrontmatter(action);
  const limit = limitOf(args, fm);
  const page = args.page ?? 1;
  const { path, type } = SEARCH[action];
  const params = new URLSearchParams({ q, per_page: String(limit), page: String(page) });
  const r = await githubJson<Json>(`${path}?${params}`, `the search '${oneLine(q, 80)}'`, {
    signal: ctx.signal,
    accept: action === "search_code" ? "application/vnd.github.text-match+json" : undefined,
  });
  const items = arr(r.data, "items");
  const total = num(r.data, "total_count") ?? items.length;
  fm.set(
    "source",
    trusted.url(`https://github.com/search?${new URLSearchParams({ q, type })}`),
  );
  fm.set("query", trusted.echo(q, 300));
  fm.set("total_results", total);
  fm.set("results", items.length);
  if (items.length > 0) {
    const first = (page - 1) * limit + 1;
    fm.set("showing", trusted.text`${first}-${first + items.length - 1} (page ${page})`);
  }
  if (r.data.incomplete_results === true) {
    fm.append("note", trusted.text`GitHub's search timed out: the results may be incomplete`);
  }
  for (const f of rateWarnings(r.headers)) fm.append("warning", f.value as Trusted);
  if (items.length === 0 && action === "search_issues" && page === 1) {
    const labels = await repoLabels(q, ctx);
    if (labels) {
      fm.append(
        "note",
        labels.unknown > 0
          ? trusted
            .text`nothing matched, and ${labels.unknown} of the query's ${labels.asked} label(s) is not a label of ${labels.repo}; its ${labels.names.length} labels are listed in the fence: search again with one of them (quote names with spaces: label:"good first issue")`
          : trusted
            .text`nothing matched; the query's labels exist in ${labels.repo} (its ${labels.names.length} labels are listed in the fence): loosen the other qualifiers`,
      );
      return ctx.respond({
        frontmatter: fm,
        fences: [{ content: labels.text, title: `Labels of ${labels.repo}` }],
      });
    }
  }
  if (items.length === 0) {
    fm.append(
      "hint",
      page > 1 && total > 0
        ? trusted.text`page=${page} is past the last of ${total} results; use a smaller page`
        : trusted
          .text`nothing matched; loosen the query (fewer terms or qualifiers; see https://docs.github.com/search-github/searching-on-github)`,
    );
    return ctx.respond({ frontmatter: fm });
  }
  if (page * limit < Math.min(total, 1000)) {
    fm.append("hint", trusted.text`more results: call again with page=${page + 1}`);
  }
  fm.append(
    "hint",
    action === "search_repos"
      ? trusted.text`action=repo with owner/repo for a repository's README and metadata`
      : action === "search_code"
      ? trusted.text`action=file with owner/repo/path to read a file`
      : trusted.text`action=issue or pull_request with owner/repo#N for the thread`,
  );
  const records = items.map(
    action === "search_issues" ? issueRecord : action === "search_code" ? codeRecord : repoRecord,
  );
  const rendered = renderRecords(records, ctx.defaultOutput, { name: type });
  return ctx.respond({
    frontmatter: fm,
    fences: [{ content: rendered.text }],
    structured: rendered.structured,
  });
}

// ---------------------------------------------------------------------------
// Documents

function documentAnswer(
  doc: Document,
  fm: Frontmatter,
  ctx: ToolContext,
  narrow: Trusted,
): ToolResult {
  const cut = cutToBudget(doc.markdown, ANSWER_TOKENS, doc.tokens);
  if (cut.truncated) {
    fm.set("truncated", true);
    fm.append(
      "hint",
      trusted.text`cut at ~${cut.keptTokens} of ~${cut.totalTokens} tokens; ${narrow}`,
    );
  }
  return ctx.respond({
    frontmatter: fm,
    fences: [{ content: cut.text, title: doc.title || undefined }],
  });
}

function docFrontmatter(
  doc: Document,
  action: typeof ACTIONS[number],
  ctx: ToolContext,
): Frontmatter {
  const fm = pageFrontmatter(pageUrl(doc.url), doc, false, false, mcpHints(ctx, "page"));
  fm.set("action", trusted.oneOf(ACTIONS, action));
  return fm;
}

async function repo(args: GithubArgs, ctx: ToolContext): Promise<ToolResult> {
  const t = parseRepoQuery(args.query);
  const doc = await loadRepo(t, { signal: ctx.signal });
  const fm = docFrontmatter(doc, "repo", ctx);
  await shelveCitation(doc, fm);
  const packages = ctx.toolName("packages");
  if (packages) {
    fm.append(
      "see_also",
      trusted.text`${trusted.echo(packages, 64)} (action=project, query=github.com/${
        trusted.matching(`${t.owner}/${t.repo}`, /^[A-Za-z0-9._\/-]{3,141}$/)
      }) for the OpenSSF Scorecard's checks and dependents`,
    );
  }
  return documentAnswer(
    doc,
    fm,
    ctx,
    trusted.text`read the README's sections with ${toolRef(ctx, "web_fetch_incisive")} on ${
      trusted.url(doc.url)
    } and section=, or the file itself with action=file`,
  );
}

async function tree(args: GithubArgs, ctx: ToolContext): Promise<ToolResult> {
  const t = parsePathQuery(args.query, args.ref, false);
  const doc = await loadTree(t, { signal: ctx.signal });
  return documentAnswer(
    doc,
    docFrontmatter(doc, "tree", ctx),
    ctx,
    trusted.text`list a subdirectory with owner/repo/path`,
  );
}

async function file(args: GithubArgs, ctx: ToolContext): Promise<ToolResult> {
  const t = parsePathQuery(args.query, args.ref, true);
  let lines;
  if (t.lines !== undefined) {
    lines = parseLineAnchor(t.lines);
    if (!lines) {
      throw new ToolError(
        `'#${t.lines.slice(0, 40)}' is not a line anchor; use #L10 or #L10-L20 (${PATH_FORMS})`,
      );
    }
  }
  const doc = await loadFile({ ...t, ref: t.ref ?? "HEAD" }, { signal: ctx.signal, lines });
  const fm = docFrontmatter(doc, "file", ctx);
  if (lines) {
    const tokens = Math.ceil(doc.markdown.length / 4);
    if (tokens > ANSWER_TOKENS) {
      throw new ToolError(
        `lines ${lines.from}-${lines.to} are ~${tokens} tokens, more than the ${ANSWER_TOKENS} one answer holds; ask for a narrower range (#L${lines.from}-L${
          lines.from + Math.max(1, Math.floor((lines.to - lines.from) * ANSWER_TOKENS / tokens))
        })`,
      );
    }
  }
  return documentAnswer(
    doc,
    fm,
    ctx,
    trusted
      .text`select lines with #L100-L200 on the query, or use ${
      toolRef(ctx, "web_fetch_incisive")
    } on ${trusted.url(doc.url)} with section= (a definition) or search=`,
  );
}

async function thread(args: GithubArgs, ctx: ToolContext, pull: boolean): Promise<ToolResult> {
  const t = parseIssueQuery(args.query);
  const scratch = new Frontmatter();
  const limit = limitOf(args, scratch);
  const doc = await loadThread(t, pull, { limit, page: args.page ?? 1 }, { signal: ctx.signal });
  const fm = docFrontmatter(doc, pull ? "pull_request" : "issue", ctx);
  if (limit !== (args.limit ?? DEFAULT_LIMIT)) {
    fm.append("note", trusted.text`limit was lowered to ${MAX_LIMIT}, the most per call`);
  }
  return documentAnswer(
    doc,
    fm,
    ctx,
    trusted.text`read one comment with ${toolRef(ctx, "web_fetch_incisive")} on ${
      trusted.url(doc.url)
    } and section='ic_<id>', or search the thread there with search=`,
  );
}

// ---------------------------------------------------------------------------
// Issue templates

interface Templates {
  forms: string[];
  markdown: string[];
  contacts: string[];
  blankIssues?: boolean;
}

function yamlObject(text: string): Json | undefined {
  try {
    const v = yamlModule().parse(text, { maxAliasCount: 20 });
    return v !== null && typeof v === "object" && !Array.isArray(v) ? v as Json : undefined;
  } catch {
    return undefined;
  }
}

/** A title prefix as written (its trailing space matters), on one line. */
function prefix(text: string): string {
  return text.replace(/[\r\n]+/g, " ").slice(0, 80);
}

function listText(v: unknown): string {
  if (Array.isArray(v)) return v.filter((x) => typeof x === "string").join(", ");
  return typeof v === "string" ? v : "";
}

function describeForm(name: string, form: Json | undefined): string {
  if (!form) return `### ${name}\n\n*Could not be read as YAML.*`;
  const lines = [`### ${oneLine(str(form, "name")) || name} (${name})`, ""];
  const description = str(form, "description");
  if (description) lines.push(oneLine(description, 300), "");
  const meta = [
    str(form, "title") && `Title prefix: "${prefix(str(form, "title"))}"`,
    listText(form.labels) && `Labels: ${listText(form.labels)}`,
    listText(form.assignees) && `Assignees: ${listText(form.assignees)}`,
  ].filter(Boolean);
  if (meta.length) lines.push(meta.join(" · "), "");
  const fields = arr(form, "body").filter((f) => str(f, "type") !== "markdown").map((f) => {
    const label = oneLine(str(obj(f, "attributes"), "label"), 100) || str(f, "id") || "?";
    const required = obj(f, "validations")?.required === true ? ", required" : "";
    return `- ${label} (${str(f, "type")}${required})`;
  });
  if (fields.length) lines.push("Fields:", ...fields);
  return lines.join("\n");
}

function describeMarkdown(name: string, text: string): string {
  const m = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  const front = m ? yamlObject(m[1]) : undefined;
  const lines = [`### ${oneLine(str(front, "name")) || name} (${name})`, ""];
  const about = str(front, "about");
  if (about) lines.push(oneLine(about, 300), "");
  const meta = [
    str(front, "title") && `Title prefix: "${prefix(str(front, "title"))}"`,
    listText(front?.labels) && `Labels: ${listText(front?.labels)}`,
  ].filter(Boolean);
  if (meta.length) lines.push(meta.join(" · "));
  return lines.join("\n");
}

async function issueTemplates(args: GithubArgs, ctx: ToolContext): Promise<ToolResult> {
  const t = parseRepoQuery(args.query);
  const repoName = `${t.owner}/${t.repo}`;
  const fm = baseFrontmatter("issue_templates");
  fm.set("source", trusted.url(`https://github.com/${repoName}/issues/new/choose`));
  const o = { signal: ctx.signal };
  let listing: Json[];
  try {
    const r = await githubJson<unknown>(
      `/repos/${repoName}/contents/.github/ISSUE_TEMPLATE`,
      `the issue templates of ${repoName}`,
      o,
    );
    listing = arr(r.data);
    for (const f of rateWarnings(r.headers)) fm.append("warning", f.value as Trusted);
  } catch (error) {
    if ((error as { remote?: { status?: number } }).remote?.status !== 404) throw error;
    // Either the repository or the folder is missing: ask for the repository to tell them apart.
    await githubJson(`/repos/${repoName}`, `repository ${repoName}`, o);
    fm.append(
      "note",
      trusted
        .text`no custom issue submission flow is configured (.github/ISSUE_TEMPLATE is absent): a blank issue is expected`,
    );
    return ctx.respond({ frontmatter: fm });
  }
  const files = listing.filter((e) =>
    str(e, "type") === "file" && /\.(ya?ml|md)$/i.test(str(e, "name"))
  )
    .slice(0, 20);
  const templates: Templates = { forms: [], markdown: [], contacts: [] };
  const texts = await Promise.all(
    files.map((f) =>
      optional(`template ${str(f, "name")}`, async () => {
        const r = await githubRaw(
          `${GITHUB_RAW}/${repoName}/HEAD/.github/ISSUE_TEMPLATE/${encodePath(str(f, "name"))}`,
          `the template ${str(f, "name")}`,
          o,
        );
        return new TextDecoder().decode(r!.bytes);
      })
    ),
  );
  files.forEach((f, i) => {
    const name = str(f, "name");
    const text = texts[i];
    if (text === undefined) return;
    if (/^config\.ya?ml$/i.test(name)) {
      const config = yamlObject(text);
      if (typeof config?.blank_issues_enabled === "boolean") {
        templates.blankIssues = config.blank_issues_enabled;
      }
      for (const link of arr(config, "contact_links")) {
        templates.contacts.push(
          `- ${oneLine(str(link, "name"), 100)} — ${oneLine(str(link, "url"), 300)}${
            str(link, "about") ? ` — ${oneLine(str(link, "about"), 200)}` : ""
          }`,
        );
      }
    } else if (/\.ya?ml$/i.test(name)) templates.forms.push(describeForm(name, yamlObject(text)));
    else templates.markdown.push(describeMarkdown(name, text));
  });
  const parts = [`## Issue submission for ${repoName}`, ""];
  if (templates.forms.length) parts.push("## Issue forms", "", templates.forms.join("\n\n"), "");
  if (templates.markdown.length) {
    parts.push("## Markdown templates", "", templates.markdown.join("\n\n"), "");
  }
  if (templates.contacts.length) parts.push("## Contact links", "", ...templates.contacts, "");
  if (templates.blankIssues !== undefined) {
    parts.push(`Blank issues: ${templates.blankIssues ? "allowed" : "disabled"}`);
  }
  fm.set("forms", templates.forms.length);
  fm.set("markdown_templates", templates.markdown.length);
  fm.set("contact_links", templates.contacts.length);
  if (templates.blankIssues !== undefined) fm.set("blank_issues", templates.blankIssues);
  fm.append(
    "note",
    trusted
      .text`issues here are filed through the templates above; prefer the chooser at https://github.com/${
      trusted.matching(repoName, /^[A-Za-z0-9._\/-]{3,141}$/)
    }/issues/new/choose over a blank API filing`,
  );
  return ctx.respond({ frontmatter: fm, fences: [{ content: parts.join("\n").trim() }] });
}

function run(args: GithubArgs, ctx: ToolContext): Promise<ToolResult> {
  switch (args.action) {
    case "search_issues":
    case "search_code":
    case "search_repos":
      return search(args.action, args, ctx);
    case "repo":
      return repo(args, ctx);
    case "tree":
      return tree(args, ctx);
    case "file":
      return file(args, ctx);
    case "issue":
      return thread(args, ctx, false);
    case "pull_request":
      return thread(args, ctx, true);
    case "issue_templates":
      return issueTemplates(args, ctx);
  }
}

/** The tool. */
export const githubTool = defineTool({
  key: "github",
  names: { desktop: "github", code: "GitHub" },
  title: "GitHub",
  description: DESCRIPTION,
  inputSchema: schema,
  annotations: READS_THE_WEB,
  handler: (args, ctx) => run(args, ctx),
});
