/**
 * Who a request acts for. The HTTP gates authenticate a request and run its
 * handler inside {@link runAs}; code below (the shelf) asks
 * {@link currentPrincipal} instead of taking the principal as a parameter
 * through every tool and source.
 *
 * - `local`: stdio, the CLI, the library, and HTTP without a token: the one
 *   person at this machine.
 * - `owner`: the holder of the static `PARKOUR_HTTP_TOKEN` (a single user).
 * - `oauth`: a subject whose access token the configured authorization
 *   server issued; each has a shelf of its own.
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** The authenticated party of a request. */
export interface Principal {
  /** How it was authenticated. */
  kind: "local" | "owner" | "oauth";
  /** Stable identifier: `local`, `owner`, or the token's subject. */
  id: string;
  /** Scopes granted (OAuth only). */
  scopes?: readonly string[];
}

/** The principal of requests that carry no identity. */
export const LOCAL: Principal = Object.freeze({ kind: "local", id: "local" });

const storage = new AsyncLocalStorage<Principal>();

/** Runs `work` as `principal`: everything it awaits sees it. */
export function runAs<T>(principal: Principal, work: () => T): T {
  return storage.run(principal, work);
}

/** The principal of the running request ({@link LOCAL} outside one). */
export function currentPrincipal(): Principal {
  return storage.getStore() ?? LOCAL;
}

/**
 * Whether `principal` shares the process's own shelf: the local user and
 * the static token's owner are one person; each OAuth subject is apart.
 */
export function isSoleUser(principal: Principal): boolean {
  return principal.kind !== "oauth";
}
