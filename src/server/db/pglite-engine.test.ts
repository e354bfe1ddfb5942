import { describe, expect, it } from 'vitest';
import { errorData } from './pglite-engine';

describe('what the embedded database thread sends back for an error', () => {
  it("keeps an Error's message and its plain fields", () => {
    const error = Object.assign(new Error('duplicate key'), { code: '23505', detail: { no: 'objects' } });
    expect(errorData(error)).toEqual({ message: 'duplicate key', fields: { code: '23505' } });
  });

  it("reads the message of a thrown plain object, as Emscripten's ExitStatus is, rather than [object Object]", () => {
    const exit = { name: 'ExitStatus', message: 'Program terminated with exit(1)', status: 1 };
    expect(errorData(exit)).toEqual({ message: 'Program terminated with exit(1)', fields: { status: 1 } });
    expect(errorData({ reason: 'odd' }).message).toBe('{"reason":"odd"}');
    expect(errorData('text').message).toBe('text');
  });
});
