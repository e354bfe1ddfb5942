import { useStore } from '@nanostores/react';
import { type SubmitEvent, useEffect, useId, useRef, useState } from 'react';
import FormError from '@/components/FormError';
import { api } from '@/lib/api';
import { AUTH_MESSAGES, loginProblem, signUpProblem } from '@/lib/auth.rules';
import { notify } from '../toasts/toast.store';
import type { UserAnswer } from './auth';
import { $authModal, $user } from './auth.store';

/** Product spec: a login failure toast shows for 1 s. */
const LOGIN_ERROR_TOAST_MS = 1000;

type Pane = 'login' | 'signup' | 'forgot';

/** The login / sign-up / forgotten-password dialog. A native <dialog>: focus stays inside, Escape closes it. */
export default function AuthModal() {
  const pane = useStore($authModal);
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (pane === 'closed' && dialog.open) dialog.close();
    if (pane !== 'closed' && !dialog.open) dialog.showModal();
  }, [pane]);

  const titles: Record<Pane, string> = { login: 'Welcome back', signup: 'Create your account', forgot: 'Reset your password' };
  const current: Pane = pane === 'closed' ? 'login' : pane;

  return (
    <dialog ref={ref} className="auth-dialog" aria-labelledby={titleId} onClose={() => $authModal.set('closed')}>
      <div className="auth-head">
        <h2 id={titleId}>{titles[current]}</h2>
        <button type="button" className="auth-close" onClick={() => $authModal.set('closed')}>
          <span aria-hidden="true">×</span>
          <span className="visually-hidden">Close</span>
        </button>
      </div>
      {current !== 'forgot' && (
        <div className="auth-tabs">
          <button type="button" aria-pressed={current === 'login'} onClick={() => $authModal.set('login')}>
            Log in
          </button>
          <button type="button" aria-pressed={current === 'signup'} onClick={() => $authModal.set('signup')}>
            Sign up
          </button>
        </div>
      )}
      {current === 'login' && <LoginForm />}
      {current === 'signup' && <SignUpForm />}
      {current === 'forgot' && <ForgotForm />}
    </dialog>
  );
}

function useForm<T extends Record<string, string>>(initial: T) {
  const [fields, setFields] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const bind = (key: keyof T & string) => ({
    id: `auth-${key}`,
    name: key,
    value: fields[key],
    onChange: (e: { target: { value: string } }) => setFields((f) => ({ ...f, [key]: e.target.value })),
  });
  return { fields, error, setError, busy, setBusy, bind };
}

/** What login answers an account whose e-mail is not confirmed yet (both accounts adapters say it so). */
const EMAIL_NOT_CONFIRMED = 'Email not confirmed';

function LoginForm() {
  const { fields, error, setError, busy, setBusy, bind } = useForm({ email: '', password: '' });
  // After 'Email not confirmed': offer a new link, then say what the server answered (the same for any address).
  const [resend, setResend] = useState<'offer' | 'sending' | string | null>(null);
  async function submit(e: SubmitEvent) {
    e.preventDefault();
    const problem = loginProblem(fields.email, fields.password);
    if (problem) return setError(problem);
    setError(null);
    setResend(null);
    setBusy(true);
    const r = await api<UserAnswer>('/api/auth/login', fields);
    setBusy(false);
    if (!r.ok) {
      setError(r.message);
      if (r.message === EMAIL_NOT_CONFIRMED) setResend('offer');
      notify.error(r.message, { durationMs: LOGIN_ERROR_TOAST_MS });
      return;
    }
    $user.set(r.data.user);
    $authModal.set('closed');
    notify.success(AUTH_MESSAGES.welcome);
  }
  async function sendAgain() {
    setResend('sending');
    const r = await api<{ message: string }>('/api/auth/resend-confirmation', { email: fields.email });
    setResend(r.ok ? r.data.message : 'offer');
    if (!r.ok) setError(r.message);
  }
  return (
    <form onSubmit={submit} noValidate>
      <div className="field">
        <label htmlFor="auth-email">Email</label>
        <input {...bind('email')} type="email" autoComplete="email" required />
      </div>
      <div className="field">
        <label htmlFor="auth-password">Password</label>
        <input {...bind('password')} type="password" autoComplete="current-password" required />
      </div>
      <FormError text={error} />
      {resend === 'offer' || resend === 'sending' ? (
        <button type="button" className="link-button" disabled={resend === 'sending'} onClick={() => void sendAgain()}>
          Send the confirmation e-mail again
        </button>
      ) : (
        resend && (
          <p className="form-success" role="status">
            {resend}
          </p>
        )
      )}
      <button type="submit" className="btn auth-submit" disabled={busy}>
        {busy ? 'Logging in…' : 'Log in'}
      </button>
      <button type="button" className="link-button" onClick={() => $authModal.set('forgot')}>
        Forgot your password?
      </button>
    </form>
  );
}

function SignUpForm() {
  const { fields, error, setError, busy, setBusy, bind } = useForm({
    firstName: '',
    lastName: '',
    email: '',
    password: '',
    confirmPassword: '',
  });
  async function submit(e: SubmitEvent) {
    e.preventDefault();
    const problem = signUpProblem(fields);
    if (problem) return setError(problem);
    setError(null);
    setBusy(true);
    const r = await api<{ message: string }>('/api/auth/signup', fields);
    setBusy(false);
    if (!r.ok) {
      setError(r.message);
      notify.error(r.message);
      return;
    }
    $authModal.set('closed');
    notify.success(AUTH_MESSAGES.signedUp, { durationMs: 6000 });
  }
  return (
    <form onSubmit={submit} noValidate>
      <div className="field-row">
        <div className="field">
          <label htmlFor="auth-firstName">First name</label>
          <input {...bind('firstName')} autoComplete="given-name" required />
        </div>
        <div className="field">
          <label htmlFor="auth-lastName">Last name</label>
          <input {...bind('lastName')} autoComplete="family-name" required />
        </div>
      </div>
      <div className="field">
        <label htmlFor="auth-email">Email</label>
        <input {...bind('email')} type="email" autoComplete="email" required />
      </div>
      <div className="field">
        <label htmlFor="auth-password">Password</label>
        <input {...bind('password')} type="password" autoComplete="new-password" required />
      </div>
      <div className="field">
        <label htmlFor="auth-confirmPassword">Confirm password</label>
        <input {...bind('confirmPassword')} type="password" autoComplete="new-password" required />
      </div>
      <FormError text={error} />
      <button type="submit" className="btn auth-submit" disabled={busy}>
        {busy ? 'Creating account…' : 'Create account'}
      </button>
    </form>
  );
}

function ForgotForm() {
  const { fields, error, setError, busy, setBusy, bind } = useForm({ email: '' });
  const [sent, setSent] = useState<string | null>(null);
  async function submit(e: SubmitEvent) {
    e.preventDefault();
    setBusy(true);
    const r = await api<{ message: string }>('/api/auth/reset-request', fields);
    setBusy(false);
    if (!r.ok) return setError(r.message);
    setError(null);
    setSent(r.data.message);
  }
  return (
    <form onSubmit={submit} noValidate>
      <p>Enter the e-mail address of your account and we will send you a link to choose a new password.</p>
      <div className="field">
        <label htmlFor="auth-email">Email</label>
        <input {...bind('email')} type="email" autoComplete="email" required />
      </div>
      <FormError text={error} />
      {sent && (
        <p className="form-success" role="status">
          {sent}
        </p>
      )}
      <button type="submit" className="btn auth-submit" disabled={busy}>
        Send reset link
      </button>
      <button type="button" className="link-button" onClick={() => $authModal.set('login')}>
        Back to log in
      </button>
    </form>
  );
}
