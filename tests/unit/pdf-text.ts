import { inflateSync } from 'node:zlib';

/** The text a PDF draws: every `<hex> Tj` string in its (Flate-compressed) content streams, in drawing order. */
export function drawnText(pdf: Uint8Array): string[] {
  const raw = Buffer.from(pdf).toString('latin1');
  const texts: string[] = [];
  for (const [, body = ''] of raw.matchAll(/stream\r?\n([\s\S]*?)\r?\nendstream/g)) {
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
