import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { z } from 'astro/zod';

/** A running dev mailbox: point the SES adapter at `endpoint`; open it in a browser to read what was sent. */
export interface DevMailbox {
  endpoint: string;
  stop(): Promise<void>;
}

/** A message the dev mailbox received, in the app's terms. */
export interface DevMail {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  at: Date;
}

/** The mailbox page's title and heading: on the embedded defaults a new shopper confirms their account from it. */
export const DEV_MAILBOX_TITLE = 'Aurelia demo mailbox';

const DEV_MAILBOX_LEAD =
  'This demo shop sends no real e-mail: everything it sends arrives here instead. Find “Confirm your Aurelia account”, ' +
  'press Toggle HTML view and follow its link to confirm a new account; password resets and order e-mails land here too.';

/**
 * The package's viewer page (it lists the mail from GET /store) with the shop's title, heading and a line saying what
 * the page is for. Throws if the page no longer has the parts it replaces: a package upgrade must not quietly bring
 * back a developer tool's title.
 */
export function retitleMailboxPage(html: string): string {
  const parts = [
    [/<title>[^<]*<\/title>/, `<title>${DEV_MAILBOX_TITLE}</title>`],
    [/<h1>[^<]*<\/h1>/, `<h1>${DEV_MAILBOX_TITLE}</h1>`],
    [/<div id="content"><\/div>/, `<p>${DEV_MAILBOX_LEAD}</p>\n    <div id="content"></div>`],
  ] as const;
  return parts.reduce((page, [pattern, replacement]) => {
    if (!pattern.test(page)) throw new Error(`The dev mailbox page has no ${pattern.source}: update retitleMailboxPage`);
    return page.replace(pattern, replacement);
  }, html);
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** Serves `page` at GET / and hands every other request to the package's own handlers. */
function serveOwnPage(server: Server, page: string): void {
  const handlers = server.listeners('request') as Handler[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'GET' && new URL(req.url ?? '/', 'http://mailbox').pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(page);
      return;
    }
    for (const handler of handlers) handler.call(server, req, res);
  });
}

type StartServer = (config?: { host?: string; port?: number }) => Promise<Server>;

/** aws-ses-v2-local is CommonJS: Node's ESM loader hands back `module.exports` as `default`, a bundler may unwrap it once more. */
async function loadServer(): Promise<StartServer> {
  // Imported on demand, so a production server on AWS SES never loads the mailbox (and its Express).
  let candidate: unknown = await import('aws-ses-v2-local');
  for (let depth = 0; depth < 3 && typeof candidate !== 'function'; depth++) {
    candidate = typeof candidate === 'object' && candidate !== null && 'default' in candidate ? candidate.default : undefined;
  }
  if (typeof candidate !== 'function')
    throw new Error('aws-ses-v2-local does not export its server function; is the package installed?');
  return candidate as StartServer;
}

function urlHost(host: string): string {
  // A wildcard address is where the server listens, not where a client can reach it.
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

async function answers(endpoint: string): Promise<boolean> {
  try {
    const response = await fetch(`${endpoint}/health-check`, { signal: AbortSignal.timeout(2_000) });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

/**
 * Starts the embedded e-mail default, aws-ses-v2-local, in this process on host:port (port 0 picks a free one), and
 * resolves once it answers. When the port is already held by a dev mailbox (a dev server restarting in the same
 * process, or a second one), that mailbox is reused and `stop` leaves it running.
 */
export async function startDevMailbox({ host = '127.0.0.1', port }: { host?: string; port: number }): Promise<DevMailbox> {
  const start = await loadServer();
  const server = await start({ host, port });

  if (!server.listening) {
    // Express hands the listen error to the package's callback, which resolves with a server that never listened.
    const existing = `http://${urlHost(host)}:${port}`;
    if (port !== 0 && (await answers(existing))) return { endpoint: existing, stop: async () => {} };
    throw new Error(
      `The dev mailbox could not listen on ${host}:${port} (in use by another program, or not allowed). Set DEV_MAILBOX_PORT to a free port.`,
    );
  }

  const address = server.address();
  const boundPort = typeof address === 'object' && address !== null ? address.port : port;
  const endpoint = `http://${urlHost(host)}:${boundPort}`;

  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= new Promise<void>((resolve, reject) => {
      server.close((error) => (error ? reject(error) : resolve()));
      // The SDK keeps connections alive; without this, close waits for them to time out.
      server.closeAllConnections();
    });
    return stopped;
  };

  if (!(await answers(endpoint))) {
    await stop();
    throw new Error(`The dev mailbox started on ${endpoint} but does not answer ${endpoint}/health-check`);
  }
  try {
    const original = await fetch(`${endpoint}/`, { signal: AbortSignal.timeout(2_000) });
    serveOwnPage(server, retitleMailboxPage(await original.text()));
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint, stop };
}

const storeSchema = z.object({
  emails: z.array(
    z.object({
      from: z.string(),
      destination: z.object({ to: z.array(z.string()) }),
      subject: z.string(),
      body: z.object({ text: z.string().optional(), html: z.string().optional() }),
      // Seconds since the epoch.
      at: z.number(),
    }),
  ),
});

/** Every message the dev mailbox at `endpoint` has received (GET /store), oldest first: how tests read mail back. */
export async function readDevMailbox(endpoint: string): Promise<DevMail[]> {
  const response = await fetch(`${endpoint}/store`, { signal: AbortSignal.timeout(5_000) });
  if (!response.ok) throw new Error(`The dev mailbox at ${endpoint} answered GET /store with HTTP ${response.status}`);
  const parsed = storeSchema.safeParse(await response.json());
  if (!parsed.success)
    throw new Error(`The dev mailbox at ${endpoint} returned a store this code does not understand: ${parsed.error.message}`);
  return parsed.data.emails.map((mail) => ({
    from: mail.from,
    to: mail.destination.to.join(', '),
    subject: mail.subject,
    text: mail.body.text ?? '',
    html: mail.body.html ?? '',
    at: new Date(mail.at * 1000),
  }));
}
