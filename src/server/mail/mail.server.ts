import type { Config } from '../config.server';
import { startDevMailbox } from './dev-mailbox.server';
import type { MailPort } from './mail.port';
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
