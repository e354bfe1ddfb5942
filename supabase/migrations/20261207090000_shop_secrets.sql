-- Keys the shop signs with that every server must share, made once by the server that first needs one (issue 44, part
-- 2: the preview links an editor sends to someone without an account, decision 014). In the database, not beside it
-- as the embedded shop's backup key is: several servers on one PostgreSQL check each other's links. Deleting a row
-- replaces that key at its next use, which ends every link signed with the old one.
--
-- Server-only: schema app_private (no guest or shopper has usage on it), RLS on with no policy besides, and only
-- service_role (which bypasses RLS) may read or add a key.
create table app_private.shop_secrets (
  name text primary key check (name ~ '^[a-z][a-z0-9-]{0,39}$'),
  secret bytea not null check (octet_length(secret) between 32 and 64),
  created_at timestamptz not null default now()
);
alter table app_private.shop_secrets enable row level security;
revoke all on app_private.shop_secrets from public, anon, authenticated;
grant select, insert, delete on app_private.shop_secrets to service_role;
