import { escapeHtml } from '../mail/escape.server';
import type { MailMessage } from '../mail/mail.port';

function message(to: string, subject: string, lines: string[], link: { href: string; label: string }): MailMessage {
  const text = `${lines.join('\n\n')}\n\n${link.label}: ${link.href}\n\nAurelia`;
  const html = `<!doctype html><html><body style="font-family:Georgia,serif;color:#2b2420;max-width:560px">
${lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('\n')}
<p><a href="${escapeHtml(link.href)}" style="display:inline-block;background:#2b2420;color:#fff;padding:12px 20px;border-radius:999px;text-decoration:none">${escapeHtml(link.label)}</a></p>
<p style="color:#5f554e;font-size:13px">If the button does not work, paste this address into your browser:<br>${escapeHtml(link.href)}</p>
<p>Aurelia</p></body></html>`;
  return { to, subject, text, html };
}

// Account e-mails go to whatever address a stranger types, so they carry no text the sender typed (not even a first
// name, which could carry a link or a lure): only the shop's own words and links to the shop.

/** The link that confirms a new account's e-mail address. */
export function verificationEmail(to: string, href: string): MailMessage {
  return message(
    to,
    'Confirm your Aurelia account',
    [
      'Hello,',
      'Thank you for creating an Aurelia account. Please confirm your e-mail address with the password you chose to finish.',
      'The link works for 24 hours. If you did not create an account, ignore this e-mail: without this link and that password, no one can use the account.',
    ],
    { href, label: 'Confirm my e-mail' },
  );
}

/**
 * Sent instead of a second account when someone signs up with an e-mail that already has one. It carries no reset
 * link: issuing one would void the owner's own newest reset link each time a stranger signs up with their address.
 */
export function accountExistsEmail(to: string, shopHref: string): MailMessage {
  return message(
    to,
    'You already have an Aurelia account',
    [
      'Someone (hopefully you) tried to create an Aurelia account with this e-mail address, which already has one.',
      "If you forgot your password, choose Log in on the shop, then 'Forgot your password?'. If it was not you, there is nothing to do.",
    ],
    { href: shopHref, label: 'Go to Aurelia' },
  );
}

/** The single-use link that sets a new password. */
export function resetEmail(to: string, href: string): MailMessage {
  return message(
    to,
    'Reset your Aurelia password',
    [
      'We received a request to reset the password of your Aurelia account.',
      'The link works once, for one hour. If you did not ask for it, you can ignore this e-mail.',
    ],
    { href, label: 'Choose a new password' },
  );
}
