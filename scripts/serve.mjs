// Serves the built shop (dist/): the command-line entry point of the HTTP edge, src/edge/server.ts (decision 005),
// which Node runs as it is. Configured from the environment (src/edge/config.ts; the README's configuration table):
// HOST and PORT choose where (default 127.0.0.1:4321).
//
//   node scripts/serve.mjs        (npm start builds first when the build is older than its sources, then runs this)

// The built shop is production: libraries that read NODE_ENV when they load (React, which renders the order e-mails
// on the server) pick their production builds, not the development ones meant for debugging. Set before anything loads.
process.env.NODE_ENV ??= 'production';

const { loadEdgeConfig } = await import('../src/edge/config.ts');
const { serverLogger } = await import('../src/edge/log.ts');

if (import.meta.url === (await import('node:url')).pathToFileURL(process.argv[1] ?? '').href) {
  // Nothing the server creates is open to another local account: the embedded database and its backups above all
  // (src/server/db/private-dir.ts), whatever umask the service was started with. Only when run as the server, not
  // when a test imports this file.
  process.umask(0o077);
  try {
    const config = loadEdgeConfig(process.env);
    const { serve } = await import('../src/edge/server.ts');
    await serve(config, serverLogger(config.log));
  } catch (error) {
    console.error(`Aurelia could not start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
