import { type SubmitEvent, useEffect, useId, useState } from 'react';
import { api } from '@/lib/api';
import type { ScheduledPublish, ScheduleState } from './publish-schedule.server';
import { scheduledWords } from './publish-words';
import { shopTimeWords } from './shop-time';

interface Props {
  schedule: ScheduleState;
  /** The shop's time zone: times are typed and shown on its clock. */
  timeZone: string;
  /** Called when a scheduled publish has started, so the panel follows the publish it became. */
  onStarted(): void;
}

/** How often the list is asked again while a scheduled publish is near (its time within 10 minutes) or under way. */
const POLL_MS = 3000;
const NEAR_MS = 10 * 60_000;

/**
 * Publishing at a chosen time, in the Publish panel: a time to publish what is saved at, the publishes to come (each
 * with who scheduled it, and Cancel), and those done (published, failed with the reason, or cancelled, and by whom).
 */
export default function ScheduledPublishes({ schedule: initial, timeZone, onStarted }: Props) {
  const id = useId();
  const [schedule, setSchedule] = useState(initial);
  const [runAt, setRunAt] = useState('');
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<{ kind: 'info' | 'error'; text: string } | null>(null);
  const near =
    schedule.upcoming.some((s) => Date.parse(s.runAt) - Date.now() < NEAR_MS) ||
    schedule.done.some((s) => s.status === 'queued' || s.status === 'building');

  useEffect(() => {
    if (!near) return;
    const timer = setInterval(async () => {
      const r = await api<ScheduleState>('/api/admin/catalogue/schedule');
      if (!r.ok) return;
      setSchedule((before) => {
        if (r.data.done.some((s) => !before.done.some((b) => b.id === s.id && b.status === s.status))) onStarted();
        return r.data;
      });
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [near, onStarted]);

  async function add(e: SubmitEvent<HTMLFormElement>) {
    e.preventDefault();
    setBusy(true);
    const r = await api<{ message: string; state: ScheduleState }>('/api/admin/catalogue/schedule', { runAt });
    setBusy(false);
    if (!r.ok) return setNote({ kind: 'error', text: `Not scheduled: ${r.message}` });
    setSchedule(r.data.state);
    setRunAt('');
    setNote({ kind: 'info', text: r.data.message });
  }

  async function cancel(s: ScheduledPublish) {
    setBusy(true);
    const r = await api<{ message: string; state: ScheduleState }>('/api/admin/catalogue/schedule/cancel', { id: s.id });
    setBusy(false);
    if (!r.ok) {
      setNote({ kind: 'error', text: `Not cancelled: ${r.message}` });
      const again = await api<ScheduleState>('/api/admin/catalogue/schedule');
      if (again.ok) setSchedule(again.data);
      return;
    }
    setSchedule(r.data.state);
    setNote({ kind: 'info', text: r.data.message });
  }

  const when = (iso: string) => shopTimeWords(new Date(iso), timeZone);
  return (
    <div className="editor-schedule">
      <h3 id={`${id}-heading`}>Publish at a chosen time</h3>
      <form onSubmit={add} aria-labelledby={`${id}-heading`}>
        <div className="field">
          <label htmlFor={`${id}-run-at`}>Publish at ({timeZone} time)</label>
          <input
            id={`${id}-run-at`}
            type="datetime-local"
            step={1}
            required
            value={runAt}
            onChange={(e) => setRunAt(e.target.value)}
            aria-describedby={`${id}-hint`}
          />
          <p className="field-hint" id={`${id}-hint`}>
            At that time the shop publishes everything saved by then, as if someone pressed Publish (a price change at midnight:
            save it, then schedule midnight). Shoppers see it within a minute. You can cancel it until then.
          </p>
        </div>
        <button type="submit" className="btn btn-outline" disabled={busy || runAt === ''}>
          Schedule publish
        </button>
      </form>
      {/* Announced as it changes; not a role="status": the panel's status is the publish's. */}
      <p
        className={`editor-schedule-note editor-status-${note?.kind ?? 'none'}`}
        {...(note?.kind === 'error' ? { role: 'alert' } : { 'aria-live': 'polite' as const })}
      >
        {note?.text ?? ''}
      </p>
      <h4>Scheduled</h4>
      {schedule.upcoming.length === 0 ? (
        <p>No publish is scheduled.</p>
      ) : (
        <ul className="editor-schedule-list" aria-label="Scheduled publishes">
          {schedule.upcoming.map((s) => (
            <li key={s.id}>
              <span>
                <strong>{when(s.runAt)}</strong> · scheduled by {s.scheduledBy} on {when(s.scheduledAt)}
              </span>
              <button type="button" className="btn btn-outline" disabled={busy} onClick={() => cancel(s)}>
                Cancel<span className="visually-hidden">{` the publish at ${when(s.runAt)}`}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {schedule.done.length > 0 && (
        <>
          <h4>Done</h4>
          <ul className="editor-schedule-list" aria-label="Scheduled publishes done">
            {schedule.done.map((s) => (
              <li key={s.id} className={`editor-status-${s.status}`}>
                <span>
                  <strong>{when(s.runAt)}</strong> · {scheduledWords(s, when)} · scheduled by {s.scheduledBy}
                </span>
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
