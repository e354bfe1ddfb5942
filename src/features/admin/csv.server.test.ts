import { describe, expect, it } from 'vitest';
import { csvCell, csvRow } from './csv.server';

describe('CSV cells', () => {
  it('leaves plain text as it is', () => {
    expect(csvCell('ann.lee@example.com')).toBe('ann.lee@example.com');
    expect(csvCell('2026-11-25T09:00:00.000Z')).toBe('2026-11-25T09:00:00.000Z');
    expect(csvCell('')).toBe('');
  });

  it('quotes a comma, a quote or a line break, doubling quotes', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('cr\rhere')).toBe('"cr\rhere"');
  });

  it('turns what a spreadsheet would run as a formula into text', () => {
    expect(csvCell('=1+2@example.com')).toBe("'=1+2@example.com");
    expect(csvCell('+1@example.com')).toBe("'+1@example.com");
    expect(csvCell('-2@example.com')).toBe("'-2@example.com");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('\t=cmd')).toBe("'\t=cmd");
    expect(csvCell('=HYPERLINK("http://x","y")')).toBe(`"'=HYPERLINK(""http://x"",""y"")"`);
    // Only at the start: inside a cell these are harmless.
    expect(csvCell('a=b+c-d@e.com')).toBe('a=b+c-d@e.com');
  });

  it('ends each row with CRLF', () => {
    expect(csvRow(['email', 'subscribed_at'])).toBe('email,subscribed_at\r\n');
    expect(csvRow(['=x@y.z', 'a,b'])).toBe(`'=x@y.z,"a,b"\r\n`);
  });
});
