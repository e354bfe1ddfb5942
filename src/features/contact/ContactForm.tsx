import { type SubmitEvent, useState } from 'react';
import { api, failureText } from '@/lib/api';
import { CONTACT_MESSAGES } from './contact.rules';

/** The contact form: every field is required. */
export default function ContactForm() {
  const [fields, setFields] = useState({ name: '', email: '', message: '' });
  const [status, setStatus] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);
  const [sending, setSending] = useState(false);

  async function submit(e: SubmitEvent) {
    e.preventDefault();
    if (!fields.name.trim() || !fields.email.trim() || !fields.message.trim()) {
      setStatus({ kind: 'error', text: CONTACT_MESSAGES.fillAll });
      return;
    }
    setSending(true);
    const r = await api<{ message: string }>('/api/contact', fields);
    setSending(false);
    if (!r.ok) {
      // A refused field or a rate limit is shown in the server's words; anything else gets the spec's general failure.
      setStatus({ kind: 'error', text: failureText(r, CONTACT_MESSAGES.failed) });
      return;
    }
    setFields({ name: '', email: '', message: '' });
    setStatus({ kind: 'success', text: CONTACT_MESSAGES.sent });
  }

  const set = (key: keyof typeof fields) => (e: { target: { value: string } }) =>
    setFields((f) => ({ ...f, [key]: e.target.value }));

  return (
    <form className="contact-form" onSubmit={submit} noValidate>
      <div className="field">
        <label htmlFor="contact-name">Name</label>
        <input id="contact-name" autoComplete="name" value={fields.name} onChange={set('name')} />
      </div>
      <div className="field">
        <label htmlFor="contact-email">Email</label>
        <input id="contact-email" type="email" autoComplete="email" value={fields.email} onChange={set('email')} />
      </div>
      <div className="field">
        <label htmlFor="contact-message">Message</label>
        <textarea id="contact-message" rows={6} value={fields.message} onChange={set('message')} />
      </div>
      {status && (
        <p
          className={status.kind === 'error' ? 'form-error' : 'form-success'}
          role={status.kind === 'error' ? 'alert' : 'status'}
        >
          {status.text}
        </p>
      )}
      <button type="submit" className="btn" disabled={sending}>
        {sending ? 'Sending…' : 'Send Message'}
      </button>
    </form>
  );
}
