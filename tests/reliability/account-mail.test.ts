/**
 * The shop's account e-mails are no relay: however often someone asks, one address gets a handful of them, and asking
 * for a reset does the same work whether or not the address has an account.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIRMATION_RESENT } from '@/server/auth/auth.port';
import { counting } from '../db/counting';
import { apiRequest, call, signedIn, startShop, stopShop, type TestShop } from './harness';

let shop: TestShop;
let db: ReturnType<typeof counting>;

beforeAll(async () => {
  shop = await startShop({}, (services) => {
    db = counting(services.db);
    return { db };
  });
  await signedIn(shop, 'known@example.com');
  await signedIn(shop, 'confirmed@example.com');
  await shop.runOutbox();
}, 120_000);
afterAll(stopShop);

const mailsTo = (to: string) => shop.sent.filter((m) => m.to === to);

/** A sign-up for `email` from its own client address each time, as a botnet would send it. */
const signUp = (email: string, i: number) =>
  call(
    apiRequest('POST', '/api/auth/signup', {
      email,
      password: 'strangers-pass-1',
      confirmPassword: 'strangers-pass-1',
      firstName: 'URGENT: re-verify at http://evil.example/a',
      lastName: 'X',
    }),
    { clientAddress: `198.51.100.${i + 1}` },
  );

describe('account e-mails', () => {
  it.each(['fresh@example.com', 'known@example.com'])('eight sign-ups for %s send it at most three mails', async (email) => {
    const before = mailsTo(email).length;
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await signUp(email, i)).status);
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    expect(statuses.slice(3)).toEqual([429, 429, 429, 429, 429]);
    await shop.runOutbox();
    const sent = mailsTo(email).slice(before);
    expect(sent).toHaveLength(3);
    for (const mail of sent) expect(`${mail.subject} ${mail.text} ${mail.html}`).not.toMatch(/evil\.example|URGENT/);
  });

  it('a reset request does the same work for an address with an account and one without', async () => {
    const ask = (email: string, i: number) =>
      db.cost(async () => {
        const res = await call(apiRequest('POST', '/api/auth/reset-request', { email }), { clientAddress: `203.0.113.${i}` });
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({
          message: 'If an account exists for that address, we have sent a link to reset your password.',
        });
      });
    const jobs = () =>
      shop.db.query<{ kind: string; n: number }>(
        `select kind, count(*)::int as n from public.outbox where done_at is null group by kind order by kind`,
      );
    const tokens = () => shop.db.query<{ n: number }>(`select count(*)::int as n from public.auth_tokens`);
    const before = { jobs: await jobs(), tokens: await tokens() };
    const known = await ask('known@example.com', 1);
    const afterKnown = { jobs: await jobs(), tokens: await tokens() };
    const unknown = await ask('nobody-here@example.com', 2);
    // The same transactions, and each leaves one password-reset job and nothing else: no link, no mail yet.
    expect(unknown).toBe(known);
    expect(afterKnown.tokens).toEqual(before.tokens);
    expect(await tokens()).toEqual(before.tokens);
    const count = (rows: { kind: string; n: number }[], kind: string) => rows.find((r) => r.kind === kind)?.n ?? 0;
    expect(count(afterKnown.jobs, 'password-reset')).toBe(count(before.jobs, 'password-reset') + 1);
    expect(count(await jobs(), 'password-reset')).toBe(count(before.jobs, 'password-reset') + 2);
    expect(count(await jobs(), 'email')).toBe(count(before.jobs, 'email'));

    // The outbox then mails the account's owner, and no one else.
    const sentBefore = shop.sent.length;
    await shop.runOutbox();
    await shop.runOutbox();
    const sent = shop.sent.slice(sentBefore);
    expect(sent.map((m) => [m.to, m.subject])).toEqual([['known@example.com', 'Reset your Aurelia password']]);
  });

  it('a new confirmation link goes only to an account still waiting, and the request does the same work for any address', async () => {
    // Waiting: signed up, never confirmed.
    const signup = await call(
      apiRequest('POST', '/api/auth/signup', {
        email: 'waiting@example.com',
        password: 'waiting-pass-1',
        confirmPassword: 'waiting-pass-1',
        firstName: 'Wai',
        lastName: 'Ting',
      }),
      { clientAddress: '192.0.2.50' },
    );
    expect(signup.status).toBe(200);
    await shop.runOutbox();
    const ask = (email: string, i: number) =>
      db.cost(async () => {
        const res = await call(apiRequest('POST', '/api/auth/resend-confirmation', { email }), {
          clientAddress: `192.0.2.${60 + i}`,
        });
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({ message: CONFIRMATION_RESENT });
      });
    const costs = [
      await ask('waiting@example.com', 1),
      await ask('confirmed@example.com', 2),
      await ask('nobody@example.com', 3),
    ];
    expect(new Set(costs).size).toBe(1);
    const before = shop.sent.length;
    await shop.runOutbox();
    await shop.runOutbox();
    const sent = shop.sent.slice(before);
    expect(sent.map((m) => [m.to, m.subject])).toEqual([['waiting@example.com', 'Confirm your Aurelia account']]);
    // The new link confirms with the password chosen at sign-up, and signs the shopper in.
    const token = /token=([\w-]+)/.exec(sent[0]?.text ?? '')?.[1] ?? '';
    const confirmed = await call(apiRequest('POST', '/api/auth/verify', { token, password: 'waiting-pass-1' }));
    expect(confirmed.status).toBe(200);
    // A confirmed account is sent no link however it is asked.
    const after = shop.sent.length;
    await ask('waiting@example.com', 4);
    await shop.runOutbox();
    expect(shop.sent.slice(after)).toEqual([]);
  });
});
