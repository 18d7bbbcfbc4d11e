/**
 * A local OAuth authorization server for tests: an ES256 key made here,
 * RFC 8414 metadata and a JWKS on 127.0.0.1, and access tokens signed for
 * {@link RESOURCE} (the subject `alice` unless the claims name another).
 */
import { exportJWK, generateKeyPair, SignJWT } from "jose";

/** The resource (this server's `/mcp`) tokens are issued for. */
export const RESOURCE = "http://localhost:9/mcp";

/** A running issuer. */
export interface Issuer {
  /** Its issuer identifier (and base URL). */
  url: string;
  /** An access token with `claims` (scope `parkour` unless given), signed by its key or another. */
  sign(
    claims: Record<string, unknown>,
    options?: { key?: "good" | "other"; exp?: string },
  ): Promise<string>;
  /** Stops it. */
  close(): Promise<void>;
}

/** Starts an issuer on a free port of 127.0.0.1. */
export async function startIssuer(): Promise<Issuer> {
  const good = await generateKeyPair("ES256", { extractable: true });
  const other = await generateKeyPair("ES256", { extractable: true });
  const jwk = { ...(await exportJWK(good.publicKey)), kid: "k1", alg: "ES256", use: "sig" };
  let url = "";
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const path = new URL(req.url).pathname;
    if (path === "/.well-known/oauth-authorization-server") {
      return Response.json({
        issuer: url,
        jwks_uri: `${url}/jwks`,
        token_endpoint: `${url}/token`,
      });
    }
    if (path === "/jwks") return Response.json({ keys: [jwk] });
    return new Response("not found", { status: 404 });
  });
  url = `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}`;
  return {
    url,
    sign: async (claims, options = {}) => {
      const key = options.key === "other" ? other.privateKey : good.privateKey;
      const jwt = new SignJWT({ scope: "parkour", ...claims })
        .setProtectedHeader({ alg: "ES256", kid: "k1" })
        .setIssuedAt()
        .setExpirationTime(options.exp ?? "5m");
      if (!("iss" in claims)) jwt.setIssuer(url);
      if (!("aud" in claims)) jwt.setAudience(RESOURCE);
      if (!("sub" in claims)) jwt.setSubject("alice");
      return await jwt.sign(key);
    },
    close: () => server.shutdown(),
  };
}
