import type { MailMessage, MailPort } from './mail.port';

export interface SesMailOptions {
  region: string;
  /** The sender, e.g. `Aurelia <hello@aurelia-care.com>`; must be a verified SES identity in production. */
  from: string;
  /** Another SES-compatible endpoint: the dev mailbox in dev and tests. Unset in production. */
  endpoint?: string;
  /** Unset: the SDK's default chain (environment, instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Milliseconds to connect, and for the whole request; the defaults suit SES. */
  timeouts?: { connectMs?: number; requestMs?: number };
}

// A dead or unreachable endpoint must fail within seconds so the outbox records the failure and moves on,
// instead of holding the worker for minutes on the OS's TCP timeout.
const CONNECTION_TIMEOUT_MS = 3_000;
const REQUEST_TIMEOUT_MS = 15_000;

/** The message of an SDK or network error; Node reports a refused dual-stack connect as an AggregateError with no message. */
function errorText(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) {
    return [...new Set(error.errors.map(errorText))].join('; ');
  }
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    const text = error.message || code || error.name;
    return error.name && error.name !== 'Error' && !text.startsWith(error.name) ? `${error.name}: ${text}` : text;
  }
  return String(error);
}

/** The e-mail port on AWS SES v2 `SendEmail` (simple content), or on any SES-compatible endpoint such as the dev mailbox. */
export function createSesMail({ region, from, endpoint, credentials, timeouts = {} }: SesMailOptions): MailPort {
  // The SDK (about 5 MB of heap) is loaded with the first e-mail, not with the server.
  let sdk: Promise<typeof import('@aws-sdk/client-sesv2')> | undefined;
  let client: import('@aws-sdk/client-sesv2').SESv2Client | undefined;
  const connect = async () => {
    sdk ??= import('@aws-sdk/client-sesv2');
    const { SESv2Client, SendEmailCommand } = await sdk;
    client ??= new SESv2Client({
      region,
      ...(endpoint ? { endpoint } : {}),
      ...(credentials ? { credentials } : {}),
      // The outbox retries with backoff over hours; the SDK only needs to ride out a momentary blip.
      maxAttempts: 2,
      requestHandler: {
        connectionTimeout: timeouts.connectMs ?? CONNECTION_TIMEOUT_MS,
        requestTimeout: timeouts.requestMs ?? REQUEST_TIMEOUT_MS,
        // Without this the SDK only logs a warning when the request timeout passes and keeps waiting.
        throwOnRequestTimeout: true,
      },
    });
    return { client, SendEmailCommand };
  };
  const where = endpoint ?? `SES ${region}`;

  return {
    name: endpoint ? `SES API at ${endpoint}` : `AWS SES (${region})`,
    async send(message: MailMessage) {
      const utf8 = (data: string) => ({ Data: data, Charset: 'UTF-8' });
      try {
        const { client, SendEmailCommand } = await connect();
        await client.send(
          new SendEmailCommand({
            FromEmailAddress: from,
            Destination: { ToAddresses: [message.to] },
            Content: {
              Simple: {
                Subject: utf8(message.subject),
                Body: { Text: utf8(message.text), Html: utf8(message.html) },
              },
            },
          }),
        );
      } catch (error) {
        throw new Error(`E-mail not sent through ${where}: ${errorText(error)}`, { cause: error });
      }
    },
  };
}
