/**
 * Name resolution for the address check. The system resolver asks the OS
 * (getaddrinfo, so /etc/hosts counts too) for every A and AAAA address; the
 * connection is then pinned to exactly the addresses that were checked.
 *
 * @module
 */
import { NetError } from "./errors.ts";

let nodeDns: Promise<typeof import("node:dns")> | undefined;

/** Resolves a host name to IP addresses. */
export interface Resolver {
  /** All addresses of `host` (IPv4 and IPv6). */
  resolve(host: string): Promise<string[]>;
}

/** The OS resolver. */
export const systemResolver: Resolver = {
  async resolve(host) {
    try {
      const dns = await (nodeDns ??= import("node:dns"));
      const found = await dns.promises.lookup(host, { all: true, verbatim: true });
      return found.map((a) => a.address);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === "ENOTFOUND" || code === "ENODATA" || code === "EAI_NONAME") {
        throw new NetError(
          "dns",
          `${host} does not resolve to any address; check the spelling of the host`,
        );
      }
      throw new NetError(
        "dns",
        `could not resolve ${host} (${code ?? (error as Error).message}); try again later`,
        undefined,
        { cause: error },
      );
    }
  },
};

/**
 * A resolver answering from a table; a function entry is called on every
 * lookup (to model a name whose answer changes). Unknown names fail like
 * NXDOMAIN.
 */
export function tableResolver(table: Record<string, string[] | (() => string[])>): Resolver {
  return {
    resolve(host) {
      const entry = table[host.toLowerCase()];
      if (entry === undefined) {
        return Promise.reject(
          new NetError(
            "dns",
            `${host} does not resolve to any address; check the spelling of the host`,
          ),
        );
      }
      return Promise.resolve(typeof entry === "function" ? entry() : [...entry]);
    },
  };
}
