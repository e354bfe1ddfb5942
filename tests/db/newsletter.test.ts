import { describe, expect, it } from 'vitest';
import { isSubscribed, subscribe, unsubscribe } from '@/features/newsletter/newsletter.server';
import type { Sql } from '@/server/db/database.server';
import { asService, asShopper, type ShopperClaims } from '@/server/db/roles.server';
import { newShopper, sqlstate } from './shopper-fixtures';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();

const as = <T>(claims: ShopperClaims | null, fn: (tx: Sql) => Promise<T>) => asShopper(db, claims, fn);
const stored = () =>
  asService(db, (tx) => tx.query<{ user_id: string; email: string }>('select user_id, email from public.newsletter_subscribers'));

describe(`newsletter on ${TEST_DATABASE_KIND}`, () => {
  it('subscribes a shopper once, with the account’s e-mail', async () => {
    const ann = await newShopper(db, 'ann');
    expect(await as(ann, (tx) => isSubscribed(tx))).toBe(false);
    expect(await as(ann, (tx) => subscribe(tx))).toBe('subscribed');
    expect(await as(ann, (tx) => isSubscribed(tx))).toBe(true);
    // A second subscription changes nothing and says so.
    expect(await as(ann, (tx) => subscribe(tx))).toBe('already');
    expect((await stored()).filter((r) => r.user_id === ann.sub)).toEqual([{ user_id: ann.sub, email: ann.email }]);
  });

  it('keeps shoppers apart: nobody sees or ends another shopper’s subscription', async () => {
    const ann = await newShopper(db, 'ann');
    const ben = await newShopper(db, 'ben');
    await as(ann, (tx) => subscribe(tx));
    expect(await as(ben, (tx) => isSubscribed(tx))).toBe(false);
    expect(await as(ben, (tx) => tx.query('select * from public.newsletter_subscribers'))).toEqual([]);
    expect(await as(ben, (tx) => unsubscribe(tx))).toBe(false);
    expect(await as(ann, (tx) => isSubscribed(tx))).toBe(true);
  });

  it('refuses, in the database itself, an e-mail that is not the account’s or a row for someone else', async () => {
    const ann = await newShopper(db, 'ann');
    const ben = await newShopper(db, 'ben');
    const refusal = (sql: string, params: unknown[]) =>
      as(ann, (tx) => tx.query(sql, params)).then(
        () => 'accepted',
        (error: unknown) => sqlstate(error),
      );
    expect(
      await refusal('insert into public.newsletter_subscribers (user_id, email) values ($1, $2)', [ann.sub, ben.email]),
    ).toBe('42501');
    expect(
      await refusal('insert into public.newsletter_subscribers (user_id, email) values ($1, $2)', [ben.sub, ben.email]),
    ).toBe('42501');
    // Guests cannot read the table at all.
    expect(await as(null, (tx) => tx.query('select * from public.newsletter_subscribers')).catch(sqlstate)).toBe('42501');
    expect((await stored()).some((r) => r.user_id === ann.sub || r.user_id === ben.sub)).toBe(false);
  });

  it('unsubscribes, after which the shopper may subscribe again', async () => {
    const ann = await newShopper(db, 'ann');
    await as(ann, (tx) => subscribe(tx));
    expect(await as(ann, (tx) => unsubscribe(tx))).toBe(true);
    expect(await as(ann, (tx) => isSubscribed(tx))).toBe(false);
    expect(await as(ann, (tx) => unsubscribe(tx))).toBe(false);
    expect(await as(ann, (tx) => subscribe(tx))).toBe('subscribed');
  });

  it('two subscriptions at once store one row, and each answer is true', async () => {
    const ann = await newShopper(db, 'ann');
    const answers = await Promise.all([as(ann, (tx) => subscribe(tx)), as(ann, (tx) => subscribe(tx))]);
    expect(answers.sort()).toEqual(['already', 'subscribed']);
    expect((await stored()).filter((r) => r.user_id === ann.sub)).toHaveLength(1);
  });
});
