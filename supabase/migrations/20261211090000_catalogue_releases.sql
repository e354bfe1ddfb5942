-- Releases of the catalogue (decision 019): what one server made of a publish (the product files it read, the pages it
-- rendered for each stretch of time in which the same sales run, the pictures), kept here so that every other server
-- serves it without making it again. A release is named by a digest of the code that made it and of the catalogue;
-- its files are kept once each, by the SHA-256 of their bytes, and checked against it when read. A lease names the
-- server making a release, so others wait for it rather than make it too; a lease past its time (the server stopped)
-- is taken over. Server-only (RLS on, no policy).

create table public.catalogue_releases (
  key text primary key check (key ~ '^[0-9a-f]{24}$'),
  -- The manifest as written (text, not jsonb: its digest is of these bytes).
  manifest text not null,
  digest text not null check (digest ~ '^[0-9a-f]{64}$'),
  made_by text not null,
  made_ms integer not null check (made_ms >= 0),
  created_at timestamptz not null default now()
);

create table public.catalogue_release_files (
  hash text primary key check (hash ~ '^[0-9a-f]{64}$'),
  bytes bytea not null
);

create table public.catalogue_release_leases (
  key text primary key,
  holder text not null,
  expires_at timestamptz not null
);

-- "Serve this publish again": a publish that is an earlier one's catalogue, live at once.
alter table public.catalogue_publishes
  add column again_of bigint references public.catalogue_publishes (id) on delete set null;

alter table public.catalogue_releases enable row level security;
alter table public.catalogue_release_files enable row level security;
alter table public.catalogue_release_leases enable row level security;
revoke all on public.catalogue_releases, public.catalogue_release_files, public.catalogue_release_leases
  from anon, authenticated;
grant select, insert, update, delete
  on public.catalogue_releases, public.catalogue_release_files, public.catalogue_release_leases to service_role;
