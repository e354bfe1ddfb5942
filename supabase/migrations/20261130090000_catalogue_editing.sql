-- The catalogue edited on the running shop (decision 008). The markdown under content/products is the seed; what editors
-- save is kept here, one row per save, so every server on the database sees the same edits and history, and undo is a
-- new save of an earlier text. What shoppers see changes only when a publish builds the pages from it.
-- All four tables are server-only (RLS on, no policy): editors act through named server paths as service_role.

-- Who may edit the catalogue besides the admins: granted and removed by an admin (recorded in admin_actions).
create table public.shop_editors (
  user_id uuid primary key references auth.users (id) on delete cascade,
  granted_by_email text not null,
  created_at timestamptz not null default now()
);
alter table public.shop_editors enable row level security;

-- One row per save of a product file: the whole file as saved (it passed the build's schema and the catalogue guard).
-- The newest row of a file is its text; a file with no row is the seed's.
create table public.catalogue_revisions (
  id bigint generated always as identity primary key,
  file text not null check (file ~ '^[a-z0-9][a-z0-9-]{0,99}\.md$'),
  product_id integer not null check (product_id > 0),
  contents text not null check (octet_length(contents) between 1 and 262144),
  -- The account may go; the record of who saved stays, with the address it had.
  author_id uuid references auth.users (id) on delete set null,
  author_email text not null,
  -- What changed, in words ("price 45 → 47"), for the history.
  summary text not null default '' check (length(summary) <= 2000),
  -- The save this one undid, when it was an undo.
  undoes bigint references public.catalogue_revisions (id),
  created_at timestamptz not null default now()
);
create index catalogue_revisions_by_file on public.catalogue_revisions (file, id desc);
alter table public.catalogue_revisions enable row level security;

-- Pictures editors uploaded. A name is never reused for other bytes (the name carries a digest of them), so a build
-- can take every picture without asking which revision it belongs to.
create table public.catalogue_pictures (
  name text primary key check (name ~ '^[a-z0-9][a-z0-9-]{0,99}\.(svg|png|jpg|jpeg|webp|avif)$'),
  bytes bytea not null check (octet_length(bytes) between 1 and 2097152),
  author_id uuid references auth.users (id) on delete set null,
  author_email text not null,
  created_at timestamptz not null default now()
);
alter table public.catalogue_pictures enable row level security;

-- Publishes: a request to build the shop's pages from the saved catalogue, and what came of it. The newest 'live' row
-- is what every server serves: the catalogue as of `up_to_revision` (0: the seed alone).
create table public.catalogue_publishes (
  id bigint generated always as identity primary key,
  requested_by_id uuid references auth.users (id) on delete set null,
  requested_by_email text not null,
  requested_at timestamptz not null default now(),
  status text not null default 'queued' check (status in ('queued', 'building', 'live', 'failed')),
  up_to_revision bigint not null default 0,
  -- Which server built it, and the digest of the catalogue it built (the same on every server).
  built_by text,
  digest text,
  -- Why the build failed, in words an editor reads.
  error text check (length(error) <= 4000),
  started_at timestamptz,
  finished_at timestamptz
);
create index catalogue_publishes_live on public.catalogue_publishes (id desc) where status = 'live';
alter table public.catalogue_publishes enable row level security;

revoke all on public.shop_editors, public.catalogue_revisions, public.catalogue_pictures, public.catalogue_publishes
  from anon, authenticated;
grant select, insert, update, delete on public.shop_editors, public.catalogue_revisions, public.catalogue_pictures,
  public.catalogue_publishes to service_role;
grant usage, select on all sequences in schema public to service_role;
