// Reads a .zip back for the tests of the catalogue's download (the shop writes one; nothing here reads one).
import { inflateRawSync } from 'node:zlib';

/** The entries of a .zip, read back from its local headers: path → bytes. */
export function unzip(bytes: Uint8Array): Map<string, Buffer> {
  const buf = Buffer.from(bytes);
  const out = new Map<string, Buffer>();
  let at = 0;
  while (buf.readUInt32LE(at) === 0x04034b50) {
    const size = buf.readUInt32LE(at + 18);
    const nameLength = buf.readUInt16LE(at + 26);
    const extra = buf.readUInt16LE(at + 28);
    const name = buf.subarray(at + 30, at + 30 + nameLength).toString('utf8');
    const start = at + 30 + nameLength + extra;
    out.set(name, inflateRawSync(buf.subarray(start, start + size)));
    at = start + size;
  }
  return out;
}
