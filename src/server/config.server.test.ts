import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.server';

describe('configuration', () => {
  it('runs on the embedded defaults with no variables', () => {
    expect(loadConfig({})).toEqual({
      database: { kind: 'pglite', dir: '.data/pglite' },
      auth: { kind: 'built-in' },
      mail: { kind: 'dev-mailbox', port: 8005, from: 'Aurelia <hello@aurelia-care.com>' },
      siteUrl: null,
      signupLimit: { limit: 20, windowSeconds: 3600 },
    });
  });

  it('switches each port to its production adapter', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://u@db.example.com:5432/shop',
      SUPABASE_URL: 'https://x.supabase.co',
      SUPABASE_ANON_KEY: 'anon',
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'id',
      AWS_SECRET_ACCESS_KEY: 'secret',
      SES_FROM: 'shop@example.com',
    });
    expect(config.database.kind).toBe('postgres');
    expect(config.auth).toEqual({ kind: 'supabase', url: 'https://x.supabase.co', anonKey: 'anon' });
    expect(config.mail.kind).toBe('ses');
  });

  it('refuses a half-set adapter instead of silently falling back', () => {
    expect(() => loadConfig({ SUPABASE_URL: 'https://x.supabase.co' })).toThrow(
      'Supabase Auth is half-configured: SUPABASE_URL set but SUPABASE_ANON_KEY missing',
    );
    expect(() => loadConfig({ AWS_REGION: 'us-east-1', SES_FROM: 'a@example.com' })).toThrow(/AWS SES e-mail is half-configured/);
  });

  it('refuses malformed values', () => {
    expect(() => loadConfig({ DATABASE_URL: 'not a url' })).toThrow(/DATABASE_URL must be a URL/);
    expect(() => loadConfig({ DEV_MAILBOX_PORT: '70000' })).toThrow();
    for (const bad of ['0', '2.5', 'many', '20000']) {
      expect(() => loadConfig({ SIGNUPS_PER_HOUR_PER_ADDRESS: bad })).toThrow(
        /SIGNUPS_PER_HOUR_PER_ADDRESS must be a whole number from 1 to 10000/,
      );
    }
  });

  it('lets the shop raise the sign-ups one address may make in an hour', () => {
    expect(loadConfig({ SIGNUPS_PER_HOUR_PER_ADDRESS: '200' }).signupLimit).toEqual({ limit: 200, windowSeconds: 3600 });
  });
});
