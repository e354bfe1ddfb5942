-- The shop owner's admin (issue 10). Who is an admin: a verified account whose e-mail is in ADMIN_EMAILS, or one
-- promoted here by `npm run admin:create`. What admins did: one row per action, written in the action's own
-- transaction. Both tables are server-only (RLS on, no policy): admins act through named server paths as service_role,
-- never through a loosened policy.

create table public.shop_admins (
  user_id uuid primary key references auth.users (id) on delete cascade,
  created_at timestamptz not null default now()
);
alter table public.shop_admins enable row level security;

create table public.admin_actions (
  id bigint generated always as identity primary key,
  -- The account may go; the record of what it did stays, with the address it had.
  admin_id uuid references auth.users (id) on delete set null,
  admin_email text not null,
  action text not null check (length(action) between 1 and 100),
  target text not null check (length(target) between 1 and 200),
  before jsonb,
  after jsonb,
  created_at timestamptz not null default now()
);
create index admin_actions_recent on public.admin_actions (created_at desc, id desc);
alter table public.admin_actions enable row level security;

revoke all on public.shop_admins, public.admin_actions from anon, authenticated;
grant select, insert, update, delete on public.shop_admins, public.admin_actions to service_role;
grant usage, select on all sequences in schema public to service_role;
