/**
 * Which IP addresses the product may connect to.
 *
 * An address is allowed only if it is publicly routable unicast. IPv4:
 * everything but the special-purpose ranges below. IPv6: only global unicast
 * (2000::/3) outside its special-purpose ranges, plus the forms that embed an
 * IPv4 address (IPv4-mapped, IPv4-compatible, NAT64 64:ff9b::/96, 6to4
 * 2002::/16), which are judged by the IPv4 address they carry.
 *
 * Host names are canonicalised by the WHATWG URL parser before they get here,
 * so decimal (`2130706433`), hex (`0x7f.1`), octal (`0177.0.0.1`) and short
 * (`127.1`) IPv4 spellings arrive as dotted quads.
 *
 * @module
 */

/** Why an address is refused (undefined when it is public). */
export type AddressVerdict =
  | "unspecified"
  | "loopback"
  | "private"
  | "carrier-grade NAT"
  | "link-local"
  | "multicast"
  | "broadcast"
  | "reserved"
  | "documentation"
  | "benchmarking"
  | "unique-local"
  | "site-local"
  | "not global unicast"
  | "special-purpose";

interface Range {
  base: bigint;
  bits: number;
  width: 32 | 128;
  verdict: AddressVerdict;
}

/** Parses a dotted-quad IPv4 address to a 32-bit number, or undefined. */
export function parseIPv4(text: string): number | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^(?:0|[1-9]\d{0,2})$/.test(part)) return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    value = value * 256 + n;
  }
  return value;
}

/** Parses an IPv6 address (brackets and zone allowed) to a 128-bit bigint, or undefined. */
export function parseIPv6(text: string): bigint | undefined {
  let t = text.replace(/^\[|\]$/g, "");
  const zone = t.indexOf("%");
  if (zone >= 0) t = t.slice(0, zone);
  if (!/^[0-9a-fA-F:.]+$/.test(t)) return undefined;
  let tail: number[] = [];
  // A trailing dotted quad stands for the last two groups.
  if (t.includes(".")) {
    const idx = t.lastIndexOf(":");
    const quad = parseIPv4(t.slice(idx + 1));
    if (quad === undefined) return undefined;
    tail = [quad >>> 16, quad & 0xffff];
    const head = t.slice(0, idx + 1);
    t = head.endsWith("::") ? head : t.slice(0, idx);
  }
  const halves = t.split("::");
  if (halves.length > 2) return undefined;
  const parse = (s: string): number[] | undefined => {
    if (s === "") return [];
    const groups = s.split(":");
    const out: number[] = [];
    for (const g of groups) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = parse(halves[0]);
  const rest = halves.length === 2 ? parse(halves[1]) : [];
  if (!head || !rest) return undefined;
  const explicit = head.length + rest.length + tail.length;
  let groups: number[];
  if (halves.length === 2) {
    if (explicit > 7) return undefined;
    groups = [...head, ...new Array(8 - explicit).fill(0), ...rest, ...tail];
  } else {
    if (explicit !== 8) return undefined;
    groups = [...head, ...tail];
  }
  let value = 0n;
  for (const g of groups) value = (value << 16n) | BigInt(g);
  return value;
}

function v4(cidr: string, verdict: AddressVerdict): Range {
  const [addr, bits] = cidr.split("/");
  return { base: BigInt(parseIPv4(addr)!), bits: Number(bits), width: 32, verdict };
}

function v6(cidr: string, verdict: AddressVerdict): Range {
  const [addr, bits] = cidr.split("/");
  return { base: parseIPv6(addr)!, bits: Number(bits), width: 128, verdict };
}

// IANA IPv4 special-purpose registry, minus the entries that are globally reachable.
const V4_BLOCKED: Range[] = [
  v4("0.0.0.0/8", "unspecified"),
  v4("10.0.0.0/8", "private"),
  v4("100.64.0.0/10", "carrier-grade NAT"),
  v4("127.0.0.0/8", "loopback"),
  v4("169.254.0.0/16", "link-local"),
  v4("172.16.0.0/12", "private"),
  v4("192.0.0.0/24", "special-purpose"),
  v4("192.0.2.0/24", "documentation"),
  v4("192.88.99.0/24", "reserved"),
  v4("192.168.0.0/16", "private"),
  v4("198.18.0.0/15", "benchmarking"),
  v4("198.51.100.0/24", "documentation"),
  v4("203.0.113.0/24", "documentation"),
  v4("224.0.0.0/4", "multicast"),
  v4("255.255.255.255/32", "broadcast"),
  v4("240.0.0.0/4", "reserved"),
];

const IETF_PROTOCOL_ASSIGNMENTS = v6("2001::/23", "special-purpose");

// Special ranges inside 2000::/3, and the local forms outside it worth naming.
const V6_BLOCKED: Range[] = [
  v6("::/128", "unspecified"),
  v6("::1/128", "loopback"),
  v6("64:ff9b:1::/48", "special-purpose"),
  v6("100::/64", "special-purpose"),
  IETF_PROTOCOL_ASSIGNMENTS,
  v6("2001:db8::/32", "documentation"),
  v6("3fff::/20", "documentation"),
  v6("5f00::/16", "special-purpose"),
  v6("fc00::/7", "unique-local"),
  v6("fe80::/10", "link-local"),
  v6("fec0::/10", "site-local"),
  v6("ff00::/8", "multicast"),
];
// Globally reachable exceptions inside 2001::/23.
const V6_GLOBAL_EXCEPTIONS: Range[] = [
  v6("2001:1::1/128", "special-purpose"),
  v6("2001:1::2/128", "special-purpose"),
  v6("2001:3::/32", "special-purpose"),
  v6("2001:4:112::/48", "special-purpose"),
  v6("2001:20::/28", "special-purpose"),
];

function inRange(value: bigint, range: Range): boolean {
  const shift = BigInt(range.width - range.bits);
  return (value >> shift) === (range.base >> shift);
}

function classifyV4(value: number): AddressVerdict | undefined {
  const big = BigInt(value);
  return V4_BLOCKED.find((r) => inRange(big, r))?.verdict;
}

const MAPPED = v6("::ffff:0:0/96", "special-purpose");
const COMPAT = v6("::/96", "special-purpose");
const NAT64 = v6("64:ff9b::/96", "special-purpose");
const SIX_TO_FOUR = v6("2002::/16", "special-purpose");

/** The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4), if any. */
export function embeddedIPv4(value: bigint): number | undefined {
  if (inRange(value, MAPPED) || inRange(value, NAT64)) return Number(value & 0xffffffffn);
  if (inRange(value, COMPAT) && value > 1n) return Number(value & 0xffffffffn);
  if (inRange(value, SIX_TO_FOUR)) return Number((value >> 80n) & 0xffffffffn);
  return undefined;
}

function classifyV6(value: bigint): AddressVerdict | undefined {
  const embedded = embeddedIPv4(value);
  if (embedded !== undefined) return classifyV4(embedded);
  const hit = V6_BLOCKED.find((r) => inRange(value, r));
  if (hit) {
    if (hit === IETF_PROTOCOL_ASSIGNMENTS && V6_GLOBAL_EXCEPTIONS.some((r) => inRange(value, r))) {
      return undefined;
    }
    return hit.verdict;
  }
  // Only 2000::/3 is allocated for global unicast.
  if (value >> 125n !== 1n) return "not global unicast";
  return undefined;
}

/**
 * Why `address` may not be contacted, or undefined if it is public. Text
 * that is not an IP address is refused as "reserved".
 */
export function classifyAddress(address: string): AddressVerdict | undefined {
  const four = parseIPv4(address);
  if (four !== undefined) return classifyV4(four);
  const six = parseIPv6(address);
  if (six !== undefined) return classifyV6(six);
  return "reserved";
}

/** Whether `host` (a URL hostname) is an IP literal, and its bare form. */
export function ipLiteral(host: string): string | undefined {
  const bare = host.replace(/^\[|\]$/g, "");
  if (parseIPv4(bare) !== undefined) return bare;
  if (host.startsWith("[") && parseIPv6(bare) !== undefined) return bare;
  return undefined;
}
