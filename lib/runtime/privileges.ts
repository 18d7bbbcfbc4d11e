/**
 * Giving up permissions after start-up. A compiled binary carries one set of
 * baked flags for every subcommand, and `install` and `doctor` need to read
 * and write client configuration and run `claude`; the server needs none of
 * that. So `serve` in a binary (or with `PARKOUR_DROP_PRIVILEGES=1`; whether
 * to is `dropWanted` in `lib/install/launch.ts`, which knows the
 * installation) reads its credential files, opens its shelf store, then
 * revokes read, write, run and sys, keeping only the network (with private
 * ranges denied at the socket) and the environment. `PARKOUR_RENDER=1` keeps
 * what headless rendering needs.
 *
 * @module
 */
import { envFlag, preloadConfigFiles } from "../config.ts";
import { log } from "../log.ts";

/** The permissions revoked, in order. */
export const DROPPED: readonly Deno.PermissionName[] = ["read", "write", "run", "sys"];

let dropped: Deno.PermissionName[] = [];

/** The permissions this process gave up (empty when none). */
export function droppedPermissions(): readonly Deno.PermissionName[] {
  return dropped;
}

/**
 * Reads the credential files, then revokes {@link DROPPED} (all but the
 * network and the environment), unless `PARKOUR_RENDER=1` asks to keep
 * what rendering needs. Call it after the shelf store is open: an open
 * Deno KV handle keeps working. Returns what was revoked.
 */
export function dropPrivileges(): readonly Deno.PermissionName[] {
  preloadConfigFiles();
  if (envFlag("PARKOUR_RENDER")) {
    log("info", "PARKOUR_RENDER=1: keeping read, write, run and sys for headless rendering");
    return (dropped = []);
  }
  // Revoking a permission by name also revokes its narrower grants (paths, commands).
  for (const name of DROPPED) Deno.permissions.revokeSync({ name });
  dropped = [...DROPPED];
  log("debug", `dropped permissions: ${dropped.join(", ")}`);
  return dropped;
}
