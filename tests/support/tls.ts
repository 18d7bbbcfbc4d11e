/**
 * A throw-away certificate authority for tests: a CA certificate and a
 * server certificate for 127.0.0.1 and localhost that it signed, made with
 * WebCrypto (ECDSA P-256) and a few lines of DER, so no tool or package is
 * needed. The keys live only in the test's memory and the certificates
 * expire within a day.
 */

/** A CA and a server certificate it signed, as PEM. */
export interface TestCa {
  /** The CA certificate (what NODE_EXTRA_CA_CERTS or DENO_CERT names). */
  caPem: string;
  /** The server's certificate for 127.0.0.1 and localhost. */
  certPem: string;
  /** The server's private key (PKCS #8). */
  keyPem: string;
}

function bytes(...parts: (number | Uint8Array)[]): Uint8Array {
  const out: number[] = [];
  for (const p of parts) typeof p === "number" ? out.push(p) : out.push(...p);
  return new Uint8Array(out);
}

/** One DER element: tag, definite length, content. */
function tlv(tag: number, ...content: Uint8Array[]): Uint8Array {
  const body = bytes(...content);
  const n = body.length;
  const len = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff];
  return bytes(tag, ...len, body);
}

const seq = (...items: Uint8Array[]) => tlv(0x30, ...items);
const set = (...items: Uint8Array[]) => tlv(0x31, ...items);

function oid(dotted: string): Uint8Array {
  const [a, b, ...rest] = dotted.split(".").map(Number);
  const out = [40 * a + b];
  for (const n of rest) {
    const groups = [n & 0x7f];
    for (let v = n >> 7; v > 0; v >>= 7) groups.unshift((v & 0x7f) | 0x80);
    out.push(...groups);
  }
  return tlv(0x06, new Uint8Array(out));
}

/** A non-negative INTEGER from big-endian bytes. */
function integer(value: Uint8Array): Uint8Array {
  let i = 0;
  while (i < value.length - 1 && value[i] === 0) i++;
  const v = value.slice(i);
  return tlv(0x02, v[0] & 0x80 ? bytes(0, v) : v);
}

const text = (s: string) => tlv(0x0c, new TextEncoder().encode(s));
const name = (cn: string) => seq(set(seq(oid("2.5.4.3"), text(cn))));

function utcTime(date: Date): Uint8Array {
  const s = date.toISOString().replace(/[-:T]/g, "").slice(2, 14) + "Z";
  return tlv(0x17, new TextEncoder().encode(s));
}

function extension(id: string, critical: boolean, value: Uint8Array): Uint8Array {
  return seq(oid(id), ...(critical ? [tlv(0x01, bytes(0xff))] : []), tlv(0x04, value));
}

const ECDSA_SHA256 = seq(oid("1.2.840.10045.4.3.2"));
const P256 = { name: "ECDSA", namedCurve: "P-256" } as const;

function pem(label: string, der: Uint8Array): string {
  const b64 = btoa(String.fromCharCode(...der)).match(/.{1,64}/g)!.join("\n");
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}

async function certificate(
  subject: string,
  issuer: string,
  publicKey: CryptoKey,
  signer: CryptoKey,
  extensions: Uint8Array[],
): Promise<Uint8Array> {
  const now = Date.now();
  const serial = crypto.getRandomValues(new Uint8Array(12));
  serial[0] &= 0x7f;
  const spki = new Uint8Array(await crypto.subtle.exportKey("spki", publicKey));
  const tbs = seq(
    tlv(0xa0, integer(bytes(2))), // version 3
    integer(serial),
    ECDSA_SHA256,
    name(issuer),
    seq(utcTime(new Date(now - 60_000)), utcTime(new Date(now + 86_400_000))),
    name(subject),
    spki,
    tlv(0xa3, seq(...extensions)),
  );
  // WebCrypto signs as r || s; X.509 wants SEQUENCE { INTEGER r, INTEGER s }.
  const raw = new Uint8Array(
    await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, signer, tbs as BufferSource),
  );
  const signature = seq(integer(raw.slice(0, 32)), integer(raw.slice(32)));
  return seq(tbs, ECDSA_SHA256, tlv(0x03, bytes(0, signature)));
}

/** Makes a fresh CA and a server certificate for 127.0.0.1 and localhost. */
export async function makeTestCa(): Promise<TestCa> {
  const caKeys = await crypto.subtle.generateKey(P256, true, ["sign", "verify"]);
  const serverKeys = await crypto.subtle.generateKey(P256, true, ["sign", "verify"]);
  const caName = `parkour test CA ${crypto.randomUUID().slice(0, 8)}`;
  const ca = await certificate(caName, caName, caKeys.publicKey, caKeys.privateKey, [
    extension("2.5.29.19", true, seq(tlv(0x01, bytes(0xff)))), // basicConstraints: CA
    extension("2.5.29.15", true, tlv(0x03, bytes(1, 0x06))), // keyUsage: keyCertSign, cRLSign
  ]);
  const server = await certificate("127.0.0.1", caName, serverKeys.publicKey, caKeys.privateKey, [
    extension("2.5.29.19", true, seq()), // basicConstraints: not a CA
    extension("2.5.29.15", true, tlv(0x03, bytes(7, 0x80))), // keyUsage: digitalSignature
    extension("2.5.29.37", false, seq(oid("1.3.6.1.5.5.7.3.1"))), // extKeyUsage: serverAuth
    // subjectAltName: IP 127.0.0.1, DNS localhost
    extension(
      "2.5.29.17",
      false,
      seq(tlv(0x87, bytes(127, 0, 0, 1)), tlv(0x82, new TextEncoder().encode("localhost"))),
    ),
  ]);
  const key = new Uint8Array(await crypto.subtle.exportKey("pkcs8", serverKeys.privateKey));
  return {
    caPem: pem("CERTIFICATE", ca),
    certPem: pem("CERTIFICATE", server),
    keyPem: pem("PRIVATE KEY", key),
  };
}

/** An https server on 127.0.0.1 with a certificate from `ca`, serving `html` at every path. */
export function serveTls(ca: TestCa, html: string): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert: ca.certPem, key: ca.keyPem, onListen() {} },
    () => new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } }),
  );
}
