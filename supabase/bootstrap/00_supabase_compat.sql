-- What a Supabase project already has, created on plain PostgreSQL and PGlite so the migrations run unchanged.
-- Never run against Supabase itself. Idempotent: safe on every start.

-- Roles belong to the whole server, not to one database: two databases migrating at once for the first time (two
-- shops, or the test suites, on one server) can both find a role missing, and the second to create it is told it
-- exists. That is the outcome wanted, so it is not an error.
do $$
declare
  wanted record;
begin
  for wanted in select * from (values ('anon', ''), ('authenticated', ''), ('service_role', ' bypassrls')) as r(name, extra) loop
    if not exists (select from pg_roles where rolname = wanted.name) then
      begin
        execute format('create role %I nologin noinherit', wanted.name) || wanted.extra;
      exception when duplicate_object or unique_violation then
        null;
      end;
    end if;
  end loop;
end
$$;

create schema if not exists auth;
grant usage on schema auth to anon, authenticated, service_role;
grant usage on schema public to anon, authenticated, service_role;

-- The columns of Supabase's auth.users that this app reads or, with built-in accounts, writes.
create table if not exists auth.users (
  id uuid primary key default gen_random_uuid(),
  email text unique,
  encrypted_password text,
  email_confirmed_at timestamptz,
  raw_user_meta_data jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- Same definitions as Supabase's.
create or replace function auth.uid() returns uuid
language sql stable
as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim.sub', true), ''),
    (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub')
  )::uuid
$$;

create or replace function auth.role() returns text
language sql stable
as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim.role', true), ''),
    (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'role')
  )::text
$$;

create or replace function auth.jwt() returns jsonb
language sql stable
as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim', true), ''),
    nullif(current_setting('request.jwt.claims', true), '')
  )::jsonb
$$;

grant execute on function auth.uid(), auth.role(), auth.jwt() to anon, authenticated, service_role;

-- The server's privileged paths (built-in accounts) read and write users as service_role.
grant select, insert, update, delete on auth.users to service_role;
