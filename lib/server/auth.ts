/**
 * Authorization for remote use: the HTTP service as an OAuth 2.1 resource
 * server, as the MCP authorization specification asks.
 *
 * - It publishes Protected Resource Metadata (RFC 9728) at
 *   `/.well-known/oauth-protected-resource` (and the path-inserted form for
 *   the resource's path, `/.well-known/oauth-protected-resource/mcp`),
 *   naming the configured authorization server and the scopes it needs.
 * - A request without a valid token gets 401 with a `WWW-Authenticate:
 *   Bearer` challenge whose `resource_metadata` points there; a valid token
 *   without the scopes gets 403 `insufficient_scope`.
 * - Access tokens are JWTs checked with `jose`: the signature against the
 *   issuer's JWKS (found through its RFC 8414 or OpenID metadata, or given
 *   as `PARKOUR_AUTH_JWKS_URL`), the issuer, the audience (this resource),
 *   the expiry and not-before times, and the scopes. Only asymmetric
 *   algorithms are accepted. Tokens are never passed on upstream. `jose` is
 *   loaded with the first token, so a server without OAuth never loads it.
 *
 * The static `PARKOUR_HTTP_TOKEN` stays for a single user; with both set, a
 * request carrying the static token acts as its owner.
 *
 * @module
 */
import type { JWTPayload, JWTVerifyGetKey } from "jose";
import { env, type OAuthSettings } from "../config.ts";
import { defaultNet } from "../net/default.ts";
import { Net } from "../net/fetch.ts";
import { fetchThrough } from "../net/fetch_api.ts";

import { log } from "../log.ts";
import type { Principal } from "../principal.ts";

/** Asymmetric JWS algorithms accepted for access tokens. */
const ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];

/** What the authorizer decided. */
export type AuthDecision =
  | { ok: true; principal: Principal }
  | {
    ok: false;
    status: 401 | 403;
    kind: "unauthorized" | "insufficient_scope";
    message: string;
    challenge: string;
  };

/** The metadata document's paths, for the router. */
export function metadataPaths(settings: OAuthSettings): string[] {
  const path = new URL(settings.resource).pathname.replace(/\/$/, "");
  const base = "/.well-known/oauth-protected-resource";
  return path ? [base, base + path] : [base];
}

function quoted(value: string): string {
  return `"${value.replace(/["\\]/g, "")}"`;
}

/**
 * The issuer's requests, through the network layer. The operator's own
 * issuer and key set (their origins as configured) may be private addresses,
 * an authorization server inside the deployment's network; any other URL
 * the metadata names must be public, as every fetch is.
 */
function issuerFetch(settings: OAuthSettings): typeof fetch {
  const configured = new Set(
    [settings.issuer, settings.jwksUrl].filter((u): u is string => u !== undefined).map((u) =>
      new URL(u).origin
    ),
  );
  let operator: Net | undefined;
  return fetchThrough((url, init) =>
    configured.has(new URL(url).origin)
      ? (operator ??= new Net({ allowPrivate: true, env })).fetch(url, init)
      : defaultNet().fetch(url, init)
  );
}

/** Checks bearer tokens against one authorization server. */
export class OAuthResource {
  readonly settings: OAuthSettings;
  readonly #fetch: typeof fetch;
  #keys?: Promise<JWTVerifyGetKey>;

  /** Creates the resource server; `fetchImpl` reaches the issuer (the network layer by default). */
  constructor(settings: OAuthSettings, fetchImpl: typeof fetch = issuerFetch(settings)) {
    this.settings = settings;
    this.#fetch = fetchImpl;
  }

  /** The Protected Resource Metadata document (RFC 9728). */
  metadata(): Record<string, unknown> {
    return {
      resource: this.settings.resource,
      authorization_servers: [this.settings.issuer],
      scopes_supported: this.settings.scopes,
      bearer_methods_supported: ["header"],
      resource_name: "Parkour",
      resource_documentation: "https://jsr.io/@parkour/mcp",
    };
  }

  /** The URL of the metadata document for the resource's path. */
  metadataUrl(): string {
    const resource = new URL(this.settings.resource);
    const paths = metadataPaths(this.settings);
    return new URL(paths[paths.length - 1], resource.origin).href;
  }

  #challenge(error?: string, description?: string): string {
    const parts = [`resource_metadata=${quoted(this.metadataUrl())}`];
    if (this.settings.scopes.length > 0) {
      parts.push(`scope=${quoted(this.settings.scopes.join(" "))}`);
    }
    if (error) parts.unshift(`error=${quoted(error)}`);
    if (description) parts.push(`error_description=${quoted(description)}`);
    return `Bearer ${parts.join(", ")}`;
  }

  /** A 401 for a request with no token. */
  missing(): AuthDecision {
    return {
      ok: false,
      status: 401,
      kind: "unauthorized",
      message:
        `Unauthorized: send Authorization: Bearer <access token> issued by ${this.settings.issuer} for ${this.settings.resource} (the metadata at ${this.metadataUrl()} says how)`,
      challenge: this.#challenge(),
    };
  }

  async #jwks(): Promise<JWTVerifyGetKey> {
    const { createRemoteJWKSet, customFetch } = await import("jose");
    const keys = (url: URL) => createRemoteJWKSet(url, { [customFetch]: this.#fetch });
    if (this.settings.jwksUrl) return keys(new URL(this.settings.jwksUrl));
    const issuer = new URL(this.settings.issuer);
    const path = issuer.pathname.replace(/\/$/, "");
    const candidates = [
      new URL(`/.well-known/oauth-authorization-server${path}`, issuer.origin),
      new URL(`${issuer.href.replace(/\/$/, "")}/.well-known/openid-configuration`),
    ];
    for (const url of candidates) {
      try {
        const response = await this.#fetch(url, { headers: { accept: "application/json" } });
        if (!response.ok) {
          await response.body?.cancel();
          continue;
        }
        const meta = await response.json() as { issuer?: unknown; jwks_uri?: unknown };
        if (meta.issuer !== this.settings.issuer || typeof meta.jwks_uri !== "string") continue;
        return keys(new URL(meta.jwks_uri));
      } catch (error) {
        log("debug", `authorization server metadata at ${url.href}`, error);
      }
    }
    throw new Error(
      `the authorization server ${this.settings.issuer} publishes no metadata with its jwks_uri; set PARKOUR_AUTH_JWKS_URL`,
    );
  }

  /** Validates an access token; the principal is the token's subject. */
  async verify(token: string): Promise<AuthDecision> {
    const keys = this.#keys ??= this.#jwks();
    keys.catch(() => this.#keys = undefined);
    const jose = await import("jose");
    let payload: JWTPayload;
    try {
      ({ payload } = await jose.jwtVerify(token, await keys, {
        issuer: this.settings.issuer,
        audience: this.settings.audiences,
        algorithms: ALGORITHMS,
        clockTolerance: 5,
        requiredClaims: ["exp", "sub"],
      }));
    } catch (error) {
      const description = describe(error, jose.errors);
      log("info", `refused an access token: ${description}`);
      return {
        ok: false,
        status: 401,
        kind: "unauthorized",
        message:
          `Unauthorized: the access token was refused (${description}); get a new one from ${this.settings.issuer}`,
        challenge: this.#challenge("invalid_token", description),
      };
    }
    const granted = scopesOf(payload);
    const lacking = this.settings.scopes.filter((s) => !granted.includes(s));
    if (lacking.length > 0) {
      return {
        ok: false,
        status: 403,
        kind: "insufficient_scope",
        message: `Forbidden: the access token lacks the scope ${
          lacking.join(" ")
        }; ask ${this.settings.issuer} for a token with it`,
        challenge: this.#challenge("insufficient_scope", `needs scope ${lacking.join(" ")}`),
      };
    }
    return { ok: true, principal: { kind: "oauth", id: String(payload.sub), scopes: granted } };
  }
}

function scopesOf(payload: JWTPayload): string[] {
  const scope = payload.scope ?? payload.scp;
  if (typeof scope === "string") return scope.split(" ").filter(Boolean);
  if (Array.isArray(scope)) return scope.filter((s): s is string => typeof s === "string");
  return [];
}

/** A one-line reason for a refused token, never including the token. */
function describe(error: unknown, joseErrors: typeof import("jose").errors): string {
  if (error instanceof joseErrors.JWTExpired) return "expired";
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    const claim = error.claim;
    if (claim === "iss") return "wrong issuer";
    if (claim === "aud") return "wrong audience: not issued for this resource";
    if (claim === "nbf") return "not yet valid";
    return `claim ${claim} invalid`;
  }
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return "bad signature";
  if (error instanceof joseErrors.JWKSNoMatchingKey) return "signed by an unknown key";
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return "algorithm not allowed";
  if (error instanceof joseErrors.JWKSTimeout || error instanceof joseErrors.JWKSInvalid) {
    return "the issuer's keys could not be read";
  }
  if (error instanceof joseErrors.JOSEError) return "malformed token";
  return "the issuer's keys could not be read";
}
