// Which Chromium the end-to-end tests and the benchmark drive, and how. Never a browser download: it fails offline.
import { existsSync } from 'node:fs';

/** Flags that let Chromium run headless as root on a machine with no network but loopback. */
export const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/**
 * CHROME_PATH, else the system's /usr/bin/chromium, else the Chromium shipped inside the @sparticuz/chromium package.
 * @returns {Promise<string>}
 */
export async function chromiumPath() {
  const fromEnv = process.env.CHROME_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`CHROME_PATH points at ${fromEnv}, which does not exist`);
    return fromEnv;
  }
  if (existsSync('/usr/bin/chromium')) return '/usr/bin/chromium';
  const { default: packaged } = await import('@sparticuz/chromium');
  return packaged.executablePath();
}
