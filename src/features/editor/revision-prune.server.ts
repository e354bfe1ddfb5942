// Pruning the catalogue's saves (decision 021). Every save is a row of public.catalogue_revisions with the product
// file's whole text, kept for the history and for undo; unpruned, the saves and the uploads only they show grow
// forever. Kept, per product: the newest REVISIONS_KEPT saves, every save of the last REVISION_DAYS_KEPT days, and every
// save something still reads (the save a publish that may be made again reads of each product: the last RELEASES_KEPT
// live ones, which can be served again, one queued or under way, one whose release is still stored; and the saves a
// change from the repository names, decision 018); with each of them the save before it, which its history compares
// it with and its undo brings back. A save kept only as that text, whose own earlier save goes, is marked
// `earlier_pruned`: its change is no longer known. An uploaded picture goes once no save left and no product file of
// the repository shows it, and it was not uploaded within the same days (an upload waits for the save that uses it).
import type { Database } from '@/server/db/database.server';
import { asService } from '@/server/db/roles.server';
import { logger } from '@/server/log.server';
import { SAVE_LOCK } from './catalogue-edit.server';
import { projectRoot, seedFiles } from './catalogue-files.server';
import { picturesShown } from './catalogue-snapshot.server';
import { RELEASES_KEPT } from './release-store.server';
import { REVISION_DAYS_KEPT, REVISIONS_KEPT } from './revision-policy';

/** The lock publish requests and "serve this publish again" take (publish.server.ts, publish-again.server.ts). */
const PUBLISH_LOCK = 'select pg_advisory_xact_lock(2801131)';

/**
 * A picture's name where a product file shows it (`./images/<name>`), as the database's catalogue_pictures.name takes
 * it; anywhere in the text, so a save whose front matter cannot be read keeps what it mentions. PostgreSQL's regular
 * expressions take the longest match, so `x.jpeg` is read whole.
 */
const PICTURE_IN_TEXT = 'images/([a-z0-9][a-z0-9-]*\\.(?:svg|png|jpeg|jpg|webp|avif))';

/** What a prune took away. */
export interface Pruned {
  revisions: number;
  pictures: number;
}

const log = logger('catalogue');

/**
 * Prunes saves beyond the policy, and uploaded pictures no save left shows, in one transaction. It takes the lock of
 * saves (none is made meanwhile, and none names a picture being taken away) and of publish requests (no earlier
 * publish is served again meanwhile), so servers pruning at once take turns and the second finds nothing to do.
 * `root` is the project whose product files count as the repository's.
 */
export async function pruneRevisions(db: Database, root = projectRoot()): Promise<Pruned> {
  const inRepository = [...picturesShown(await seedFiles(root))];
  const pruned = await asService(db, async (tx): Promise<Pruned> => {
    await tx.query(PUBLISH_LOCK);
    await tx.query(SAVE_LOCK);
    // Anti-joins (not exists), never `not in` a set of thousands: PostgreSQL would compare each row with each.
    const [found] = await tx.query<{ gone: (string | number)[]; marked: (string | number)[] }>(
      `with ranked as (
         select id, created_at, earlier_pruned,
                row_number() over (partition by file order by id desc) as newest,
                lag(id) over (partition by file order by id) as previous
           from public.catalogue_revisions),
       publishes as (
         (select up_to_revision from public.catalogue_publishes where status = 'live' order by id desc limit $3)
         union
         select up_to_revision from public.catalogue_publishes
          where status in ('queued', 'building') or digest in (select key from public.catalogue_releases)),
       read as (
         select (select max(r.id) from public.catalogue_revisions r where r.file = f.file and r.id <= p.up_to_revision) as id
           from publishes p cross join (select distinct file from public.catalogue_revisions) f),
       named as (
         select revision_id as id from public.catalogue_seed_changes
         union select resolution_revision_id from public.catalogue_seed_changes),
       kept as (
         select id from ranked where newest <= $1 or created_at > now() - $2 * interval '1 day'
         union select id from read where id is not null
         union select id from named where id is not null),
       with_before as (
         select id from kept
         union select previous from ranked join kept using (id) where previous is not null and not earlier_pruned)
       select coalesce((select array_agg(r.id order by r.id) from ranked r
                         where not exists (select 1 from with_before w where w.id = r.id)), '{}') as gone,
              coalesce((select array_agg(r.id order by r.id) from ranked r
                         where exists (select 1 from with_before w where w.id = r.id) and not r.earlier_pruned
                           and r.previous is not null
                           and not exists (select 1 from with_before w where w.id = r.previous)), '{}') as marked`,
      [REVISIONS_KEPT, REVISION_DAYS_KEPT, RELEASES_KEPT],
    );
    const gone = (found?.gone ?? []).map(String);
    const marked = (found?.marked ?? []).map(String);
    if (marked.length > 0)
      await tx.query('update public.catalogue_revisions set earlier_pruned = true where id = any($1::bigint[])', [marked]);
    const revisions =
      gone.length === 0
        ? []
        : await tx.query('delete from public.catalogue_revisions where id = any($1::bigint[]) returning id', [gone]);
    const pictures = await tx.query(
      `with shown as (
         select m[1] as name from public.catalogue_revisions r cross join lateral regexp_matches(r.contents, $3, 'g') as m)
       delete from public.catalogue_pictures p
        where p.created_at < now() - $1 * interval '1 day' and not (p.name = any($2::text[]))
          and not exists (select 1 from shown where shown.name = p.name)
        returning p.name`,
      [REVISION_DAYS_KEPT, inRepository, PICTURE_IN_TEXT],
    );
    return { revisions: revisions.length, pictures: pictures.length };
  });
  if (pruned.revisions + pruned.pictures > 0)
    log.info({ event: 'catalogue.pruned', ...pruned }, `pruned ${pruned.revisions} saves and ${pruned.pictures} pictures`);
  return pruned;
}
