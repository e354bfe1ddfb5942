import { type SubmitEvent, useState } from 'react';
import FormError from '@/components/FormError';
import { api } from '@/lib/api';
import { AUTH_MESSAGES } from '@/lib/auth.rules';
import { useLive } from '@/lib/live';
import { notify } from '../toasts/toast.store';
import type { UserAnswer } from './auth';
import { $authModal, $user } from './auth.store';

/**
 * Confirms a new account with the token from the e-mailed link (read from the page's address) and the password chosen
 * at sign-up, which also signs the shopper in. The link alone confirms nothing: someone else may have signed up with
 * this address, and only the password its owner chose may open the account.
 *
 * As ResetPasswordForm: its buttons stay disabled until its code is live (it hydrates after the first paint), and the
 * password is read when the form is sent, so one typed or filled in before then is the one sent.
 */
export default function ConfirmEmailForm() {
  const live = useLive();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);

  async function submit(e: SubmitEvent<HTMLFormElement>) {
    e.preventDefault();
    const password = String(new FormData(e.currentTarget).get('password') ?? '');
    const token = new URLSearchParams(window.location.search).get('token') ?? '';
    if (!token) return setError(AUTH_MESSAGES.invalidToken);
    if (password === '') return setError('Please enter your password.');
    setBusy(true);
    const r = await api<UserAnswer>('/api/auth/verify', { token, password });
    setBusy(false);
    if (!r.ok) return setError(r.message);
    setError(null);
    setDone(true);
    $user.set(r.data.user);
    notify.success(AUTH_MESSAGES.verified);
    window.history.replaceState(null, '', window.location.pathname);
  }

  if (done) {
    return (
      <div>
        <p className="form-success" role="status">
          {AUTH_MESSAGES.verified}
        </p>
        <a className="btn" href="/">
          Start shopping
        </a>
      </div>
    );
  }
  return (
    <form onSubmit={submit} noValidate className="narrow-form">
      <div className="field">
        <label htmlFor="confirm-password">Password</label>
        <input id="confirm-password" type="password" name="password" autoComplete="current-password" />
      </div>
      <FormError text={error} />
      <button type="submit" className="btn" disabled={busy || !live}>
        Confirm my account
      </button>
      <p className="form-note">
        Did not sign up, or forgot the password?{' '}
        <button type="button" className="link-button" disabled={!live} onClick={() => $authModal.set('forgot')}>
          Reset your password
        </button>
      </p>
    </form>
  );
}
