import { useStore } from '@nanostores/react';
import { type SubmitEvent, useId, useState } from 'react';
import { $user } from '../auth/auth.store';
import { notify } from '../toasts/toast.store';
import { newsletterProblem } from './newsletter';

/** The footer's newsletter sign-up; subscribing needs an account and that account's e-mail. */
export default function NewsletterForm() {
  const user = useStore($user);
  const [email, setEmail] = useState('');
  const id = useId();

  function submit(e: SubmitEvent) {
    e.preventDefault();
    const problem = newsletterProblem(email, user?.email ?? null);
    if (problem) {
      notify.error(problem.title, problem.description ? { description: problem.description } : undefined);
    }
  }

  return (
    <form className="newsletter" onSubmit={submit} noValidate>
      <label htmlFor={id}>Join our newsletter for new launches and routines</label>
      <div className="newsletter-row">
        <input
          id={id}
          type="email"
          autoComplete="email"
          placeholder="you@example.com"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
        <button type="submit" className="btn">
          Subscribe
        </button>
      </div>
    </form>
  );
}
