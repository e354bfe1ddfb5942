// Makes an account an admin of the shop: npm run admin:create -- owner@example.com
//
// With built-in accounts (the embedded default) it promotes a verified account, or creates a verified one with a
// password it asks for (ADMIN_PASSWORD, or typed at the prompt). With Supabase accounts it only promotes: sign up,
// confirm and log in to the shop with your own password first (ADMIN_EMAILS is refused there). Reads the same
// configuration as the server. The
// embedded database is locked to one process: stop the shop first.
import { createInterface } from 'node:readline';
import { runnerImport } from 'vite';

const root = new URL('..', import.meta.url).pathname;
const email = process.argv[2];
if (!email || email.startsWith('-')) {
  console.error('Usage: npm run admin:create -- <email>');
  process.exit(2);
}

/** The server's own TypeScript modules, loaded through Vite as the build does (path aliases, bundled migrations). */
async function serverModule(path) {
  const { module } = await runnerImport(path, {
    root,
    configFile: false,
    logLevel: 'error',
    resolve: { alias: { '@': `${root}src` } },
  });
  return module;
}

/** A password from ADMIN_PASSWORD, else typed at the terminal without echo. */
async function askPassword(message) {
  if (process.env.ADMIN_PASSWORD) return process.env.ADMIN_PASSWORD;
  if (!process.stdin.isTTY) return '';
  console.log(message);
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: true });
  rl._writeToOutput = (text) => {
    if (text.includes('Password')) process.stdout.write(text);
  };
  const password = await new Promise((resolve) => rl.question('Password for the new admin account: ', resolve));
  rl.close();
  process.stdout.write('\n');
  return password;
}

const [{ loadConfig }, { migrate }, { openPglite }, { openPostgres }, { createAdmin }] = await Promise.all([
  serverModule('/src/server/config.server.ts'),
  serverModule('/src/server/db/migrate.server.ts'),
  serverModule('/src/server/db/pglite.server.ts'),
  serverModule('/src/server/db/postgres.server.ts'),
  serverModule('/src/features/admin/create-admin.server.ts'),
]);

let db;
try {
  const config = loadConfig();
  db = config.database.kind === 'postgres' ? openPostgres(config.database.url) : await openPglite(config.database.dir);
  await migrate(db);
  let result = await createAdmin(db, { email });
  if (!result.ok && result.needsPassword) {
    if (config.auth.kind === 'supabase') {
      result = {
        ok: false,
        message: `${email} has no verified Supabase account: sign up, confirm and log in to the shop with your own password first.`,
      };
    } else {
      const password = await askPassword(`${email} has no verified account yet: one will be created.`);
      result = await createAdmin(db, { email, password });
    }
  }
  if (!result.ok) {
    console.error(result.message);
    process.exitCode = 1;
  } else {
    const done = {
      created: `Created a verified account for ${email}; it is an admin.`,
      promoted: `${email} is now an admin.`,
      'already-admin': `${email} was already an admin.`,
    }[result.outcome];
    console.log(`${done} Log in at ${config.publicOrigin}/ and open ${config.publicOrigin}/admin.`);
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
} finally {
  await db?.close();
}
