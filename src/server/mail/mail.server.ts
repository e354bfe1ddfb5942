import type { Config } from '../config.server';
import { logger } from '../log.server';
import { emailsFailed, emailsSent } from '../metrics.server';
import { startDevMailbox } from './dev-mailbox.server';
import type { MailPort } from './mail.port';

const log = logger('mail');

/**
 * `mail`, with every message it sends or fails to send logged (the recipient masked; never the subject or the body,
 * which may hold a name, a reset link or an address) and counted (shop_emails_sent_total, shop_emails_failed_total).
 */
export function observedMail(mail: MailPort): MailPort {
  return {
    name: mail.name,
    async send(message) {
      const started = performance.now();
      try {
        await mail.send(message);
      } catch (error) {
        emailsFailed.inc();
        log.warn({ to: message.to, adapter: mail.name, err: error }, 'e-mail not sent');
        throw error;
      }
      emailsSent.inc();
      log.info({ to: message.to, adapter: mail.name, ms: Math.round(performance.now() - started) }, 'e-mail sent');
    },
  };
}

import { createSesMail } from './ses.server';

/**
 * The mail adapter the configuration asks for: SES with its credentials, else the embedded dev mailbox (a local
 * SES-compatible server, reached through the same SES adapter as production). `devMailbox` is the mailbox's address,
 * or null with SES.
 */
export async function createMail(config: Config['mail']): Promise<{ mail: MailPort; devMailbox: string | null }> {
  if (config.kind === 'ses') {
    const { region, from, accessKeyId, secretAccessKey } = config;
    return { mail: createSesMail({ region, from, credentials: { accessKeyId, secretAccessKey } }), devMailbox: null };
  }
  const box = await startDevMailbox({ port: config.port });
  const mail = createSesMail({
    region: 'us-east-1',
    from: config.from,
    endpoint: box.endpoint,
    credentials: { accessKeyId: 'dev', secretAccessKey: 'dev' },
  });
  return { mail, devMailbox: box.endpoint };
}
