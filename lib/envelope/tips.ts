/**
 * Tips: short lessons shown once per process. A tip is registered under an
 * id with server-authored text (which may name sibling tools as
 * `{tool:<key>}`); a response asks for a tip by id and the ledger renders it
 * only the first time, marking it spent when it is rendered, so a call that
 * fails before rendering does not use it up.
 *
 * @module
 */

const registry = new Map<string, string>();

/** Registers a tip. Ids are lower snake case; registering twice with different text is an error. */
export function registerTip(id: string, text: string): void {
  if (!/^[a-z][a-z0-9_]*$/.test(id)) {
    throw new Error(`tip id '${id}' must be lower snake case`);
  }
  if (/[\r\n]/.test(text)) throw new Error(`tip '${id}' must be one line`);
  const existing = registry.get(id);
  if (existing !== undefined && existing !== text) {
    throw new Error(`tip '${id}' is already registered with other text`);
  }
  registry.set(id, text);
}

/** The registered text of a tip (placeholders unresolved), or undefined. */
export function tipText(id: string): string | undefined {
  return registry.get(id);
}

/** Every registered tip id, in registration order. */
export function tipIds(): string[] {
  return [...registry.keys()];
}

/** Remembers which tips were shown. One ledger lives per process. */
export class TipLedger {
  readonly #spent = new Set<string>();

  /** Marks `ledgerId` spent; returns true only the first time. */
  take(ledgerId: string): boolean {
    if (this.#spent.has(ledgerId)) return false;
    this.#spent.add(ledgerId);
    return true;
  }

  /** Whether `ledgerId` was already shown. */
  spent(ledgerId: string): boolean {
    return this.#spent.has(ledgerId);
  }
}

/** The process-wide ledger. */
export const processTipLedger: TipLedger = new TipLedger();
