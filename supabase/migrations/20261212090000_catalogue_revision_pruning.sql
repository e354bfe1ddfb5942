-- Saves beyond a policy are pruned (decision 021): per product the newest ones, those of the last days, and every one a
-- publish, a stored release or a change from the repository still reads are kept, with the save before each of them.
--
-- A save kept only as the text before another may have lost its own earlier save: it is marked, so that neither its
-- history nor an undo takes whatever older save is left (or the seed) for the text it changed.
alter table public.catalogue_revisions
  add column earlier_pruned boolean not null default false;

-- An undo whose undone save was pruned keeps its words (its summary) and loses the link.
alter table public.catalogue_revisions
  drop constraint catalogue_revisions_undoes_fkey,
  add constraint catalogue_revisions_undoes_fkey
    foreign key (undoes) references public.catalogue_revisions (id) on delete set null;

-- Deleting a save looks for undos of it: by this index, not by reading every save (a prune deletes thousands at once).
create index catalogue_revisions_undoes on public.catalogue_revisions (undoes) where undoes is not null;
