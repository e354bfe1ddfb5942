-- Account pre-hijacking: each sign-up's own password hash and names travel with its verification link and are
-- written to auth.users only when that link is used, so whoever reads the mailbox decides which sign-up is in charge.
-- Both are cleared once the link is spent or retired: a hash no longer needed is not kept.
alter table public.auth_tokens
  add column password_hash text,
  add column user_meta jsonb,
  add constraint auth_tokens_signup_only check ((password_hash is null and user_meta is null) or purpose = 'verify_email');

-- Login limits: addresses that signed in to an account successfully in the last 30 days, so a stranger's failures
-- cannot lock the owner out from where they usually sign in. Only SHA-256(e-mail, address) is kept: the table does
-- not list who signs in from where. Server-only, like rate_limits.
create table public.login_known_addresses (
  key_hash text primary key,
  last_success_at timestamptz not null default now()
);
alter table public.login_known_addresses enable row level security;
revoke all on public.login_known_addresses from anon, authenticated;
grant select, insert, update, delete on public.login_known_addresses to service_role;
