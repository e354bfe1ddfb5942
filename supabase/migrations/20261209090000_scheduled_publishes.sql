-- Publishes at a chosen time (decision 014): an editor schedules a publish of what is saved for a moment (a price
-- change at midnight); at that moment one server starts it, and it is built and switched to as any publish.
--
-- Exactly once, whichever servers look: a schedule is started by the conditional update that moves it from
-- 'scheduled' to 'started' (a second server's update waits for the row and then finds it started), in the statement
-- that queues its publish; the publish's schedule_id is unique besides. Cancelling is the same conditional update to
-- 'cancelled', so a schedule is either cancelled or started, never both. Server-only (RLS on, no policy): editors reach
-- it through the catalogue's endpoints as service_role, each change recorded in admin_actions.

create table public.catalogue_scheduled_publishes (
  id bigint generated always as identity primary key,
  run_at timestamptz not null,
  -- The account may go; the schedule keeps the address it had.
  scheduled_by_id uuid references auth.users (id) on delete set null,
  scheduled_by_email text not null,
  scheduled_at timestamptz not null default now(),
  status text not null default 'scheduled' check (status in ('scheduled', 'started', 'cancelled')),
  -- The server that started it (host:port), and when.
  started_by text,
  started_at timestamptz,
  cancelled_by_email text,
  cancelled_at timestamptz,
  constraint catalogue_scheduled_publishes_started check ((status = 'started') = (started_at is not null)),
  constraint catalogue_scheduled_publishes_cancelled check ((status = 'cancelled') = (cancelled_at is not null))
);
create index catalogue_scheduled_publishes_due on public.catalogue_scheduled_publishes (run_at) where status = 'scheduled';
alter table public.catalogue_scheduled_publishes enable row level security;

-- The publish a schedule became: one at most.
alter table public.catalogue_publishes
  add column schedule_id bigint unique references public.catalogue_scheduled_publishes (id) on delete set null;

revoke all on public.catalogue_scheduled_publishes from anon, authenticated;
grant select, insert, update, delete on public.catalogue_scheduled_publishes to service_role;
grant usage, select on all sequences in schema public to service_role;
