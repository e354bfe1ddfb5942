-- The repository and the shop agree (decision 018): a deploy that changes a product file editors have saved is found
-- and shown to them, instead of the newest save silently winning.
--
-- Each save records the seed text it descends from, as a SHA-256 digest of content/products/<file> as the server that
-- saved it read it: a save over the seed takes the seed's digest, a save over a save inherits it, and only an editor's
-- choice (keep the saved version, take the repository's) moves it to a new seed. 'none': the file had no seed (a new
-- product). Null: saved before this was recorded; the first server that looks takes the seed it has as their base.
alter table public.catalogue_revisions
  add column seed_sha256 text check (seed_sha256 ~ '^([0-9a-f]{64}|none)$');

-- A product changed in the repository since editors saved it: the repository's text as the server that found it read
-- it (the editor sees it and may take it, whichever server they are on), found once per file until chosen. Exactly
-- once: servers finding the same change insert under the partial unique index, and only the insert that made a row
-- writes its line in the activity log, in the same transaction. Resolved by one conditional update (resolved_at is null).
create table public.catalogue_seed_changes (
  id bigint generated always as identity primary key,
  file text not null check (file ~ '^[a-z0-9][a-z0-9-]{0,99}\.md$'),
  seed_sha256 text not null check (seed_sha256 ~ '^[0-9a-f]{64}$'),
  seed_contents text not null check (octet_length(seed_contents) between 1 and 262144),
  -- The seed the saves were made over ('none': the product was new).
  base_sha256 text not null check (base_sha256 ~ '^([0-9a-f]{64}|none)$'),
  -- The newest save when it was found.
  revision_id bigint not null references public.catalogue_revisions (id),
  found_at timestamptz not null default now(),
  resolved_at timestamptz,
  -- kept: the saved version stays; taken: the repository's became a save; settled: the repository came to agree
  -- with the saves (it went back, or took the saved text) before anyone chose.
  resolution text check (resolution in ('kept', 'taken', 'settled')),
  resolved_by_id uuid references auth.users (id) on delete set null,
  resolved_by_email text,
  resolution_revision_id bigint references public.catalogue_revisions (id),
  constraint catalogue_seed_changes_resolved check ((resolved_at is null) = (resolution is null))
);
create unique index catalogue_seed_changes_open on public.catalogue_seed_changes (file) where resolved_at is null;
alter table public.catalogue_seed_changes enable row level security;

revoke all on public.catalogue_seed_changes from anon, authenticated;
grant select, insert, update, delete on public.catalogue_seed_changes to service_role;
grant usage, select on all sequences in schema public to service_role;
