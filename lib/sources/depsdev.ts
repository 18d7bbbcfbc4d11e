/**
 * deps.dev (Open Source Insights) API v3: packages, versions, resolved
 * dependency graphs, projects with their OpenSSF Scorecards, and security
 * advisories.
 *
 * - {@link parsePackageQuery} reads `ecosystem/name[@version]` with the
 *   ecosystem aliases (`pip`, `crates`, `golang`, ...), checks the name's
 *   shape for its ecosystem and canonicalises PyPI names;
 * - {@link depsdevGet} GETs an API path through the one network door and
 *   turns every failure into a {@link SourceError} that says what to check;
 * - {@link githubScorecard} gives the GitHub tool a repository's Scorecard
 *   summary (cached per repository; never throws).
 *
 * Names and ids are percent-encoded as whole path segments (`@scope/pkg`
 * becomes `%40scope%2Fpkg`, a Go module path's slashes `%2F`, Maven's
 * `group:artifact` colon `%3A`), as the API requires.
 *
 * @module
 */
import { SourceError } from "../errors.ts";
import { defaultNet } from "../net/default.ts";
import { ownedKey } from "../net/page_key.ts";

/** The API base. */
export const DEPSDEV_API = "https://api.deps.dev/v3";
/** The web UI, for `source` links. */
export const DEPSDEV_WEB = "https://deps.dev";

/** The ecosystems deps.dev knows, by API system name. */
export const SYSTEMS = ["NPM", "PYPI", "GO", "MAVEN", "CARGO", "NUGET", "RUBYGEMS"] as const;
/** One ecosystem. */
export type System = typeof SYSTEMS[number];

/** Display labels. */
export const SYSTEM_LABELS: Record<System, string> = {
  NPM: "npm",
  PYPI: "PyPI",
  GO: "Go",
  MAVEN: "Maven",
  CARGO: "Cargo",
  NUGET: "NuGet",
  RUBYGEMS: "RubyGems",
};

/** Accepted ecosystem names (lower case) and the system each names. */
export const ECOSYSTEM_ALIASES: Record<string, System> = {
  npm: "NPM",
  node: "NPM",
  pypi: "PYPI",
  pip: "PYPI",
  python: "PYPI",
  go: "GO",
  golang: "GO",
  maven: "MAVEN",
  mvn: "MAVEN",
  cargo: "CARGO",
  crates: "CARGO",
  "crates.io": "CARGO",
  rust: "CARGO",
  nuget: "NUGET",
  rubygems: "RUBYGEMS",
  gems: "RUBYGEMS",
  gem: "RUBYGEMS",
  ruby: "RUBYGEMS",
};

/** The accepted names, grouped by ecosystem, for error messages. */
export function ecosystemList(): string {
  return SYSTEMS.map((s) => {
    const names = Object.entries(ECOSYSTEM_ALIASES).filter(([, v]) => v === s).map(([k]) => k);
    return `${names[0]} (${SYSTEM_LABELS[s]}${
      names.length > 1 ? `; also ${names.slice(1).join(", ")}` : ""
    })`;
  }).join(", ");
}

/** Name shapes per ecosystem, with an example for error messages. */
const NAME_SHAPES: Record<System, { pattern: RegExp; form: string }> = {
  NPM: {
    pattern: /^(?:@[A-Za-z0-9~-][A-Za-z0-9._~-]*\/)?[A-Za-z0-9~-][A-Za-z0-9._~-]*$/,
    form: "name or @scope/name (e.g. npm/express, npm/@types/node)",
  },
  PYPI: {
    pattern: /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/,
    form: "a project name (e.g. pypi/requests)",
  },
  GO: {
    pattern: /^[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+(?:\/[A-Za-z0-9._~+-]+)*$/,
    form:
      "a module path starting with a domain (e.g. go/github.com/gorilla/mux, go/golang.org/x/net)",
  },
  MAVEN: {
    pattern: /^[A-Za-z0-9_.-]+:[A-Za-z0-9_.-]+$/,
    form: "groupId:artifactId (e.g. maven/org.apache.logging.log4j:log4j-core)",
  },
  CARGO: {
    pattern: /^[A-Za-z][A-Za-z0-9_-]{0,63}$/,
    form: "a crate name (e.g. cargo/serde)",
  },
  NUGET: {
    pattern: /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/,
    form: "a package id (e.g. nuget/Newtonsoft.Json)",
  },
  RUBYGEMS: {
    pattern: /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/,
    form: "a gem name (e.g. rubygems/rails)",
  },
};

/** A version string deps.dev could hold (semver, PEP 440 with epochs, Go's v-prefixed, Maven's). */
export const VERSION_PATTERN = /^[A-Za-z0-9][A-Za-z0-9.+_~!-]{0,127}$/;
/** A package name as checked (any ecosystem), for frontmatter. */
export const NAME_PATTERN = /^@?[A-Za-z0-9][A-Za-z0-9._~:/+-]{0,299}$/;
/** An OSV advisory id (GHSA-..., PYSEC-..., GO-..., RUSTSEC-..., CVE-...). */
export const ADVISORY_ID_PATTERN = /^[A-Z][A-Z0-9]{1,15}-[A-Za-z0-9][A-Za-z0-9._:-]{1,60}$/;
/** A GitHub Security Advisory id. */
const GHSA = /^ghsa(-[23456789cfghjmpqrvwx]{4}){3}$/i;
/** A project id deps.dev keys projects by. */
export const PROJECT_ID_PATTERN =
  /^(?:github\.com|gitlab\.com|bitbucket\.org)\/[A-Za-z0-9_.-]+(?:\/[A-Za-z0-9_.-]+)+$/;

/** A parsed `ecosystem/name[@version]`. */
export interface PackageRef {
  /** API system. */
  system: System;
  /** Package name as deps.dev keys it. */
  name: string;
  /** Version, when given. */
  version?: string;
  /** The name the caller wrote, when canonicalisation changed it. */
  askedName?: string;
}

/** The accepted query forms, for error messages. */
export const QUERY_FORMS =
  "ecosystem/name[@version], e.g. pypi/requests, npm/express@4.18.2, npm/@types/node@20.11.0, " +
  "go/golang.org/x/net@v0.24.0, maven/org.slf4j:slf4j-api@2.0.13, cargo/serde, nuget/Newtonsoft.Json, rubygems/rails";

/** Reads `ecosystem/name[@version]`; throws a {@link SourceError} naming the accepted forms. */
export function parsePackageQuery(query: string): PackageRef {
  const q = query.trim();
  const slash = q.indexOf("/");
  if (slash <= 0 || slash === q.length - 1) {
    throw new SourceError(`Invalid query format '${clip(q)}'. Expected ${QUERY_FORMS}`);
  }
  const eco = q.slice(0, slash).toLowerCase();
  const system = ECOSYSTEM_ALIASES[eco];
  if (!system) {
    throw new SourceError(
      `Unknown ecosystem '${clip(q.slice(0, slash), 40)}'. Valid ecosystems: ${ecosystemList()}`,
    );
  }
  let rest = q.slice(slash + 1);
  let version: string | undefined;
  const at = rest.lastIndexOf("@");
  if (at > 0) {
    version = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!VERSION_PATTERN.test(version)) {
      throw new SourceError(
        `Malformed version '${
          clip(version, 60)
        }': a version is letters, digits and . + _ ~ ! - (e.g. 1.2.3, 2.0.0rc1, v0.24.0, 1!2.0); expected ${QUERY_FORMS}`,
      );
    }
  }
  const shape = NAME_SHAPES[system];
  if (!shape.pattern.test(rest) || rest.length > 300) {
    throw new SourceError(
      `Malformed ${SYSTEM_LABELS[system]} package name '${clip(rest, 80)}': expected ${shape.form}`,
    );
  }
  let name = rest;
  if (system === "PYPI") name = rest.toLowerCase().replace(/[-_.]+/g, "-");
  const ref: PackageRef = { system, name };
  if (version !== undefined) ref.version = version;
  if (name !== rest) ref.askedName = rest;
  return ref;
}

/** Reads an advisory id (GHSA, PYSEC, GO, RUSTSEC, OSV ids; case of GHSA ids normalised). */
export function parseAdvisoryId(query: string): string {
  const q = query.trim();
  if (GHSA.test(q)) return "GHSA" + q.slice(4).toLowerCase();
  const upperPrefix = q.replace(/^[A-Za-z0-9]+-/, (p) => p.toUpperCase());
  if (ADVISORY_ID_PATTERN.test(upperPrefix)) return upperPrefix;
  throw new SourceError(
    `Malformed advisory id '${
      clip(q, 60)
    }': expected an OSV id such as GHSA-2qrg-x229-3v8q, PYSEC-2021-59, GO-2022-0969 or RUSTSEC-2021-0078 (a version's advisory ids come with action=version)`,
  );
}

/** Reads a project id: `github.com/owner/repo`, a GitHub/GitLab/Bitbucket URL, or `owner/repo` (GitHub). */
export function parseProjectId(query: string): string {
  let q = query.trim().replace(/^(?:https?:\/\/)?(?:www\.)?/i, "").replace(/\.git$/i, "")
    .replace(/\/+$/, "");
  if (
    /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(q) &&
    !/^(?:github\.com|gitlab\.com|bitbucket\.org)\//i.test(q)
  ) {
    q = `github.com/${q}`;
  }
  q = q.replace(/^(github\.com|gitlab\.com|bitbucket\.org)/i, (h) => h.toLowerCase());
  if (q.startsWith("github.com/") || q.startsWith("bitbucket.org/")) {
    q = q.split("/").slice(0, 3).join("/");
  }
  // GitHub names are case-insensitive; deps.dev keys them in lower case.
  if (q.startsWith("github.com/")) q = q.toLowerCase();
  if (!PROJECT_ID_PATTERN.test(q) || q.length > 300) {
    throw new SourceError(
      `Malformed project '${
        clip(query.trim(), 80)
      }': expected github.com/owner/repo, gitlab.com/group/project, bitbucket.org/owner/repo, a URL of one, or owner/repo for GitHub`,
    );
  }
  return q;
}

function clip(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, " ");
  return flat.length > max ? flat.slice(0, max - 1) + "…" : flat;
}

/** One path segment, percent-encoded with nothing kept safe. */
export function seg(value: string): string {
  return encodeURIComponent(value);
}

/** API path of a package. */
export function packagePath(ref: { system: System; name: string }): string {
  return `/systems/${ref.system.toLowerCase()}/packages/${seg(ref.name)}`;
}

/** API path of a version. */
export function versionPath(ref: { system: System; name: string }, version: string): string {
  return `${packagePath(ref)}/versions/${seg(version)}`;
}

/** deps.dev web page of a package or version. */
export function webUrl(ref: { system: System; name: string }, version?: string): string {
  const base = `${DEPSDEV_WEB}/${ref.system.toLowerCase()}/${seg(ref.name)}`;
  return version === undefined ? base : `${base}/${seg(version)}`;
}

// ---------------------------------------------------------------------------
// Response shapes (v3; v3alpha sent counts and check scores as strings).

/** A version key. */
export interface VersionKey {
  /** System. */
  system?: string;
  /** Name. */
  name?: string;
  /** Version. */
  version?: string;
}

/** GetPackage. */
export interface PackageResponse {
  /** Key. */
  packageKey?: { system?: string; name?: string };
  /** Versions. */
  versions?: {
    versionKey?: VersionKey;
    publishedAt?: string;
    isDefault?: boolean;
    isDeprecated?: boolean;
  }[];
}

/** GetVersion. */
export interface VersionResponse {
  /** Key. */
  versionKey?: VersionKey;
  /** Publication time. */
  publishedAt?: string;
  /** Default version of its package. */
  isDefault?: boolean;
  /** Deprecated by its publisher. */
  isDeprecated?: boolean;
  /** Publisher's deprecation text. */
  deprecatedReason?: string;
  /** SPDX licence expressions. */
  licenses?: string[];
  /** Advisories affecting the version. */
  advisoryKeys?: { id?: string }[];
  /** Links (HOMEPAGE, SOURCE_REPO, ISSUE_TRACKER, ORIGIN, ...). */
  links?: { label?: string; url?: string }[];
  /** SLSA provenance statements. */
  slsaProvenances?: {
    sourceRepository?: string;
    commit?: string;
    url?: string;
    verified?: boolean;
  }[];
  /** Attestations. */
  attestations?: {
    type?: string;
    url?: string;
    verified?: boolean;
    sourceRepository?: string;
    commit?: string;
  }[];
  /** Registries the version is in. */
  registries?: string[];
  /** Related projects. */
  relatedProjects?: {
    projectKey?: { id?: string };
    relationProvenance?: string;
    relationType?: string;
  }[];
}

/** GetDependencies. */
export interface DependenciesResponse {
  /** Nodes; the first is the version itself (SELF). */
  nodes?: { versionKey?: VersionKey; bundled?: boolean; relation?: string; errors?: string[] }[];
  /** Edges by node index. */
  edges?: { fromNode?: number; toNode?: number; requirement?: string }[];
  /** Resolution error, if any. */
  error?: string;
}

/** One Scorecard check as sent. */
export interface ScorecardCheck {
  /** Check name. */
  name?: string;
  /** Score (number, or a string in v3alpha). */
  score?: number | string;
  /** Reason text. */
  reason?: string;
  /** Documentation. */
  documentation?: { shortDescription?: string; url?: string };
}

/** GetProject. */
export interface ProjectResponse {
  /** Key. */
  projectKey?: { id?: string };
  /** Open issues. */
  openIssuesCount?: number | string;
  /** Stars. */
  starsCount?: number | string;
  /** Forks. */
  forksCount?: number | string;
  /** Licence (SPDX). */
  license?: string;
  /** Description. */
  description?: string;
  /** Homepage. */
  homepage?: string;
  /** OpenSSF Scorecard. */
  scorecard?: {
    date?: string;
    overallScore?: number | string;
    checks?: ScorecardCheck[];
    repository?: { name?: string; commit?: string };
    scorecard?: { version?: string; commit?: string };
  };
  /** OSS-Fuzz details. */
  ossFuzz?: {
    lineCount?: number | string;
    lineCoverCount?: number | string;
    date?: string;
    configUrl?: string;
  };
}

/** GetAdvisory. */
export interface AdvisoryResponse {
  /** Key. */
  advisoryKey?: { id?: string };
  /** OSV page. */
  url?: string;
  /** Title. */
  title?: string;
  /** Aliases (CVE ids). */
  aliases?: string[];
  /** CVSS v3 base score. */
  cvss3Score?: number;
  /** CVSS v3 vector. */
  cvss3Vector?: string;
}

/** A number from a field that may be sent as a string; undefined when not a finite number. */
export function num(value: unknown): number | undefined {
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return typeof n === "number" && Number.isFinite(n) ? n : undefined;
}

// ---------------------------------------------------------------------------
// The client.

function apiMessage(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { message?: unknown; error?: unknown };
    const text = typeof parsed.message === "string"
      ? parsed.message
      : typeof parsed.error === "string"
      ? parsed.error
      : undefined;
    return text?.slice(0, 300);
  } catch {
    return body.trim().slice(0, 300) || undefined;
  }
}

/**
 * GETs an API path and parses the JSON object. 404 becomes "Not found on
 * deps.dev" followed by `notFound` (what to check); 429, 5xx, other
 * statuses and malformed JSON become errors that say what to do.
 */
export async function depsdevGet<T>(
  path: string,
  notFound: string,
  signal?: AbortSignal,
): Promise<T> {
  const result = await defaultNet().fetch(`${DEPSDEV_API}${path}`, {
    headers: { accept: "application/json" },
    signal,
    deadlineMs: 30_000,
    retry: { retries: 2 },
  });
  const status = result.status;
  if (status >= 200 && status < 300) {
    let parsed: unknown;
    try {
      parsed = result.json<unknown>();
    } catch {
      parsed = undefined;
    }
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
      throw new SourceError(
        "deps.dev returned a malformed response (not a JSON object); try again later",
      );
    }
    return parsed as T;
  }
  const remote = { status, body: apiMessage(result.text()), contentType: "text/plain" };
  if (status === 404) throw new SourceError(`Not found on deps.dev. ${notFound}`, remote);
  if (status === 429) {
    throw new SourceError(
      "Rate limited by deps.dev (HTTP 429) after retries; wait a minute and try again",
    );
  }
  if (status === 400) {
    throw new SourceError(
      `deps.dev rejected the request (HTTP 400); check the name and version. ${notFound}`,
      remote,
    );
  }
  if (status >= 500) {
    throw new SourceError(`deps.dev failed (HTTP ${status}); try again later`, remote);
  }
  throw new SourceError(`deps.dev API returned HTTP ${status}`, remote);
}

// ---------------------------------------------------------------------------
// Scorecards.

/** An OpenSSF Scorecard summary of a source repository. */
export interface Scorecard {
  /** Overall score, 0 to 10. */
  overall: number;
  /** Date of the scorecard run, `YYYY-MM-DD`. */
  date?: string;
  /** Check name to score (0 to 10, or -1 when not applicable). */
  checks: Record<string, number>;
}

const CHECK_NAME = /^[A-Za-z][A-Za-z0-9-]{0,63}$/;

/** The {@link Scorecard} of a project response; undefined when it has none. */
export function scorecardOf(project: ProjectResponse): Scorecard | undefined {
  const sc = project.scorecard;
  const overall = num(sc?.overallScore);
  if (!sc || overall === undefined || overall < 0 || overall > 10) return undefined;
  const checks: Record<string, number> = {};
  for (const c of sc.checks ?? []) {
    const score = num(c?.score);
    if (typeof c?.name === "string" && CHECK_NAME.test(c.name) && score !== undefined) {
      checks[c.name] = score;
    }
  }
  const date = typeof sc.date === "string" && /^\d{4}-\d{2}-\d{2}/.test(sc.date)
    ? sc.date.slice(0, 10)
    : undefined;
  const out: Scorecard = { overall, checks };
  if (date) out.date = date;
  return out;
}

const OWNER_REPO = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9_.-]{1,100}$/;
const SCORECARD_CACHE_MAX = 512;
const scorecards = new Map<string, Scorecard | undefined>();

/**
 * The Scorecard of a GitHub project (`owner/repo`) from deps.dev; undefined
 * when deps.dev has none or cannot be reached. Never throws. Answers
 * (including "none") are cached per repository; failures are not.
 */
export async function githubScorecard(
  ownerRepo: string,
  signal?: AbortSignal,
): Promise<Scorecard | undefined> {
  if (!OWNER_REPO.test(ownerRepo)) return undefined;
  const key = ownerRepo.toLowerCase();
  // Kept per principal when the page cache is (PARKOUR_CACHE_SCOPE).
  const slot = ownedKey(key);
  if (scorecards.has(slot)) return scorecards.get(slot);
  let project: ProjectResponse;
  try {
    project = await depsdevGet<ProjectResponse>(
      `/projects/${seg(`github.com/${key}`)}`,
      "",
      signal,
    );
  } catch (error) {
    if (error instanceof SourceError && error.remote?.status === 404) remember(slot, undefined);
    return undefined;
  }
  const card = scorecardOf(project);
  remember(slot, card);
  return card;
}

function remember(key: string, card: Scorecard | undefined): void {
  if (scorecards.size >= SCORECARD_CACHE_MAX) {
    const oldest = scorecards.keys().next().value;
    if (oldest !== undefined) scorecards.delete(oldest);
  }
  scorecards.set(key, card);
}

/** `7.4/10 (@ 2026-04-13)`: the frontmatter form of a Scorecard. */
export function scorecardLine(card: Scorecard): string {
  const score = Math.round(card.overall * 10) / 10;
  return `${score}/10${card.date ? ` (@ ${card.date})` : ""}`;
}

/** CVSS v3 qualitative rating of a base score. */
export function cvssSeverity(score: number | undefined): string | undefined {
  if (score === undefined) return undefined;
  if (score >= 9) return "Critical";
  if (score >= 7) return "High";
  if (score >= 4) return "Medium";
  if (score > 0) return "Low";
  return "None";
}

/** The project id (`github.com/o/r`) a version's SOURCE_REPO link or related projects name. */
export function sourceProject(v: VersionResponse): string | undefined {
  for (const p of v.relatedProjects ?? []) {
    const id = p?.projectKey?.id;
    if (
      p?.relationType === "SOURCE_REPO" && typeof id === "string" && PROJECT_ID_PATTERN.test(id)
    ) {
      return id;
    }
  }
  for (const link of v.links ?? []) {
    if (link?.label !== "SOURCE_REPO" || typeof link.url !== "string") continue;
    const m =
      /(?:^|[/@])((?:github\.com|gitlab\.com|bitbucket\.org))[/:]([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+?)(?:\.git)?(?:[/#?].*)?$/i
        .exec(link.url);
    if (m) {
      const host = m[1].toLowerCase();
      const path = `${m[2]}/${m[3]}`;
      const id = `${host}/${host === "github.com" ? path.toLowerCase() : path}`;
      if (PROJECT_ID_PATTERN.test(id)) return id;
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// Affected packages of an advisory: deps.dev's advisory record has none, so
// they come from the OSV record it links to.

/** The OSV API base. */
export const OSV_API = "https://api.osv.dev/v1";

/** One affected package of an advisory, with its version ranges in words. */
export interface AffectedPackage {
  /** OSV ecosystem (`npm`, `PyPI`, `Maven`, ...). */
  ecosystem: string;
  /** Package name. */
  name: string;
  /** Affected ranges, e.g. `>=2.0-beta9, <2.15.0` (several joined with `; `). */
  ranges: string;
  /** First fixed versions. */
  fixed: string;
}

interface OsvRecord {
  affected?: {
    package?: { ecosystem?: string; name?: string };
    ranges?: { type?: string; events?: Record<string, string>[] }[];
    versions?: string[];
  }[];
}

function rangeText(events: Record<string, string>[]): { text: string; fixed: string[] } {
  const parts: string[] = [];
  const fixed: string[] = [];
  let open: string | undefined;
  const close = (upper?: string) => {
    parts.push(
      [open && open !== "0" ? `>=${open}` : "", upper ?? ""].filter(Boolean).join(", ") ||
        "all versions",
    );
    open = undefined;
  };
  for (const e of events) {
    if (typeof e?.introduced === "string") {
      if (open !== undefined) close();
      open = e.introduced;
    } else if (typeof e?.fixed === "string") {
      fixed.push(e.fixed);
      close(`<${e.fixed}`);
    } else if (typeof e?.last_affected === "string") {
      close(`<=${e.last_affected}`);
    } else if (typeof e?.limit === "string") {
      close(`<${e.limit}`);
    }
  }
  if (open !== undefined) close();
  return { text: parts.join("; "), fixed };
}

/**
 * The packages an advisory affects, from its OSV record; undefined when OSV
 * cannot be reached or answers otherwise than with a record. Throws only
 * when the call is cancelled.
 */
export async function osvAffected(
  id: string,
  signal?: AbortSignal,
): Promise<AffectedPackage[] | undefined> {
  let record: OsvRecord;
  try {
    const result = await defaultNet().fetch(`${OSV_API}/vulns/${seg(id)}`, {
      headers: { accept: "application/json" },
      signal,
      deadlineMs: 20_000,
      limit: { key: "api.osv.dev", intervalMs: 200 },
      retry: { retries: 1 },
    });
    if (result.status !== 200) return undefined;
    record = result.json<OsvRecord>();
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") throw error;
    return undefined;
  }
  if (!record || typeof record !== "object" || !Array.isArray(record.affected)) return undefined;
  const out: AffectedPackage[] = [];
  for (const a of record.affected) {
    const ecosystem = a?.package?.ecosystem;
    const name = a?.package?.name;
    if (typeof ecosystem !== "string" || typeof name !== "string") continue;
    const ranges: string[] = [];
    const fixed: string[] = [];
    for (const r of Array.isArray(a.ranges) ? a.ranges : []) {
      if (r?.type === "GIT" || !Array.isArray(r?.events)) continue;
      const t = rangeText(r.events);
      if (t.text) ranges.push(t.text);
      fixed.push(...t.fixed);
    }
    if (ranges.length === 0 && Array.isArray(a.versions) && a.versions.length) {
      ranges.push(
        a.versions.slice(0, 10).join(", ") + (a.versions.length > 10 ? ", …" : ""),
      );
    }
    out.push({ ecosystem, name, ranges: ranges.join("; "), fixed: fixed.join(", ") });
  }
  return out;
}
