import { randomUUID } from 'node:crypto';
import { createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEV_MAILBOX_TITLE,
  type DevMailbox,
  readDevMailbox,
  retitleMailboxPage,
  startDevMailbox,
} from '@/server/mail/dev-mailbox.server';
import type { MailMessage } from '@/server/mail/mail.port';
import { createSesMail } from '@/server/mail/ses.server';

const from = 'Aurelia <hello@aurelia-care.com>';
const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };

/** A port nothing listens on: taken from the OS, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

const message = (subject: string): MailMessage => ({
  to: 'maya@example.com',
  subject,
  text: 'Thank you for your order.\nTotal: €54.44',
  html: '<p>Thank you for your order.</p><p>Total: <strong>€54.44</strong></p>',
});

let box: DevMailbox;
beforeAll(async () => {
  box = await startDevMailbox({ port: 0 });
});
afterAll(() => box?.stop());

describe('SES v2 adapter against aws-ses-v2-local', () => {
  it('sends a message the mailbox stores with its to, subject, text and html', async () => {
    const mail = createSesMail({ region: 'us-east-1', from, endpoint: box.endpoint, credentials });
    const subject = `Your Aurelia order ${randomUUID()} — confirmed`;
    const sentAt = Math.floor(Date.now() / 1000) * 1000;

    await mail.send(message(subject));

    const received = (await readDevMailbox(box.endpoint)).filter((m) => m.subject === subject);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ ...message(subject), from });
    expect(received[0]?.at.getTime()).toBeGreaterThanOrEqual(sentAt);
  });

  it('rejects quickly with a clear error when the endpoint is down', async () => {
    const endpoint = `http://127.0.0.1:${await closedPort()}`;
    const mail = createSesMail({ region: 'us-east-1', from, endpoint, credentials });
    const started = Date.now();

    const error = await mail.send(message('Never delivered')).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(new RegExp(`^E-mail not sent through ${endpoint}: .*ECONNREFUSED`));
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('gives up on an endpoint that accepts the connection but never answers', async () => {
    // The SDK only warns on a request timeout unless told to throw: this proves the adapter does.
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    if (typeof address !== 'object' || address === null) throw new Error('no port');
    try {
      const endpoint = `http://127.0.0.1:${address.port}`;
      const mail = createSesMail({ region: 'us-east-1', from, endpoint, credentials, timeouts: { requestMs: 300 } });
      const started = Date.now();
      await expect(mail.send(message('Stuck'))).rejects.toThrow(/^E-mail not sent through .*(timed? ?out|Timeout)/i);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});

describe('the dev mailbox page', () => {
  it('is the shop’s demo mailbox to a shopper, not a developer tool, and still lists what was sent', async () => {
    const response = await fetch(`${box.endpoint}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await response.text();
    expect(DEV_MAILBOX_TITLE).toBe('Aurelia demo mailbox');
    expect(page).toContain(`<title>${DEV_MAILBOX_TITLE}</title>`);
    expect(page).toContain(`<h1>${DEV_MAILBOX_TITLE}</h1>`);
    expect(page).toMatch(/to confirm a new account/);
    expect(page).not.toMatch(/<title>[^<]*aws-ses|<h1>[^<]*aws-ses/i);
    // The package's own viewer, which lists the mail from GET /store, is what the page still runs.
    expect(page).toContain('fetch(`/store?since=');
  });

  it('refuses to start with a page it cannot retitle (a package upgrade must not bring the old title back)', () => {
    expect(() => retitleMailboxPage('<html><body>mail</body></html>')).toThrow(/update retitleMailboxPage/);
  });
});
