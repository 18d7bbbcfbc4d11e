/**
 * The `install` command (placeholder until the client writers land).
 *
 * @module
 */
import type { Flags } from "../../main.ts";
import { ConfigError } from "../config.ts";

/** Runs `install`; resolves to the exit code. */
export function runInstall(_flags: Flags): Promise<number> {
  return Promise.reject(new ConfigError("install is not available yet"));
}
