import { describe, expect, it } from 'vitest';
import {
  adapterNames,
  captureLogs,
  currentRequestId,
  logger,
  maskEmail,
  outsideRequest,
  prettyOutput,
  redact,
  requestIdFrom,
  scrubText,
  setAdapters,
  withRequestId,
} from './log.server';

const log = logger('test');

/** What one call to the logger wrote, parsed. */
function written(call: () => void) {
  const logs = captureLogs('debug');
  try {
    call();
  } finally {
    logs.restore();
  }
  return { records: logs.records, text: logs.text() };
}

describe('the logger', () => {
  it('writes one JSON line per call with its level, time, component and message', () => {
    const { records, text } = written(() => log.info({ orderId: 'o-1' }, 'order recorded'));
    expect(text.split('\n').filter(Boolean)).toHaveLength(1);
    expect(records[0]).toMatchObject({ level: 'info', component: 'test', orderId: 'o-1', msg: 'order recorded' });
    expect(String(records[0]?.time)).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('drops secrets by field name at any depth, and masks e-mail fields', () => {
    const { records, text } = written(() =>
      log.warn(
        {
          password: 'hunter2-hunter2',
          body: { newPassword: 'n3w-Pass', token: 'tok-123', nested: { client_secret: 'pi_1_secret_2', cookie: 'sb=abc' } },
          headers: { authorization: 'Bearer abc.def', 'set-cookie': 'aurelia_session=xyz' },
          card: { number: '4242424242424242', cvc: '123' },
          address: { street1: '5 Elm St', street2: 'Apt 4', city: 'Austin' },
          email: 'ann.lee@example.com',
          to: 'Bob@Example.org',
        },
        'hostile fields',
      ),
    );
    for (const secret of [
      'hunter2',
      'n3w-Pass',
      'tok-123',
      'pi_1_secret_2',
      'sb=abc',
      'abc.def',
      'xyz',
      '4242',
      '5 Elm St',
      'Apt 4',
    ])
      expect(text).not.toContain(secret);
    expect(records[0]).toMatchObject({
      password: '[redacted]',
      email: 'a***@example.com',
      to: 'B***@Example.org',
      address: { city: 'Austin' },
    });
  });

  it('masks e-mail addresses and recognisable secrets in messages and free text', () => {
    const { text } = written(() =>
      log.error(
        { err: new Error('SES refused ann.lee@example.com with sk_test_abcDEF123 at /reset?token=secret-token-1&x=1') },
        'sending to bob.stone@example.net failed: whsec_abc123, pi_3Abc_secret_XyZ, Bearer eyJhbGciOi.x.y, card 4000 0000 0000 0002',
      ),
    );
    for (const secret of [
      'ann.lee@',
      'bob.stone@',
      'sk_test_abcDEF123',
      'secret-token-1',
      'whsec_abc123',
      'pi_3Abc_secret_XyZ',
      'eyJhbGciOi',
      '4000 0000 0000 0002',
    ])
      expect(text).not.toContain(secret);
    expect(text).toContain('a***@example.com');
    expect(text).toContain('b***@example.net');
  });

  it('finds each kind of secret alone in its text, whatever else the text lacks', () => {
    // scrubText skips text that holds nothing any pattern needs: each secret by itself must still be caught.
    for (const secret of [
      'ann@example.com',
      'sk_live_abc',
      'rk_test_abc',
      'whsec_abc',
      'pi_1_secret_2',
      'Bearer abc.def',
      'bearer abc',
      '/reset?token=abc',
      '4000000000000002',
      '4000 0000 0000 0002',
      '4000-0000-0000-0002',
    ])
      expect(scrubText(secret), secret).not.toBe(secret);
    expect(scrubText('PUT /api/cart')).toBe('PUT /api/cart');
  });

  it('redacts the adapters once, and every request line carries them as they are', () => {
    setAdapters({ mail: 'SES as ann@example.com', db: 'pglite' });
    expect(adapterNames()).toEqual({ mail: 'SES as a***@example.com', db: 'pglite' });
    expect(redact({ adapters: adapterNames() })).toEqual({ adapters: adapterNames() });
    expect((redact({ adapters: adapterNames() }) as { adapters: unknown }).adapters).toBe(adapterNames());
    setAdapters({});
  });

  it('leaves what is not secret alone: ids, UUIDs, amounts, times', () => {
    const id = '92745bc0-f638-4032-8a1b-123456789012';
    expect(scrubText(`order ${id} for 10500 cents at 2026-11-29T14:00:00Z, 1764400000 s`)).toBe(
      `order ${id} for 10500 cents at 2026-11-29T14:00:00Z, 1764400000 s`,
    );
    expect(redact({ orderId: id, totalCents: 10500, kind: 'email', attempt: 3 })).toEqual({
      orderId: id,
      totalCents: 10500,
      kind: 'email',
      attempt: 3,
    });
    expect(maskEmail('a@b.co')).toBe('a***@b.co');
  });

  it('is pretty for a person at a terminal or when asked, JSON otherwise', () => {
    expect(prettyOutput({}, true)).toBe(true);
    expect(prettyOutput({}, false)).toBe(false);
    expect(prettyOutput({ LOG_FORMAT: 'json' }, true)).toBe(false);
    expect(prettyOutput({ LOG_FORMAT: 'pretty' }, false)).toBe(true);
  });
});

describe('request ids', () => {
  it('takes a sane incoming id, and makes one for anything else', () => {
    for (const good of ['0f3c9a2b7d4e4f1a9b8c', 'req-2026.11.29:0001', 'a1b2c3d4', '92745bc0-f638-4032-8a1b-123456789012'])
      expect(requestIdFrom(good)).toBe(good);
    for (const bad of [
      null,
      undefined,
      '',
      'short',
      'x'.repeat(65),
      'has space',
      'new\nline-0001',
      '-leading-dash',
      'quote"d-id',
      'ann@example.com',
    ])
      expect(requestIdFrom(bad)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(requestIdFrom('bad id')).not.toBe(requestIdFrom('bad id'));
  });

  it('puts the current request’s id on every line logged while it runs, and none outside it', async () => {
    const { records } = written(() => {
      withRequestId('request-0001', () => {
        log.info('inside');
        outsideRequest(() => log.info('set going, not part of it'));
      });
      log.info('outside');
    });
    expect(records.map((r) => [r.msg, r.requestId])).toEqual([
      ['inside', 'request-0001'],
      ['set going, not part of it', undefined],
      ['outside', undefined],
    ]);
    // It follows the request across awaits.
    await withRequestId('request-0002', async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      expect(currentRequestId()).toBe('request-0002');
    });
    expect(currentRequestId()).toBeUndefined();
  });

  it('keeps an id a line names itself (a job run for another request)', () => {
    const { records } = written(() => withRequestId('request-0003', () => log.info({ requestId: 'job-request-9' }, 'job done')));
    expect(records[0]?.requestId).toBe('job-request-9');
  });
});
