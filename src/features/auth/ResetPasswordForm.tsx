import { type SubmitEvent, useState } from 'react';
import FormError from '@/components/FormError';
import { api } from '@/lib/api';
import { AUTH_MESSAGES, newPasswordProblem } from '@/lib/auth.rules';
import { useLive } from '@/lib/live';
import { notify } from '../toasts/toast.store';
import { $authModal } from './auth.store';

/**
 * Sets a new password with the token from the e-mailed link (read from the page's address).
 *
 * The form is in the page before its code is live (it hydrates after the first paint): its button stays disabled until
 * then, so no submission can leave without the token, and the fields are read when it is sent, so what was typed or
 * filled in by a password manager before then is what is sent.
 */
export default function ResetPasswordForm() {
  const live = useLive();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);

  async function submit(e: SubmitEvent<HTMLFormElement>) {
    e.preventDefault();
    const fields = new FormData(e.currentTarget);
    const password = String(fields.get('password') ?? '');
    const confirmPassword = String(fields.get('confirmPassword') ?? '');
    const token = new URLSearchParams(window.location.search).get('token') ?? '';
    const problem = token ? newPasswordProblem(password, confirmPassword) : AUTH_MESSAGES.invalidToken;
    if (problem) return setError(problem);
    setBusy(true);
    const r = await api<{ message: string }>('/api/auth/reset', { token, password, confirmPassword });
    setBusy(false);
    if (!r.ok) return setError(r.message);
    setError(null);
    setDone(true);
    notify.success(AUTH_MESSAGES.resetDone);
    window.history.replaceState(null, '', window.location.pathname);
  }

  if (done) {
    return (
      <div>
        <p className="form-success" role="status">
          {AUTH_MESSAGES.resetDone}
        </p>
        <button type="button" className="btn" onClick={() => $authModal.set('login')}>
          Log in
        </button>
      </div>
    );
  }
  return (
    <form onSubmit={submit} noValidate className="narrow-form">
      <div className="field">
        <label htmlFor="new-password">New password</label>
        <input id="new-password" type="password" name="password" autoComplete="new-password" />
      </div>
      <div className="field">
        <label htmlFor="confirm-new-password">Confirm new password</label>
        <input id="confirm-new-password" type="password" name="confirmPassword" autoComplete="new-password" />
      </div>
      <FormError text={error} />
      <button type="submit" className="btn" disabled={busy || !live}>
        Set new password
      </button>
    </form>
  );
}
