import { describe, expect, it } from 'vitest';
import {
  accountKey,
  customerCursorFrom,
  customerHref,
  customerSearch,
  customersPageAfter,
  fromListKey,
  guestKey,
  listKey,
  orderCustomerHref,
} from './customers';

const ID = '3f2b8c1e-9a4d-4e6f-8b21-0c5d7e9f1a2b';

describe('who a customer is', () => {
  it('an account by its id (any case), a guest by their e-mail in lower case', () => {
    expect(accountKey(ID.toUpperCase())).toEqual({ kind: 'account', userId: ID });
    expect(accountKey('not-an-id')).toBeNull();
    expect(accountKey(undefined)).toBeNull();
    expect(guestKey('  Maya.T@Example.COM ')).toEqual({ kind: 'guest', email: 'maya.t@example.com' });
    expect(guestKey('no at sign')).toBeNull();
    expect(guestKey('')).toBeNull();
    expect(guestKey(null)).toBeNull();
    expect(guestKey(`${'a'.repeat(250)}@x.io`)).toBeNull();
  });

  it('has a page: the account’s by id, the guest’s by e-mail in the query (encoded)', () => {
    expect(customerHref({ kind: 'account', userId: ID })).toBe(`/admin/customers/${ID}`);
    expect(customerHref({ kind: 'guest', email: 'a+b@example.com' })).toBe('/admin/customers/guest?email=a%2Bb%40example.com');
    expect(orderCustomerHref({ userId: null, customerEmail: 'Ada@Example.com' })).toBe(
      '/admin/customers/guest?email=ada%40example.com',
    );
    expect(orderCustomerHref({ userId: ID, customerEmail: 'ada@example.com' })).toBe(`/admin/customers/${ID}`);
  });

  it('has a list key that reads back to it; another spelling of a guest’s e-mail is not one', () => {
    for (const key of [accountKey(ID), guestKey('ada@example.com')]) {
      if (!key) throw new Error('no key');
      expect(fromListKey(listKey(key))).toEqual(key);
    }
    expect(fromListKey('g:Ada@example.com')).toBeNull();
    expect(fromListKey('x:ada@example.com')).toBeNull();
    expect(fromListKey('a:nope')).toBeNull();
  });
});

describe('the list’s address', () => {
  it('reads the search trimmed and cut at 200 characters', () => {
    expect(customerSearch(new URLSearchParams({ q: '  50%_off  ' }))).toBe('50%_off');
    expect(customerSearch(new URLSearchParams({ q: 'x'.repeat(300) }))).toHaveLength(200);
    expect(customerSearch(new URLSearchParams())).toBe('');
  });

  it('carries a page’s cursor, keeping the search; a malformed one is the first page', () => {
    const cursor = { at: '2026-12-04T10:11:12.123456Z', key: 'g:ada@example.com' };
    const next = new URL(customersPageAfter(cursor, 'ada'), 'http://shop.test');
    expect(next.pathname).toBe('/admin/customers');
    expect(next.searchParams.get('q')).toBe('ada');
    expect(customerCursorFrom(next.searchParams)).toEqual(cursor);
    expect(new URL(customersPageAfter(cursor, ''), 'http://shop.test').searchParams.has('q')).toBe(false);
    for (const bad of [
      { at: '2026-12-04T10:11:12Z', key: cursor.key },
      { at: cursor.at, key: 'ada@example.com' },
      { at: '2026-13-45T10:11:12.123456Z', key: cursor.key },
      { at: cursor.at, key: `a:${ID}x` },
    ])
      expect(customerCursorFrom(new URLSearchParams(bad))).toBeUndefined();
  });
});
