/**
 * `packages` (`Packages`): open-source packages through deps.dev.
 *
 * - `package`: versions, the default version, its licences and advisories;
 * - `version`: licences, advisories with their severities, SLSA provenance
 *   and attestations, links, registries, related projects;
 * - `dependencies`: the resolved graph, direct and indirect, capped;
 * - `project`: a GitHub/GitLab/Bitbucket project with its OpenSSF Scorecard;
 * - `advisory`: one OSV advisory (aliases, title, CVSS).
 *
 * Lists (versions, advisories, dependencies, Scorecard checks) are records
 * in the configured output format; upstream text (descriptions, titles,
 * reasons, links) stays in the fence; the frontmatter holds validated values.
 *
 * @module
 */
import { z } from "zod";
import { OUTPUT_FORMATS } from "../config.ts";
import { Frontmatter } from "../envelope/frontmatter.ts";
import { renderRecords } from "../envelope/formats.ts";
import type { FencedPart, ToolResult } from "../envelope/response.ts";
import { ToolError } from "../errors.ts";
import { type Trusted, trusted } from "../trust.ts";
import {
  ADVISORY_ID_PATTERN,
  type AdvisoryResponse,
  cvssSeverity,
  type DependenciesResponse,
  depsdevGet,
  ecosystemList,
  NAME_PATTERN,
  num,
  osvAffected,
  packagePath,
  type PackageRef,
  type PackageResponse,
  parseAdvisoryId,
  parsePackageQuery,
  parseProjectId,
  PROJECT_ID_PATTERN,
  type ProjectResponse,
  scorecardLine,
  scorecardOf,
  seg,
  sourceProject,
  SYSTEM_LABELS,
  SYSTEMS,
  VERSION_PATTERN,
  versionPath,
  type VersionResponse,
  webUrl,
} from "../sources/depsdev.ts";
import { READS_THE_WEB } from "./page_view.ts";
import { byAction, defineTool, type ToolContext } from "./registry.ts";

const ACTIONS = ["package", "version", "dependencies", "project", "advisory"] as const;
const LABELS = SYSTEMS.map((s) => SYSTEM_LABELS[s]);
const LICENSE = /^[A-Za-z0-9(][A-Za-z0-9.+:() -]{0,199}$/;
const CVSS_VECTOR = /^CVSS:3\.[01](?:\/[A-Za-z]{1,3}:[A-Za-z]{1,3}){1,20}$/;
const SEVERITIES = ["Critical", "High", "Medium", "Low", "None"];
/** Advisories whose severity a version view looks up (one request each). */
export const ADVISORY_DETAIL_MAX = 5;
/** Default and largest number of listed versions / dependencies. */
export const DEFAULT_LIMIT = 20;
/** Largest `limit`. */
export const MAX_LIMIT = 500;

const schema = z.object({
  action: z.enum(ACTIONS),
  query: z.string().max(500).describe(
    "ecosystem/name[@version] (npm/express@4.18.2), github.com/owner/repo or an OSV id, per action",
  ),
  limit: z.number().int().min(1).max(MAX_LIMIT).optional().describe(
    "entries listed (defaults: 20 versions, 100 dependencies, 50 packages)",
  ),
});

type Args = z.infer<typeof schema>;

function setPackage(fm: Frontmatter, ref: PackageRef, version?: string): void {
  fm.set("ecosystem", trusted.oneOf(LABELS, SYSTEM_LABELS[ref.system]));
  fm.set("package", trusted.matching(ref.name, NAME_PATTERN));
  if (version !== undefined && VERSION_PATTERN.test(version)) {
    fm.set("version", trusted.matching(version, VERSION_PATTERN));
  }
  if (ref.askedName) {
    fm.append(
      "note",
      trusted.text`PyPI names are compared in normalised form: ${
        trusted.echo(ref.askedName, 100)
      } is looked up as ${trusted.matching(ref.name, NAME_PATTERN)}`,
    );
  }
}

function validLicences(list: unknown): Trusted[] {
  if (!Array.isArray(list)) return [];
  return list.filter((l): l is string => typeof l === "string" && LICENSE.test(l))
    .map((l) => trusted.matching(l, LICENSE));
}

function pkgNotFound(ref: PackageRef): string {
  return `Check the ${SYSTEM_LABELS[ref.system]} package name's spelling and ecosystem ` +
    `(names are case-sensitive in some ecosystems; Maven needs groupId:artifactId, Go the full module path). ` +
    `Accepted ecosystems: ${ecosystemList()}`;
}

function versionNotFound(ref: PackageRef, version: string): string {
  return `Check that ${ref.name} has a version '${version}' (action=package lists its versions; ` +
    `Go versions start with v, e.g. v1.2.3)`;
}

function isoDate(value: unknown): Trusted | undefined {
  if (typeof value !== "string") return undefined;
  try {
    return trusted.isoDate(value);
  } catch {
    return undefined;
  }
}

function projectPointers(fm: Frontmatter, ctx: ToolContext, project: string | undefined): void {
  if (!project || !PROJECT_ID_PATTERN.test(project)) return;
  const id = trusted.matching(project, PROJECT_ID_PATTERN);
  fm.append(
    "see_also",
    trusted
      .text`action=project query=${id} for the source repository's stars, licence and OpenSSF Scorecard`,
  );
  const m = /^github\.com\/([^/]+\/[^/]+)$/.exec(project);
  const github = ctx.toolName("github");
  if (m && github) {
    fm.append(
      "see_also",
      trusted.text`${trusted.echo(github, 64)} action=repo query=${
        trusted.matching(m[1], /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/)
      } for the repository itself (README, files, issues)`,
    );
  }
}

function linkLines(v: VersionResponse): string[] {
  const lines: string[] = [];
  for (const l of v.links ?? []) {
    if (typeof l?.url === "string") lines.push(`- ${l.label ?? "LINK"}: ${l.url}`);
  }
  return lines;
}

// ---------------------------------------------------------------------------

async function packageAction(args: Args, ctx: ToolContext): Promise<ToolResult> {
  const ref = parsePackageQuery(args.query);
  let asked: Trusted | undefined;
  if (ref.version !== undefined && VERSION_PATTERN.test(ref.version)) {
    asked = trusted.text`the package view covers every version; action=version query=${
      trusted.echo(`${ecoName(ref)}/${ref.name}@${ref.version}`, 400)
    } for version ${trusted.matching(ref.version, VERSION_PATTERN)} alone`;
  }
  const pkg = await depsdevGet<PackageResponse>(packagePath(ref), pkgNotFound(ref), ctx.signal);
  const versions = (Array.isArray(pkg.versions) ? pkg.versions : [])
    .filter((v) => typeof v?.versionKey?.version === "string");
  const byDate = [...versions].sort((a, b) =>
    String(b.publishedAt ?? "").localeCompare(String(a.publishedAt ?? ""))
  );
  const def = versions.find((v) => v.isDefault) ?? byDate[0];
  const defVersion = def?.versionKey?.version;
  let detail: VersionResponse | undefined;
  if (defVersion) {
    detail = await depsdevGet<VersionResponse>(
      versionPath(ref, defVersion),
      versionNotFound(ref, defVersion),
      ctx.signal,
    );
  }
  const fm = new Frontmatter()
    .set("source", trusted.url(webUrl(ref)))
    .set("api", trusted.text`deps.dev`)
    .set("action", trusted.oneOf(ACTIONS, "package"));
  setPackage(fm, ref);
  fm.append("note", asked);
  if (defVersion && VERSION_PATTERN.test(defVersion)) {
    fm.set("default_version", trusted.matching(defVersion, VERSION_PATTERN));
  }
  fm.set("versions", versions.length);
  const licences = validLicences(detail?.licenses);
  if (licences.length) fm.set("licenses", licences);
  const advisoryIds = (detail?.advisoryKeys ?? []).map((a) => a?.id).filter((id): id is string =>
    typeof id === "string" && ADVISORY_ID_PATTERN.test(id)
  );
  if (detail) fm.set("advisories", advisoryIds.length);
  if (detail?.isDeprecated) {
    fm.set("deprecated", true);
    fm.append("note", trusted.text`the default version is deprecated by its publisher`);
  }
  if (advisoryIds.length) {
    fm.set(
      "advisory_ids",
      advisoryIds.slice(0, 20).map((id) => trusted.matching(id, ADVISORY_ID_PATTERN)),
    );
    fm.append(
      "note",
      trusted.text`${advisoryIds.length} known security advisory(ies) on the default version`,
    );
  }
  if (defVersion && VERSION_PATTERN.test(defVersion)) {
    const q = trusted.echo(`${ecoName(ref)}/${ref.name}@${defVersion}`, 400);
    fm.append(
      "hint",
      trusted
        .text`action=version query=${q} for licences, advisories and provenance; action=dependencies query=${q} for the dependency graph`,
    );
  }
  const limit = args.limit ?? DEFAULT_LIMIT;
  const shown = byDate.slice(0, limit);
  if (versions.length > shown.length) {
    fm.append(
      "hint",
      trusted.text`${
        versions.length - shown.length
      } older versions not listed: call again with a larger limit (at most ${MAX_LIMIT})`,
    );
  }
  if (detail) projectPointers(fm, ctx, sourceProject(detail));

  const summary = [
    `# ${ref.name} (${SYSTEM_LABELS[ref.system]})`,
    "",
    `- Default version: ${defVersion ?? "unknown"}`,
  ];
  if (def?.publishedAt) summary.push(`- Published: ${def.publishedAt}`);
  if (detail) {
    summary.push(`- Licences: ${(detail.licenses ?? []).join(", ") || "none declared"}`);
    summary.push(
      `- Advisories on the default version: ${
        advisoryIds.length ? advisoryIds.join(", ") : "none known"
      }`,
    );
    if (detail.isDeprecated) {
      summary.push(`- DEPRECATED${detail.deprecatedReason ? `: ${detail.deprecatedReason}` : ""}`);
    }
    const links = linkLines(detail);
    if (links.length) summary.push("", "## Links", "", ...links);
  }
  summary.push(
    "",
    `${shown.length} of ${versions.length} versions shown, most recent first.`,
  );
  const format = ctx.defaultOutput;
  fm.set("format", trusted.oneOf(OUTPUT_FORMATS, format));
  const rendered = renderRecords(
    shown.map((v) => ({
      version: v.versionKey!.version!,
      published: v.publishedAt ?? null,
      default: v.isDefault === true,
      deprecated: v.isDeprecated === true,
    })),
    format,
    { columns: ["version", "published", "default", "deprecated"], name: "versions" },
  );
  return ctx.respond({
    frontmatter: fm,
    fences: [
      { content: summary.join("\n") },
      { content: rendered.text, title: "Versions" },
    ],
    structured: rendered.structured,
  });
}

function ecoName(ref: PackageRef): string {
  return ref.system.toLowerCase();
}

async function versionAction(args: Args, ctx: ToolContext): Promise<ToolResult> {
  const ref = parsePackageQuery(args.query);
  if (ref.version === undefined) {
    throw new ToolError(
      `Version required for the version action. Use ecosystem/name@version (e.g. pypi/requests@2.31.0, npm/@types/node@20.11.0); action=package query=${
        ecoName(ref)
      }/${ref.name} lists the versions`,
    );
  }
  const version = ref.version;
  const v = await depsdevGet<VersionResponse>(
    versionPath(ref, version),
    versionNotFound(ref, version),
    ctx.signal,
  );
  const fm = new Frontmatter()
    .set("source", trusted.url(webUrl(ref, version)))
    .set("api", trusted.text`deps.dev`)
    .set("action", trusted.oneOf(ACTIONS, "version"));
  setPackage(fm, ref, version);
  const published = isoDate(v.publishedAt);
  if (published) fm.set("published", published);
  if (v.isDefault !== undefined) fm.set("default", v.isDefault === true);
  const licences = validLicences(v.licenses);
  if (licences.length) fm.set("licenses", licences);
  if (v.isDeprecated) {
    fm.set("deprecated", true);
    fm.append("note", trusted.text`this version is deprecated by its publisher`);
  }
  const ids = [
    ...new Set(
      (v.advisoryKeys ?? []).map((a) => a?.id).filter((id): id is string =>
        typeof id === "string" && ADVISORY_ID_PATTERN.test(id)
      ),
    ),
  ];
  fm.set("advisories", ids.length);
  const provenances = Array.isArray(v.slsaProvenances) ? v.slsaProvenances : [];
  const attestations = Array.isArray(v.attestations) ? v.attestations : [];
  fm.set("slsa_provenances", provenances.length);
  if (provenances.length) {
    fm.set("slsa_verified", provenances.filter((p) => p?.verified === true).length);
  }
  fm.set("attestations", attestations.length);

  // Severities: one lookup per advisory, the first few only.
  const details = await Promise.all(
    ids.slice(0, ADVISORY_DETAIL_MAX).map(async (id) => {
      try {
        return await depsdevGet<AdvisoryResponse>(`/advisories/${seg(id)}`, "", ctx.signal);
      } catch (error) {
        // A missing severity leaves the id listed; only cancellation stops the view.
        if (error instanceof DOMException && error.name === "AbortError") throw error;
        return undefined;
      }
    }),
  );
  if (ids.length) {
    fm.set("advisory_ids", ids.slice(0, 20).map((id) => trusted.matching(id, ADVISORY_ID_PATTERN)));
    const worst = details.map((d) => num(d?.cvss3Score)).filter((s): s is number => s !== undefined)
      .sort((a, b) => b - a)[0];
    fm.append(
      "note",
      trusted.text`${ids.length} known security advisory(ies) affect this version${
        worst !== undefined
          ? trusted.text`; highest CVSS ${worst} (${
            trusted.oneOf(SEVERITIES, cvssSeverity(worst)!)
          })`
          : trusted.text``
      }`,
    );
    fm.append(
      "hint",
      trusted.text`action=advisory query=${
        trusted.matching(ids[0], ADVISORY_ID_PATTERN)
      } for an advisory's aliases, CVSS vector and OSV page`,
    );
    if (ids.length > ADVISORY_DETAIL_MAX) {
      fm.append(
        "note",
        trusted
          .text`severities looked up for the first ${ADVISORY_DETAIL_MAX} advisories only; use action=advisory for the others`,
      );
    }
  }
  fm.append(
    "hint",
    trusted.text`action=dependencies query=${
      trusted.echo(`${ecoName(ref)}/${ref.name}@${version}`, 400)
    } for the resolved dependency graph`,
  );
  projectPointers(fm, ctx, sourceProject(v));

  const lines = [`# ${ref.name}@${version} (${SYSTEM_LABELS[ref.system]})`, ""];
  lines.push(`- Licences: ${(v.licenses ?? []).join(", ") || "none declared"}`);
  if (v.publishedAt) lines.push(`- Published: ${v.publishedAt}`);
  lines.push(`- Default version: ${v.isDefault ? "yes" : "no"}`);
  if (v.isDeprecated) {
    lines.push(`- DEPRECATED${v.deprecatedReason ? `: ${v.deprecatedReason}` : ""}`);
  }
  lines.push("", `## SLSA provenance (${provenances.length})`, "");
  if (provenances.length === 0) lines.push("None published.");
  for (const p of provenances) {
    lines.push(
      `- ${p?.verified ? "verified" : "not verified"}: ${p?.sourceRepository ?? "?"}${
        p?.commit ? ` @ ${p.commit}` : ""
      }${p?.url ? ` (${p.url})` : ""}`,
    );
  }
  lines.push("", `## Attestations (${attestations.length})`, "");
  if (attestations.length === 0) lines.push("None published.");
  for (const a of attestations) {
    lines.push(
      `- ${a?.type ?? "attestation"}, ${a?.verified ? "verified" : "not verified"}${
        a?.sourceRepository ? `: ${a.sourceRepository}` : ""
      }${a?.commit ? ` @ ${a.commit}` : ""}${a?.url ? ` (${a.url})` : ""}`,
    );
  }
  const links = linkLines(v);
  if (links.length) lines.push("", "## Links", "", ...links);
  const registries = (v.registries ?? []).filter((r) => typeof r === "string");
  if (registries.length) lines.push("", "## Registries", "", ...registries.map((r) => `- ${r}`));
  const related = (v.relatedProjects ?? []).filter((p) => typeof p?.projectKey?.id === "string");
  if (related.length) {
    lines.push(
      "",
      "## Related projects",
      "",
      ...related.map((p) =>
        `- ${p.projectKey!.id} (${p.relationType ?? "related"}${
          p.relationProvenance ? `, ${p.relationProvenance}` : ""
        })`
      ),
    );
  }
  const fences: FencedPart[] = [{ content: lines.join("\n") }];
  let structured: Record<string, unknown> | undefined;
  if (ids.length) {
    const format = ctx.defaultOutput;
    fm.set("format", trusted.oneOf(OUTPUT_FORMATS, format));
    const rendered = renderRecords(
      ids.map((id, i) => {
        const d = details[i];
        const score = num(d?.cvss3Score);
        return {
          id,
          severity: cvssSeverity(score) ?? null,
          cvss3: score ?? null,
          title: d?.title ?? null,
          aliases: (d?.aliases ?? []).join(", ") || null,
        };
      }),
      format,
      { columns: ["id", "severity", "cvss3", "title", "aliases"], name: "advisories" },
    );
    fences.push({ content: rendered.text, title: `Advisories (${ids.length})` });
    structured = rendered.structured;
  } else {
    lines.push("", "## Advisories", "", "None known.");
    fences[0].content = lines.join("\n");
  }
  return ctx.respond({ frontmatter: fm, fences, structured });
}

async function dependenciesAction(args: Args, ctx: ToolContext): Promise<ToolResult> {
  const ref = parsePackageQuery(args.query);
  let version = ref.version;
  let defaulted = false;
  if (version === undefined) {
    const pkg = await depsdevGet<PackageResponse>(packagePath(ref), pkgNotFound(ref), ctx.signal);
    version = (pkg.versions ?? []).find((v) => v?.isDefault)?.versionKey?.version;
    if (!version || !VERSION_PATTERN.test(version)) {
      throw new ToolError(
        `deps.dev names no default version of ${ref.name}; give one as ecosystem/name@version (action=package lists them)`,
      );
    }
    defaulted = true;
  }
  const graph = await depsdevGet<DependenciesResponse>(
    `${versionPath(ref, version)}:dependencies`,
    `${
      versionNotFound(ref, version)
    }; deps.dev resolves dependency graphs for npm, PyPI, Go, Maven, Cargo, NuGet and RubyGems versions it has indexed`,
    ctx.signal,
  );
  const nodes = Array.isArray(graph.nodes) ? graph.nodes : [];
  const edges = Array.isArray(graph.edges) ? graph.edges : [];
  const selfIndex = Math.max(0, nodes.findIndex((n) => n?.relation === "SELF"));
  const requirement = new Map<number, string>();
  for (const e of edges) {
    if (
      e?.fromNode === selfIndex && typeof e.toNode === "number" && typeof e.requirement === "string"
    ) {
      requirement.set(e.toNode, e.requirement);
    }
  }
  const deps = nodes.map((n, i) => ({ n, i })).filter(({ n }) =>
    n?.relation === "DIRECT" || n?.relation === "INDIRECT"
  );
  const direct = deps.filter(({ n }) => n.relation === "DIRECT");
  const indirect = deps.filter(({ n }) => n.relation === "INDIRECT");
  const ordered = [...direct, ...indirect].sort((a, b) =>
    a.n.relation === b.n.relation
      ? String(a.n.versionKey?.name ?? "").localeCompare(String(b.n.versionKey?.name ?? ""))
      : a.n.relation === "DIRECT"
      ? -1
      : 1
  );
  const limit = args.limit ?? 100;
  const shown = ordered.slice(0, limit);
  const fm = new Frontmatter()
    .set("source", trusted.url(`${webUrl(ref, version)}/dependencies`))
    .set("api", trusted.text`deps.dev`)
    .set("action", trusted.oneOf(ACTIONS, "dependencies"));
  setPackage(fm, ref, version);
  fm.set("direct_deps", direct.length);
  fm.set("indirect_deps", indirect.length);
  fm.set("total_deps", deps.length);
  fm.set("showing", shown.length);
  if (defaulted) {
    fm.append("note", trusted.text`no version given: this is the graph of the default version`);
  }
  const nodeErrors = nodes.filter((n) => Array.isArray(n?.errors) && n.errors.length > 0).length;
  if ((typeof graph.error === "string" && graph.error) || nodeErrors) {
    fm.append(
      "warning",
      trusted.text`deps.dev could not resolve the whole graph${
        nodeErrors ? trusted.text` (${nodeErrors} node(s) with errors)` : trusted.text``
      }; the resolver's messages are in the body`,
    );
  }
  if (ordered.length > shown.length) {
    fm.append(
      "hint",
      trusted.text`${
        ordered.length - shown.length
      } more dependencies not listed (direct ones come first): call again with a larger limit (at most ${MAX_LIMIT})`,
    );
  }
  fm.append(
    "hint",
    trusted
      .text`action=version query=ecosystem/name@version on a dependency for its licences and advisories`,
  );
  const format = ctx.defaultOutput;
  fm.set("format", trusted.oneOf(OUTPUT_FORMATS, format));
  const summary = [
    `# ${ref.name}@${version} (${SYSTEM_LABELS[ref.system]}): resolved dependencies`,
    "",
    `${direct.length} direct, ${indirect.length} indirect, ${deps.length} in all; ${shown.length} listed.`,
  ];
  if (typeof graph.error === "string" && graph.error) {
    summary.push("", `Resolver error: ${graph.error}`);
  }
  for (const { n } of deps) {
    for (const err of Array.isArray(n.errors) ? n.errors : []) {
      summary.push(`- ${n.versionKey?.name ?? "?"}: ${String(err)}`);
    }
  }
  const fences: FencedPart[] = [{ content: summary.join("\n") }];
  let structured: Record<string, unknown> | undefined;
  if (shown.length) {
    const rendered = renderRecords(
      shown.map(({ n, i }) => ({
        name: n.versionKey?.name ?? null,
        version: n.versionKey?.version ?? null,
        relation: n.relation === "DIRECT" ? "direct" : "indirect",
        requirement: requirement.get(i) ?? null,
        bundled: n.bundled === true,
      })),
      format,
      { columns: ["name", "version", "relation", "requirement", "bundled"], name: "dependencies" },
    );
    fences.push({ content: rendered.text, title: "Dependencies" });
    structured = rendered.structured;
  }
  return ctx.respond({ frontmatter: fm, fences, structured });
}

async function projectAction(args: Args, ctx: ToolContext): Promise<ToolResult> {
  const id = parseProjectId(args.query);
  const p = await depsdevGet<ProjectResponse>(
    `/projects/${seg(id)}`,
    `deps.dev knows ${id} only if it is a public GitHub, GitLab or Bitbucket repository linked from a package it indexes; check the owner and repository names`,
    ctx.signal,
  );
  const fm = new Frontmatter()
    .set("source", trusted.url(`https://${id}`))
    .set("api", trusted.text`deps.dev`)
    .set("action", trusted.oneOf(ACTIONS, "project"))
    .set("project", trusted.matching(id, PROJECT_ID_PATTERN));
  const stars = num(p.starsCount);
  const forks = num(p.forksCount);
  const issues = num(p.openIssuesCount);
  if (stars !== undefined) fm.set("stars", stars);
  if (forks !== undefined) fm.set("forks", forks);
  if (issues !== undefined) fm.set("open_issues", issues);
  const licence = validLicences([p.license]);
  if (licence.length) fm.set("license", licence[0]);
  const card = scorecardOf(p);
  if (card) {
    fm.set(
      "openssf_scorecard",
      trusted.matching(scorecardLine(card), /^\d+(?:\.\d)?\/10(?: \(@ \d{4}-\d{2}-\d{2}\))?$/),
    );
  } else {
    fm.append("note", trusted.text`deps.dev has no OpenSSF Scorecard for this project`);
  }
  const m = /^github\.com\/([^/]+\/[^/]+)$/.exec(id);
  const github = ctx.toolName("github");
  if (m && github) {
    fm.append(
      "hint",
      trusted.text`${trusted.echo(github, 64)} action=repo query=${
        trusted.matching(m[1], /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/)
      } for the README, files, issues and pull requests`,
    );
  }
  const lines = [`# ${id}`, ""];
  if (p.description) lines.push(p.description, "");
  lines.push(
    `- Stars: ${stars ?? "?"}, forks: ${forks ?? "?"}, open issues: ${issues ?? "?"}`,
    `- Licence: ${p.license || "none detected"}`,
  );
  if (p.homepage) lines.push(`- Homepage: ${p.homepage}`);
  const fuzz = p.ossFuzz;
  lines.push("", "## OSS-Fuzz", "");
  const lineCount = num(fuzz?.lineCount);
  const covered = num(fuzz?.lineCoverCount);
  if (fuzz && lineCount) {
    lines.push(
      `Line coverage ${covered ?? 0}/${lineCount} (${
        Math.round(((covered ?? 0) / lineCount) * 1000) / 10
      }%)${fuzz.date ? ` as of ${fuzz.date}` : ""}${
        fuzz.configUrl ? `; config ${fuzz.configUrl}` : ""
      }`,
    );
  } else lines.push("Not enrolled.");
  const fences: FencedPart[] = [];
  let structured: Record<string, unknown> | undefined;
  if (card) {
    const checks = (p.scorecard?.checks ?? []).filter((c) => typeof c?.name === "string");
    const sorted = [...checks].sort((a, b) => (num(a.score) ?? -1) - (num(b.score) ?? -1));
    const above = checks.filter((c) => (num(c.score) ?? -1) > 5).length;
    lines.push(
      "",
      "## OpenSSF Scorecard",
      "",
      `Overall ${scorecardLine(card)}; ${above} of ${checks.length} checks scored above 5/10. ` +
        `Checks follow, lowest first (-1: not applicable or not determined).`,
    );
    fences.push({ content: lines.join("\n") });
    const format = ctx.defaultOutput;
    fm.set("format", trusted.oneOf(OUTPUT_FORMATS, format));
    const rendered = renderRecords(
      sorted.map((c) => ({
        check: c.name!,
        score: num(c.score) ?? null,
        reason: c.reason ?? null,
      })),
      format,
      { columns: ["check", "score", "reason"], name: "checks" },
    );
    fences.push({ content: rendered.text, title: "Scorecard checks" });
    structured = rendered.structured;
  } else {
    fences.push({ content: lines.join("\n") });
  }
  return ctx.respond({ frontmatter: fm, fences, structured });
}

async function advisoryAction(args: Args, ctx: ToolContext): Promise<ToolResult> {
  const id = parseAdvisoryId(args.query);
  const a = await depsdevGet<AdvisoryResponse>(
    `/advisories/${seg(id)}`,
    `deps.dev keys advisories by OSV id (GHSA-..., PYSEC-..., GO-..., RUSTSEC-...); a CVE id is usually an alias: find the GHSA id on https://osv.dev/vulnerability/${
      encodeURIComponent(id)
    } or in a version's advisories (action=version)`,
    ctx.signal,
  );
  const osv = `https://osv.dev/vulnerability/${encodeURIComponent(id)}`;
  const fm = new Frontmatter()
    .set("source", trusted.url(osv))
    .set("api", trusted.text`deps.dev`)
    .set("action", trusted.oneOf(ACTIONS, "advisory"))
    .set("advisory", trusted.matching(id, ADVISORY_ID_PATTERN));
  const aliases = (a.aliases ?? []).filter((x): x is string =>
    typeof x === "string" && ADVISORY_ID_PATTERN.test(x)
  );
  if (aliases.length) {
    fm.set("aliases", aliases.map((x) => trusted.matching(x, ADVISORY_ID_PATTERN)));
  }
  const score = num(a.cvss3Score);
  if (score !== undefined && score >= 0 && score <= 10) {
    fm.set("cvss3_score", score);
    fm.set("severity", trusted.oneOf(SEVERITIES, cvssSeverity(score)!));
  }
  if (typeof a.cvss3Vector === "string" && CVSS_VECTOR.test(a.cvss3Vector)) {
    fm.set("cvss3_vector", trusted.matching(a.cvss3Vector, CVSS_VECTOR));
  }
  const affected = await osvAffected(id, ctx.signal);
  if (affected) {
    fm.set("affected_packages", affected.length);
  } else {
    fm.append(
      "note",
      trusted
        .text`the affected packages come from the OSV record, which could not be read now; the OSV page in source lists them`,
    );
  }
  const limit = args.limit ?? 50;
  if (affected && affected.length > limit) {
    fm.append(
      "hint",
      trusted.text`${
        affected.length - limit
      } more affected packages not listed: call again with a larger limit (at most ${MAX_LIMIT})`,
    );
  }
  fm.append(
    "hint",
    trusted
      .text`action=version query=ecosystem/name@version shows whether a given version is affected`,
  );
  const lines = [`# ${id}`, ""];
  if (a.title) lines.push(`Title: ${a.title}`, "");
  lines.push(`- Aliases: ${(a.aliases ?? []).join(", ") || "none"}`);
  lines.push(
    `- CVSS v3: ${score !== undefined ? `${score} (${cvssSeverity(score)})` : "not scored"}`,
  );
  if (a.cvss3Vector) lines.push(`- Vector: ${a.cvss3Vector}`);
  lines.push(`- OSV: ${typeof a.url === "string" && a.url ? a.url : osv}`);
  const fences: FencedPart[] = [{ content: lines.join("\n") }];
  let structured: Record<string, unknown> | undefined;
  if (affected?.length) {
    const format = ctx.defaultOutput;
    fm.set("format", trusted.oneOf(OUTPUT_FORMATS, format));
    const rendered = renderRecords(
      affected.slice(0, limit).map((p) => ({
        ecosystem: p.ecosystem,
        package: p.name,
        affected: p.ranges || null,
        fixed: p.fixed || null,
      })),
      format,
      { columns: ["ecosystem", "package", "affected", "fixed"], name: "affected" },
    );
    fences.push({
      content: rendered.text,
      title: `Affected packages (${affected.length}, from OSV)`,
    });
    structured = rendered.structured;
  }
  return ctx.respond({ frontmatter: fm, fences, structured });
}

const DESCRIPTION = `Open-source packages from deps.dev. Ecosystems: npm, pypi (pip, python),
go, maven, cargo (crates, rust), nuget, rubygems (gem).

- package ecosystem/name (pypi/requests): versions;
- version ecosystem/name@version: licences, advisories (CVSS), provenance;
- dependencies ecosystem/name[@version]: the resolved graph;
- project github.com/owner/repo: stars, licence, OpenSSF Scorecard;
- advisory: an OSV id (GHSA-…): severity, fixed versions.`;

/** The tool declaration. */
export const packages = defineTool({
  key: "packages",
  names: { desktop: "packages", code: "Packages" },
  title: "Packages",
  description: DESCRIPTION,
  inputSchema: schema,
  annotations: READS_THE_WEB,
  handler: byAction<Args>({
    package: packageAction,
    version: versionAction,
    dependencies: dependenciesAction,
    project: projectAction,
    advisory: advisoryAction,
  }),
});
