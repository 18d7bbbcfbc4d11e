/**
 * The error of a request that does not fit the request model. Its message
 * names parameters through markers, so each face shows its own spelling
 * (`max_tokens` on MCP and REST, `--max-tokens` on the command line).
 *
 * @module
 */

import { type Face, FACES, paramName } from "../hint.ts";

export { type Face, FACES, paramName };

// Parameter names inside messages: U+E000 name U+E001, rendered per face.
const OPEN = "\ue000";
const CLOSE = "\ue001";
const MARKER = /\ue000([a-z_]+)\ue001/g;

/** A parameter's name inside a message, shown in each face's own spelling. */
export function param(key: string): string {
  return `${OPEN}${key}${CLOSE}`;
}

/** Whether a message names a parameter with a marker. */
export function hasParam(message: string): boolean {
  return message.includes(OPEN);
}

/** Replaces the parameter markers of `message` with `face`'s spelling. */
export function renderParams(message: string, face: Face): string {
  return message.replace(MARKER, (_, key: string) => paramName(face, key));
}

/** A request that does not fit the model; the message says what to change. */
export class RequestError extends Error {
  /** Category, for programs (`bad_request`, `conflicting_views`, `bad_max_tokens`, ...). */
  readonly kind: string;
  /** Creates the error; `message` may hold {@link param} markers. */
  constructor(message: string, kind = "bad_request") {
    super(message);
    this.name = "RequestError";
    this.kind = kind;
  }

  /** The message with `face`'s parameter names. */
  forFace(face: Face): string {
    return renderParams(this.message, face);
  }
}
