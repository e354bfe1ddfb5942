import { useStore } from '@nanostores/react';
import { type SubmitEvent, useEffect, useId, useState } from 'react';
import { api } from '@/lib/api';
import { $user } from '../auth/auth.store';
import { notify } from '../toasts/toast.store';
import { NEWSLETTER_MESSAGES as M, newsletterProblem } from './newsletter';

/**
 * The footer's newsletter sign-up; subscribing needs an account and that account's e-mail. Once subscribed the form is
 * disabled (product spec), with a way to unsubscribe.
 */
export default function NewsletterForm() {
  const user = useStore($user);
  const [email, setEmail] = useState('');
  const [subscribed, setSubscribed] = useState(false);
  const [busy, setBusy] = useState(false);
  const id = useId();
  const userId = user?.id;

  // Asked again whenever the shopper changes (sign-in, sign-out); a guest is never subscribed.
  useEffect(() => {
    setSubscribed(false);
    if (!userId) return undefined;
    let current = true;
    api<{ subscribed: boolean }>('/api/newsletter').then((r) => current && r.ok && setSubscribed(r.data.subscribed));
    return () => {
      current = false;
    };
  }, [userId]);

  async function submit(e: SubmitEvent) {
    e.preventDefault();
    const problem = newsletterProblem(email, user?.email ?? null);
    if (problem) return notify.error(problem.title, problem.description ? { description: problem.description } : undefined);
    setBusy(true);
    const r = await api('/api/newsletter', { email });
    setBusy(false);
    if (r.ok || r.status === 409) {
      setSubscribed(true);
      setEmail('');
      return r.ok ? notify.success(M.subscribed) : notify.info(M.alreadySubscribed);
    }
    if (r.status === 401) return notify.error(M.loginToSubscribe);
    notify.failure(M.failed, r);
  }

  async function leave() {
    setBusy(true);
    const r = await api('/api/newsletter', undefined, 'DELETE');
    setBusy(false);
    if (!r.ok) return notify.failure(M.failed, r);
    setSubscribed(false);
    notify.success(M.unsubscribed);
  }

  return (
    <form className="newsletter" onSubmit={submit} noValidate>
      <label htmlFor={id}>
        {subscribed ? 'You’re subscribed to our newsletter' : 'Join our newsletter for new launches and routines'}
      </label>
      <div className="newsletter-row">
        <input
          id={id}
          type="email"
          autoComplete="email"
          placeholder="you@example.com"
          value={email}
          disabled={subscribed}
          onChange={(e) => setEmail(e.target.value)}
        />
        <button type="submit" className="btn" disabled={subscribed || busy}>
          {subscribed ? 'Subscribed' : 'Subscribe'}
        </button>
      </div>
      {subscribed && (
        <button type="button" className="link-button newsletter-leave" onClick={leave} disabled={busy}>
          Unsubscribe
        </button>
      )}
    </form>
  );
}
