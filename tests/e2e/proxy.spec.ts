// The shop behind nginx, configured as docs/operating.md's "Deploying on a server" says: the nginx block is read from
// that page itself, and only its addresses and certificate are replaced (a free port on 127.0.0.1, a certificate made
// here), so what the docs tell an owner is what runs. nginx comes from Debian's package (.ci/run installs it).
// Checked through it: the shop sees the client's address, not the proxy's, and not one a client writes itself (rate
// limits count it); links in e-mails and the Origin check use the public https origin (SITE_URL); the shop's brotli
// and gzip pass through with Vary; HTTP is redirected to HTTPS.
// On a machine without nginx or openssl (a fresh one with only Node and npm), the test is skipped and says why;
// `.ci/run` installs both and sets REQUIRE_SYSTEM_PROGRAMS, under which a missing one fails the test instead.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts } from '../../scripts/free-port.mjs';
import { SERVER_NODE_FLAGS } from '../../scripts/server-flags.mjs';
import { expect, test } from './fixtures';

/** Whether `program` is an executable on the PATH, as spawn would find it. */
function onPath(program: string): boolean {
  return (process.env.PATH ?? '').split(':').some((dir) => {
    try {
      accessSync(join(dir, program), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The nginx block of docs/operating.md, with one replacement for each of `replacements`' keys (each must be there). */
function documentedNginx(replacements: [string, string][]): string {
  const block = /```nginx\n([\s\S]*?)```/.exec(readFileSync('docs/operating.md', 'utf8'))?.[1];
  if (!block) throw new Error('docs/operating.md has no nginx block');
  return replacements.reduce((config, [from, to]) => {
    if (!config.includes(from)) throw new Error(`The nginx block of docs/operating.md no longer has ${JSON.stringify(from)}`);
    return config.split(from).join(to);
  }, block);
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A request through nginx over TLS (its certificate is this test's own), from the local address `from`. */
function through(
  port: number,
  path: string,
  {
    method = 'GET',
    headers = {},
    body,
    from = '127.0.0.1',
  }: { method?: string; headers?: Record<string, string>; body?: unknown; from?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        servername: 'localhost',
        rejectUnauthorized: false,
        localAddress: from,
        agent: false,
        headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

test('the shop behind nginx as docs/operating.md sets it up', async () => {
  const missing = ['nginx', 'openssl'].filter((program) => !onPath(program));
  if (missing.length > 0 && !process.env.REQUIRE_SYSTEM_PROGRAMS) {
    const reason = `skipped: needs ${missing.join(' and ')} from the system's packages (sudo apt-get install nginx openssl)`;
    console.log(`the shop behind nginx: ${reason}`);
    test.skip(true, reason);
  }
  test.setTimeout(180_000);
  const dir = mkdtempSync(join(tmpdir(), 'aurelia-proxy-'));
  const [shopPort, mailboxPort, httpsPort, httpPort] = (await freePorts(4)) as [number, number, number, number];
  const publicOrigin = `https://localhost:${httpsPort}`;
  let shop: ChildProcess | undefined;
  let nginx: ChildProcess | undefined;
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'pipe' },
    );
    const site = documentedNginx([
      ['server 127.0.0.1:4321;', `server 127.0.0.1:${shopPort};`],
      ['    listen [::]:80;\n', ''],
      ['    listen [::]:443 ssl http2;\n', ''],
      ['listen 80;', `listen 127.0.0.1:${httpPort};`],
      ['listen 443 ssl http2;', `listen 127.0.0.1:${httpsPort} ssl http2;`],
      ['server_name shop.example.com;', 'server_name localhost;'],
      ['return 301 https://shop.example.com$request_uri;', `return 301 ${publicOrigin}$request_uri;`],
      ['/etc/letsencrypt/live/shop.example.com/fullchain.pem', join(dir, 'cert.pem')],
      ['/etc/letsencrypt/live/shop.example.com/privkey.pem', join(dir, 'key.pem')],
      // Test only: nginx reaches the shop from 127.0.0.2, so the shop can tell nginx's address from the client's.
      ['proxy_pass http://aurelia;', 'proxy_pass http://aurelia;\n        proxy_bind 127.0.0.2;'],
    ]);
    mkdirSync(join(dir, 'nginx'));
    writeFileSync(
      join(dir, 'nginx.conf'),
      `${process.getuid?.() === 0 ? 'user root;\n' : ''}daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/nginx-error.log warn;
events { worker_connections 256; }
http {
    access_log off;
    client_body_temp_path ${dir}/nginx/body;
    proxy_temp_path ${dir}/nginx/proxy;
    fastcgi_temp_path ${dir}/nginx/fastcgi;
    uwsgi_temp_path ${dir}/nginx/uwsgi;
    scgi_temp_path ${dir}/nginx/scgi;
${site}
}
`,
    );
    nginx = spawn('nginx', ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'nginx-error.log')], { stdio: 'pipe' });
    let nginxOutput = '';
    nginx.stderr?.on('data', (chunk: Buffer) => (nginxOutput += chunk));

    shop = spawn(process.execPath, [...SERVER_NODE_FLAGS, 'scripts/serve.mjs'], {
      env: {
        PATH: process.env.PATH ?? '',
        HOST: '127.0.0.1',
        PORT: String(shopPort),
        PGLITE_DIR: join(dir, 'pglite'),
        DEV_MAILBOX_PORT: String(mailboxPort),
        SITE_URL: publicOrigin,
        TRUST_PROXY_HOPS: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    shop.stdout?.on('data', (chunk: Buffer) => (output += chunk));
    shop.stderr?.on('data', (chunk: Buffer) => (output += chunk));
    for (const deadline = Date.now() + 120_000; ; await sleep(200)) {
      if (shop.exitCode !== null) throw new Error(`The shop exited:\n${output}`);
      if (nginx.exitCode !== null) throw new Error(`nginx exited:\n${nginxOutput}`);
      if ((await through(httpsPort, '/api/health').catch(() => null))?.status === 200) break;
      if (Date.now() > deadline) throw new Error(`No answer through nginx:\n${output}\n${nginxOutput}`);
    }

    // The client's address: nginx's X-Forwarded-For entry, not the connection's (127.0.0.2) nor one the client wrote.
    const contact = (from: string, spoofed: string) =>
      through(httpsPort, '/api/contact', {
        method: 'POST',
        from,
        headers: { origin: publicOrigin, 'x-forwarded-for': spoofed },
        body: { name: 'Ann', email: 'ann@example.com', message: 'Hello through the proxy' },
      });
    for (let i = 0; i < 5; i++) expect((await contact('127.0.0.3', `198.51.100.${i}`)).status).toBe(201);
    expect((await contact('127.0.0.3', '198.51.100.99')).status).toBe(429);
    expect((await contact('127.0.0.4', '198.51.100.0')).status).toBe(201);

    // The public origin: the Origin check takes it (and refuses the server's own address), e-mails link to it.
    const email = `proxy.${Date.now()}@example.com`;
    const signup = {
      firstName: 'Pia',
      lastName: 'Proxy',
      email,
      password: 'lavender-fields-7',
      confirmPassword: 'lavender-fields-7',
    };
    const internal = `http://127.0.0.1:${shopPort}`;
    expect(
      (await through(httpsPort, '/api/auth/signup', { method: 'POST', headers: { origin: internal }, body: signup })).status,
    ).toBe(403);
    expect(
      (await through(httpsPort, '/api/auth/signup', { method: 'POST', headers: { origin: publicOrigin }, body: signup })).status,
    ).toBe(200);
    let text = '';
    for (let i = 0; i < 100 && !text; i++, await sleep(100)) {
      const store = (await (await fetch(`http://127.0.0.1:${mailboxPort}/store`)).json()) as {
        emails: { destination: { to: string[] }; body?: { text?: string } }[];
      };
      text = store.emails.find((m) => m.destination.to.includes(email))?.body?.text ?? '';
    }
    expect(text).toContain(`${publicOrigin}/`);
    expect(text).not.toContain(internal);
    const home = await through(httpsPort, '/');
    expect(home.headers['strict-transport-security']).toContain('max-age=');

    // Compression passes through: the built files and on-demand JSON, brotli or gzip, with Vary; zstd for what is
    // rendered per request (the built files are brotli's best, and every client that takes zstd takes brotli).
    const onDemand = ['/api/reviews?productId=3', '/orders'];
    for (const [encoding, paths] of [
      ['br', ['/', ...onDemand]],
      ['gzip', ['/', ...onDemand]],
      ['zstd', onDemand],
    ] as const) {
      for (const path of paths) {
        const answer = await through(httpsPort, path, { headers: { 'accept-encoding': encoding } });
        expect(answer.status, path).toBeLessThan(400);
        if (answer.body.length < 1024 && answer.headers['content-encoding'] === undefined) continue;
        expect(answer.headers['content-encoding'], `${path} in ${encoding}`).toBe(encoding);
        expect(String(answer.headers.vary), path).toMatch(/accept-encoding/i);
      }
    }
    const plain = await through(httpsPort, '/', { headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toContain('<html');

    // Plain HTTP is sent to HTTPS.
    const redirect = await fetch(`http://127.0.0.1:${httpPort}/product/3`, {
      redirect: 'manual',
      headers: { host: 'localhost' },
    });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe(`${publicOrigin}/product/3`);
  } finally {
    shop?.kill('SIGTERM');
    nginx?.kill('SIGQUIT');
    await sleep(500);
    rmSync(dir, { recursive: true, force: true });
  }
});
