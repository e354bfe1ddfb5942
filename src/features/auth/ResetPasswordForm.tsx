import { type SubmitEvent, useState } from 'react';
import FormError from '@/components/FormError';
import { api } from '@/lib/api';
import { AUTH_MESSAGES, newPasswordProblem } from '@/lib/auth.rules';
import { notify } from '../toasts/toast.store';
import { $authModal } from './auth.store';

/** Sets a new password with the token from the e-mailed link (read from the page's address). */
export default function ResetPasswordForm() {
  const [password, setPassword] = useState('');
  const [confirmPassword, setConfirmPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);

  async function submit(e: SubmitEvent) {
    e.preventDefault();
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
        <input
          id="new-password"
          type="password"
          autoComplete="new-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor="confirm-new-password">Confirm new password</label>
        <input
          id="confirm-new-password"
          type="password"
          autoComplete="new-password"
          value={confirmPassword}
          onChange={(e) => setConfirmPassword(e.target.value)}
        />
      </div>
      <FormError text={error} />
      <button type="submit" className="btn" disabled={busy}>
        Set new password
      </button>
    </form>
  );
}
