import { inflateSync } from 'node:zlib';

/** The text a PDF draws: every `<hex> Tj` string in its (Flate-compressed) content streams, in drawing order. */
export function drawnText(pdf: Uint8Array): string[] {
  const raw = Buffer.from(pdf).toString('latin1');
  const texts: string[] = [];
  // Each stream's bytes are exactly its dictionary's /Length after the `stream` line: compressed bytes may hold
  // anything, "\r\nendstream" included, so the end of a stream is counted, not searched for.
  for (const match of raw.matchAll(/\/Length (\d+)[^>]*>>\s*stream\r?\n/g)) {
    const start = (match.index ?? 0) + match[0].length;
    const body = raw.slice(start, start + Number(match[1]));
    let content: string;
    try {
      content = inflateSync(Buffer.from(body, 'latin1')).toString('latin1');
    } catch {
      continue; // an image or font stream, not page content
    }
    for (const [, hex = ''] of content.matchAll(/<([0-9A-Fa-f]*)>\s*Tj/g)) texts.push(Buffer.from(hex, 'hex').toString('latin1'));
  }
  return texts;
}
