import { useCallback, useEffect, useState } from 'react';
import { api } from '@/lib/api';
import EarlierPublishes from './EarlierPublishes';
import type { PublishState } from './publish.server';
import type { ScheduleState } from './publish-schedule.server';
import { publishWords } from './publish-words';
import ScheduledPublishes from './ScheduledPublishes';

interface Props {
  state: PublishState;
  /** The publishes scheduled for a chosen time, to come and done. */
  schedule: ScheduleState;
  /** The shop's time zone (SHOP_TIME_ZONE). */
  timeZone: string;
}

/** How often the panel asks how a publish is going while one is queued or building. */
const POLL_MS = 2000;

/**
 * The Publish button and what became of the newest publish (queued, building, published, failed with the reason),
 * asked again every two seconds while it is under way.
 */
export default function PublishPanel(props: Props) {
  const [state, setState] = useState(props.state);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const underway = state.latest?.status === 'queued' || state.latest?.status === 'building';

  useEffect(() => {
    if (!underway) return;
    const timer = setInterval(async () => {
      const r = await api<PublishState>('/api/admin/catalogue/publish');
      if (r.ok) setState(r.data);
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [underway]);

  // A scheduled publish started: the panel follows it as it follows one pressed here.
  const refresh = useCallback(async () => {
    const r = await api<PublishState>('/api/admin/catalogue/publish');
    if (r.ok) setState(r.data);
  }, []);

  async function publish() {
    setBusy(true);
    setError(null);
    const r = await api<{ state: PublishState }>('/api/admin/catalogue/publish', {});
    setBusy(false);
    if (!r.ok) return setError(`Not published: ${r.message}`);
    setState(r.data.state);
  }

  const latest = state.latest;
  return (
    <section className="editor-publish" aria-labelledby="publish-heading">
      <h2 id="publish-heading">Publish</h2>
      <p>
        {state.unpublishedSaves === 0
          ? 'Every save is published.'
          : `${state.unpublishedSaves} save${state.unpublishedSaves === 1 ? '' : 's'} not yet published.`}
      </p>
      <p className={`editor-status editor-status-${latest?.status ?? 'none'}`} role="status">
        {publishWords(latest, state.unpublishedSaves)}
      </p>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <button type="button" className="btn" onClick={publish} disabled={busy || underway || state.unpublishedSaves === 0}>
        Publish
      </button>
      <ScheduledPublishes schedule={props.schedule} timeZone={props.timeZone} onStarted={refresh} />
      <EarlierPublishes state={state} timeZone={props.timeZone} onServed={setState} underway={underway} />
    </section>
  );
}
