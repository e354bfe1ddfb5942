-- Built-in accounts on PostgreSQL: every server keeps the sessions it has read in memory between their activity writes
-- (src/server/auth/session-cache.server.ts). A session ended or an account changed by another server, or by hand, must
-- not be answered from one of those memories: every such write tells every server, which then forgets what it kept.
-- New sessions and activity writes change nothing a server keeps, so they notify no one. The notification leaves when
-- the writing transaction commits, and not if it rolls back.
create function public.notify_auth_change() returns trigger
language plpgsql
set search_path = ''
as $$
begin
  perform pg_notify('aurelia_auth_changes', '');
  return null;
end;
$$;

create trigger auth_sessions_changed after update or delete or truncate on public.auth_sessions
  for each statement execute function public.notify_auth_change();

create trigger auth_users_changed after update or delete or truncate on auth.users
  for each statement execute function public.notify_auth_change();
