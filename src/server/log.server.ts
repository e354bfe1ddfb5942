import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, randomUUID } from 'node:crypto';
import pino from 'pino';
import pretty from 'pino-pretty';
import { logDestination } from '@/edge/switch';

/**
 * The shop's one logger: a line of JSON per request and per notable event on stdout (pino), or coloured lines for a
 * person at a terminal (stdout a TTY, or LOG_FORMAT=pretty; LOG_FORMAT=json forces JSON). LOG_LEVEL chooses the
 * least severe level written (default info). Both are also checked by loadConfig, which stops the server on a bad
 * value; here a bad value falls back to the default, so the message saying so can be logged.
 *
 * What never reaches a line, whatever a caller passes (`redact`, below): a password, a token, a cookie, an
 * authorization header, a Stripe secret or client secret, a card number, a street address; an e-mail address is
 * masked (`a***@example.com`) wherever it appears, in a field or in a message.
 */

/** Fields whose value is dropped, by name, at any depth: what they hold is secret or a shopper's address. */
const SECRET_KEYS =
  /^(password|new_?password|current_?password|token|access_?token|refresh_?token|id_?token|accesstoken|secret|client_?secret|authorization|cookie|set-cookie|api_?key|card|card_?number|number|cvc|exp_?month|exp_?year|line1|line2|street|street1|street2|street_?address|address_?line\d?)$/i;
/** Fields holding an e-mail address: kept, masked. */
const EMAIL_KEYS = /^(email|e_?mail|to|from|reply_?to|recipient)$/i;

const EMAIL = /([A-Za-z0-9._%+-])[A-Za-z0-9._%+-]*@([A-Za-z0-9.-]+\.[A-Za-z]{2,})/g;
/** Secrets recognisable by their shape, wherever they appear in text. */
const SECRET_TEXT: [RegExp, string][] = [
  [/\b(sk|rk)_(live|test)_[A-Za-z0-9]+/g, '[stripe key]'],
  [/\bwhsec_[A-Za-z0-9]+/g, '[webhook secret]'],
  [/\b(pi|seti)_[A-Za-z0-9]+_secret_[A-Za-z0-9]+/g, '[client secret]'],
  [/\bBearer\s+[A-Za-z0-9._~+/=-]+/gi, 'Bearer [token]'],
  [/([?&](token|access_token|code|key|apikey|api_key|text|email)=)[^&\s"']+/gi, '$1[redacted]'],
  // A card number: 13 to 19 digits together, or in groups of four split by spaces or dashes; not part of a longer
  // word or id (a UUID's last group is 12 digits at times, and its groups are split by dashes too).
  [/(?<![\w-])(?:\d{13,19}|\d{4}(?:[ -]\d{4}){2,3}(?:[ -]\d{1,3})?)(?![\w-])/g, '[card number]'],
];

/** `ann.lee@example.com` as `a***@example.com`: enough to tell two shoppers' lines apart by domain, not to write to. */
export function maskEmail(address: string): string {
  return address.replace(EMAIL, (_, first: string, domain: string) => `${first}***@${domain}`);
}

/** A short stable reference to an e-mail address (the same address, the same reference), for following one shopper. */
export function emailRef(address: string): string {
  return createHash('sha256').update(address.trim().toLowerCase()).digest('hex').slice(0, 12);
}

/**
 * What every pattern above needs at least one of: an `@`, `_`, `=`, "bearer", or four digits in a row. Most of a
 * line's text (a route, a method, a status) has none, and is returned as it is without running the patterns.
 */
const MIGHT_HOLD_A_SECRET = /[@_=]|bearer|\d{4}/i;

/** Text with e-mail addresses masked and recognisable secrets replaced. */
export function scrubText(text: string): string {
  if (!MIGHT_HOLD_A_SECRET.test(text)) return text;
  let out = maskEmail(text);
  for (const [pattern, replacement] of SECRET_TEXT) out = out.replace(pattern, replacement);
  return out;
}

/** Values redacted once and frozen, which every line may carry as they are (the adapters' names). */
const redacted = new WeakSet<object>();

/** A log record's fields, secrets dropped and e-mail addresses masked, to `depth` levels. */
export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubText(value);
  if (value === null || typeof value !== 'object') return value;
  if (redacted.has(value)) return value;
  if (depth > 5) return '[nested]';
  if (value instanceof Error) return redact({ type: value.name, message: value.message, stack: value.stack }, depth);
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (SECRET_KEYS.test(key)) out[key] = '[redacted]';
    else if (EMAIL_KEYS.test(key) && typeof item === 'string') out[key] = maskEmail(item);
    else out[key] = redact(item, depth + 1);
  }
  return out;
}

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LEVELS)[number];
export const isLogLevel = (value: string): value is LogLevel => (LEVELS as readonly string[]).includes(value);

/** Whether lines are written for a person (coloured, one line each) rather than as JSON. */
export function prettyOutput(env: NodeJS.ProcessEnv = process.env, tty = Boolean(process.stdout.isTTY)): boolean {
  if (env.LOG_FORMAT === 'pretty') return true;
  if (env.LOG_FORMAT === 'json') return false;
  return tty;
}

/** Where lines go: stdout, or what a test put in its place (captureLogs). */
interface Sink {
  write(line: string): void;
}
/**
 * Under the edge (the built server), its destination: the edge's lines and these, written in blocks (src/edge/log.ts).
 * Else (astro dev, a test, a script) a write per line; a person's coloured lines always so.
 */
function standardSink(): Sink {
  if (prettyOutput())
    return pretty({
      sync: true,
      colorize: Boolean(process.stdout.isTTY),
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname',
    });
  return logDestination() ?? pino.destination({ fd: 1, sync: true });
}
let standard: Sink | undefined;
// Chosen at the first line rather than as this module loads: the edge has offered its destination by then.
let sink: Sink = {
  write(line) {
    standard ??= standardSink();
    standard.write(line);
  },
};

const configuredLevel = process.env.LOG_LEVEL && isLogLevel(process.env.LOG_LEVEL) ? process.env.LOG_LEVEL : undefined;
// Under the test runner lines are written from warn up (as console.warn was), unless LOG_LEVEL says otherwise.
const defaultLevel: LogLevel = configuredLevel ?? (process.env.VITEST ? 'warn' : 'info');

export const log = pino(
  {
    level: defaultLevel,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: {
      level: (label) => ({ level: label }),
      log: (record) => {
        const out = redact(record) as Record<string, unknown>;
        const requestId = currentRequestId();
        if (requestId && out.requestId === undefined) out.requestId = requestId;
        return out;
      },
    },
    hooks: {
      // The message is text a caller wrote: masked as the fields are.
      logMethod(args, method) {
        const scrubbed = args.map((arg) => (typeof arg === 'string' ? scrubText(arg) : arg)) as typeof args;
        method.apply(this, scrubbed);
      },
    },
  },
  { write: (line: string) => sink.write(line) },
);

type Fields = Record<string, unknown>;
type LogCall = (fieldsOrMessage: Fields | string, message?: string) => void;
export type Logger = Record<'fatal' | 'error' | 'warn' | 'info' | 'debug', LogCall>;

/**
 * A part of the shop's logger that names itself on every line (`component: 'outbox'`). Not a pino child: a child
 * keeps the level it was made with, and the level set later (captureLogs) would not reach it.
 */
export function logger(component: string): Logger {
  const at =
    (level: keyof Logger): LogCall =>
    (fieldsOrMessage, message) => {
      if (typeof fieldsOrMessage === 'string') log[level]({ component }, fieldsOrMessage);
      else log[level]({ component, ...fieldsOrMessage }, message);
    };
  return { fatal: at('fatal'), error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}

/** A record a test read back from the log (captureLogs). */
export type LogRecord = { level: string; msg?: string; [key: string]: unknown };

/**
 * For tests: every line written until `restore`, as text and parsed, at `level` (default debug) and above. Lines are
 * not written to stdout meanwhile.
 */
export function captureLogs(level: LogLevel = 'debug'): { records: LogRecord[]; text(): string; restore(): void } {
  const lines: string[] = [];
  const before = { sink, level: log.level };
  sink = { write: (line) => void lines.push(line) };
  log.level = level;
  return {
    get records() {
      return lines.map((line) => JSON.parse(line) as LogRecord);
    },
    text: () => lines.join(''),
    restore() {
      sink = before.sink;
      log.level = before.level;
    },
  };
}

/** Sets where lines go (tests: to fail on an error nobody expected); returns a function that puts the previous back. */
export function replaceLogSink(next: Sink): () => void {
  const before = sink;
  sink = next;
  return () => {
    sink = before;
  };
}

// ——— Request ids ———

/**
 * A request id a client or the proxy in front may send (X-Request-Id): 8 to 64 letters, digits, dots, dashes,
 * underscores or colons, starting with a letter or digit. Anything else (too long, spaces, quotes, a CRLF) is replaced
 * by one of ours, so an id can neither forge log lines nor carry a secret into them.
 */
const REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{7,63}$/;

/** The request's id: the incoming one when it is well-formed (see REQUEST_ID), else a new UUID. */
export function requestIdFrom(incoming: string | null | undefined): string {
  return incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

const requestContext = new AsyncLocalStorage<{ requestId: string }>();

/** Runs `fn` as part of the request `requestId`: lines it logs and outbox jobs it queues carry the id. */
export function withRequestId<T>(requestId: string, fn: () => T): T {
  return requestContext.run({ requestId }, fn);
}

/** Runs `fn` outside any request (work a request only set going, such as the outbox worker's runs). */
export function outsideRequest<T>(fn: () => T): T {
  return requestContext.exit(fn);
}

/** The id of the request the current code runs for, if any. */
export function currentRequestId(): string | undefined {
  return requestContext.getStore()?.requestId;
}

// ——— Adapters ———

let adapters: Record<string, string> = {};

/** Names the adapters the shop runs with (set once at start-up), for the request lines. */
export function setAdapters(names: Record<string, string>): void {
  // Redacted once here rather than on every request line.
  adapters = Object.freeze(redact({ ...names }) as Record<string, string>);
  redacted.add(adapters);
}

/** The adapters the shop runs with ({} before start-up). */
export function adapterNames(): Record<string, string> {
  return adapters;
}
