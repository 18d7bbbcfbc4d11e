/**
 * A small ZIP writer for release artifacts (the MCPB bundle): deflate
 * through the platform's `CompressionStream`, Unix modes kept (so an
 * executable stays executable once unpacked), fixed timestamps so the same
 * inputs give the same bytes. No ZIP64: every entry and the archive must
 * stay under 4 GiB, which is checked.
 *
 * @module
 */

/** One file in the archive. */
export interface ZipEntry {
  /** Path inside the archive, with `/` separators and no leading slash. */
  name: string;
  /** The bytes, or the path of a file to read them from when written. */
  source: Uint8Array | string;
  /** Unix permission bits (default 0o644). */
  mode?: number;
}

const LIMIT = 0xffffffff;
/** 1980-01-01 00:00, the first date DOS time can express. */
const DOS_TIME = 0;
const DOS_DATE = (0 << 9) | (1 << 5) | 1;

let crcTable: Uint32Array | undefined;

/** CRC-32 (IEEE) of `bytes`. */
export function crc32(bytes: Uint8Array): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) crc = crcTable[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

async function deflateRaw(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
    new CompressionStream("deflate-raw"),
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function checkName(name: string): void {
  if (!name || name.startsWith("/") || name.includes("\\") || name.split("/").includes("..")) {
    throw new Error(`invalid archive path '${name}'`);
  }
}

/**
 * Writes `entries` to a new ZIP file at `path` (replacing it), one entry at
 * a time, so memory holds one file and its compressed form at most.
 */
export async function writeZip(path: string, entries: readonly ZipEntry[]): Promise<void> {
  const names = new Set<string>();
  for (const entry of entries) {
    checkName(entry.name);
    if (names.has(entry.name)) throw new Error(`duplicate archive path '${entry.name}'`);
    names.add(entry.name);
  }
  const encoder = new TextEncoder();
  const central: Uint8Array[] = [];
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  let offset = 0;
  const write = async (bytes: Uint8Array) => {
    let done = 0;
    while (done < bytes.length) done += await file.write(bytes.subarray(done));
    offset += bytes.length;
  };
  try {
    for (const entry of entries) {
      const data = typeof entry.source === "string"
        ? await Deno.readFile(entry.source)
        : entry.source;
      if (data.length >= LIMIT) {
        throw new Error(`${entry.name} is too large for a ZIP without ZIP64`);
      }
      const crc = crc32(data);
      const deflated = await deflateRaw(data);
      const stored = deflated.length >= data.length;
      const body = stored ? data : deflated;
      const name = encoder.encode(entry.name);
      const local = new DataView(new ArrayBuffer(30));
      local.setUint32(0, 0x04034b50, true);
      local.setUint16(4, 20, true); // version needed: 2.0
      local.setUint16(6, 0x0800, true); // UTF-8 names
      local.setUint16(8, stored ? 0 : 8, true);
      local.setUint16(10, DOS_TIME, true);
      local.setUint16(12, DOS_DATE, true);
      local.setUint32(14, crc, true);
      local.setUint32(18, body.length, true);
      local.setUint32(22, data.length, true);
      local.setUint16(26, name.length, true);
      local.setUint16(28, 0, true);
      if (offset >= LIMIT) throw new Error("the archive is too large for a ZIP without ZIP64");
      const headerOffset = offset;
      await write(new Uint8Array(local.buffer));
      await write(name);
      await write(body);

      const cd = new DataView(new ArrayBuffer(46));
      cd.setUint32(0, 0x02014b50, true);
      cd.setUint16(4, (3 << 8) | 20, true); // made by: Unix, 2.0 (external attrs hold the mode)
      cd.setUint16(6, 20, true);
      cd.setUint16(8, 0x0800, true);
      cd.setUint16(10, stored ? 0 : 8, true);
      cd.setUint16(12, DOS_TIME, true);
      cd.setUint16(14, DOS_DATE, true);
      cd.setUint32(16, crc, true);
      cd.setUint32(20, body.length, true);
      cd.setUint32(24, data.length, true);
      cd.setUint16(28, name.length, true);
      cd.setUint32(38, ((0o100000 | ((entry.mode ?? 0o644) & 0o7777)) << 16) >>> 0, true);
      cd.setUint32(42, headerOffset, true);
      const record = new Uint8Array(46 + name.length);
      record.set(new Uint8Array(cd.buffer));
      record.set(name, 46);
      central.push(record);
    }
    const cdOffset = offset;
    for (const record of central) await write(record);
    const cdSize = offset - cdOffset;
    if (offset >= LIMIT) throw new Error("the archive is too large for a ZIP without ZIP64");
    const end = new DataView(new ArrayBuffer(22));
    end.setUint32(0, 0x06054b50, true);
    end.setUint16(8, central.length, true);
    end.setUint16(10, central.length, true);
    end.setUint32(12, cdSize, true);
    end.setUint32(16, cdOffset, true);
    await write(new Uint8Array(end.buffer));
  } finally {
    file.close();
  }
}
