import { useState } from 'react';
import { notify } from '@/features/toasts/toast.store';
import { api } from '@/lib/api';
import { adminTime } from '../admin';
import { JOB_STATE_LABELS, type OrderJob, retryable } from './order-admin';

/** What is known of a job besides its state: attempts, when it runs next or finished (in the shop's time zone). */
function details(job: OrderJob, timeZone: string): string {
  const attempts = `${job.attempts} attempt${job.attempts === 1 ? '' : 's'}`;
  if (job.doneAt) return `${attempts}, done ${adminTime(job.doneAt, timeZone)}`;
  if (job.nextAttemptAt) return `${attempts}, next ${adminTime(job.nextAttemptAt, timeZone)}`;
  return attempts;
}

/**
 * The order's outbox jobs (label and e-mails) and where each stands, with Retry for one that failed: the server sends
 * it back to the worker at once, and the row then shows it waiting.
 */
export default function OrderJobs({
  orderId,
  jobs: initial,
  timeZone,
}: {
  orderId: string;
  jobs: OrderJob[];
  /** The shop's time zone (SHOP_TIME_ZONE). */
  timeZone: string;
}) {
  const [jobs, setJobs] = useState(initial);
  const [busy, setBusy] = useState<string | null>(null);

  async function retry(job: OrderJob) {
    setBusy(job.id);
    const r = await api<{ changed: boolean; job: OrderJob; message: string }>(`/api/admin/orders/${orderId}/retry`, {
      jobId: job.id,
    });
    setBusy(null);
    if (!r.ok) return notify.failure('Retry failed', r);
    setJobs((all) => all.map((j) => (j.id === r.data.job.id ? r.data.job : j)));
    (r.data.changed ? notify.success : notify.info)(r.data.message);
  }

  if (jobs.length === 0) return <p className="admin-note">No label or e-mail jobs were queued for this order.</p>;
  return (
    <ul className="admin-jobs">
      {jobs.map((job) => (
        <li key={job.id}>
          <div className="admin-job-head">
            <strong>{job.label}</strong>
            <span className={`admin-job admin-job-${job.state}`}>{JOB_STATE_LABELS[job.state]}</span>
          </div>
          <p className="admin-note">{details(job, timeZone)}</p>
          {job.lastError && <p className="admin-job-error">Last error: {job.lastError}</p>}
          {retryable(job.state) && (
            <button type="button" className="btn btn-outline" disabled={busy === job.id} onClick={() => retry(job)}>
              Retry<span className="visually-hidden"> {job.label}</span>
            </button>
          )}
        </li>
      ))}
    </ul>
  );
}
