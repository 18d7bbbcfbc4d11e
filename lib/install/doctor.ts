/**
 * The `doctor` command (placeholder until the checks land).
 *
 * @module
 */
import type { Flags } from "../../main.ts";
import { ConfigError } from "../config.ts";

/** Runs `doctor`; resolves to the exit code. */
export function runDoctor(_flags: Flags): Promise<number> {
  return Promise.reject(new ConfigError("doctor is not available yet"));
}
