// "Serve this publish again" (decision 019): an earlier live publish's catalogue made live once more, on every server,
// without publishing what was saved since. It is a publish of its own (live at once, `again_of` the one it repeats):
// every server follows it as it follows any publish (NOTIFY, then its periodic look), fetching the release stored for
// it (or making it, under the lease, when its code's release was pruned). Saves made since count as not published.
import type { Database } from '@/server/db/database.server';
import { asService } from '@/server/db/roles.server';
import { publishedAgainWords } from './activity-words';
import { logCatalogueAction } from './catalogue-log.server';
import { changedSinceLive, type Publish, type Publisher, wake } from './publish.server';
import { RELEASES_KEPT } from './release-store.server';

/** The channel a publish gone live is announced on (publisher.server.ts listens). */
export const PUBLISHES_CHANNEL = 'aurelia_catalogue_publishes';

export type AgainResult =
  | { ok: true; publish: Pick<Publish, 'id' | 'upToRevision'> }
  | { ok: false; status: 404 | 409; code: string; message: string };

/**
 * Makes publish `id` live again, for `by`, with a line in the activity log: only a publish that went live, among the
 * last RELEASES_KEPT, and not the one live now; never while a publish is under way.
 */
export async function servePublishAgain(db: Database, by: Publisher, id: number): Promise<AgainResult> {
  const result = await asService(db, async (tx): Promise<AgainResult> => {
    // The lock publish requests take: a request and this never cross.
    await tx.query('select pg_advisory_xact_lock(2801131)');
    const recent = await tx.query<{ id: string | number; up_to_revision: string | number; digest: string | null }>(
      `select id, up_to_revision, digest from public.catalogue_publishes where status = 'live' order by id desc limit $1`,
      [RELEASES_KEPT],
    );
    const index = recent.findIndex((row) => Number(row.id) === id);
    const earlier = recent[index];
    if (!earlier)
      return {
        ok: false,
        status: 404,
        code: 'not_found',
        message: `Publish ${id} is not one of the last ${RELEASES_KEPT} that went live: publish what is saved instead.`,
      };
    if (index === 0)
      return { ok: false, status: 409, code: 'already_live', message: 'This publish is what shoppers see already.' };
    const [underway] = await tx.query<{ yes: boolean }>(
      `select exists (select 1 from public.catalogue_publishes where status in ('queued', 'building')) as yes`,
    );
    if (underway?.yes)
      return {
        ok: false,
        status: 409,
        code: 'publish_underway',
        message: 'A publish is under way: wait for it to finish, then choose again.',
      };
    const upTo = Number(earlier.up_to_revision);
    const words = publishedAgainWords(id, await changedSinceLive(tx, upTo));
    const [added] = await tx.query<{ id: string | number }>(
      `insert into public.catalogue_publishes
         (requested_by_id, requested_by_email, status, started_at, finished_at, up_to_revision, digest, again_of)
       values ($1, $2, 'live', now(), now(), $3, $4, $5) returning id`,
      [by.id, by.email, upTo, earlier.digest, id],
    );
    await logCatalogueAction(tx, by, { action: 'catalogue.published-again', target: 'catalogue', words });
    await tx.query('select pg_notify($1, $2)', [PUBLISHES_CHANNEL, String(added?.id ?? '')]);
    return { ok: true, publish: { id: Number(added?.id), upToRevision: upTo } };
  });
  if (result.ok) wake.publisher();
  return result;
}
