/**
 * The README's configuration table names every variable the shop reads, and only those: the ones its configuration
 * schema reads (src/server/config.server.ts) and the ones read outside it by the scripts, the build and test configs
 * (the port `npm start` listens on, the graceful stop, where new embedded databases come from, the browser and port of the end-to-end tests, the PostgreSQL of
 * the database suites). A variable added on one side and not the other fails here, naming it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(__dirname, '../..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const NAME = /^[A-Z][A-Z0-9_]*$/;

/** The variable names in the first column of the first table under the README's "## Configuration" heading. */
function readmeVariables(readme: string): Set<string> {
  const section = /^## Configuration\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(readme)?.[1];
  if (!section) throw new Error('The README has no "## Configuration" section');
  const rows = section
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .slice(2); // the header and its |---| line
  if (rows.length === 0) throw new Error('The README\'s "## Configuration" section has no table');
  const names = rows.flatMap((row) => [...(row.split('|')[1] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1] as string));
  for (const name of names) if (!NAME.test(name)) throw new Error(`The configuration table names ${name}, not a variable`);
  return new Set(names);
}

/** What src/server/config.server.ts reads: the schema's keys, the groups set together, and `env.X` read directly. */
function schemaVariables(source: string): Set<string> {
  const names = new Set<string>();
  const object = /\.object\(\{([\s\S]*?)\n\s*\}\)\s*\.safeParse\(/.exec(source)?.[1];
  if (!object) throw new Error('config.server.ts: no z.object({…}).safeParse( found; teach this test the new shape');
  for (const m of object.matchAll(/^\s*([A-Z][A-Z0-9_]*):/gm)) names.add(m[1] as string);
  for (const group of source.matchAll(/\bgroup\(\s*env\s*,\s*'[^']*'\s*,\s*\[([^\]]*)\]/g)) {
    for (const m of (group[1] as string).matchAll(/'([A-Z][A-Z0-9_]*)'/g)) names.add(m[1] as string);
  }
  for (const m of source.matchAll(/\benv(?:\.([A-Z][A-Z0-9_]*)\b|\[\s*'([A-Z][A-Z0-9_]*)'\s*\])/g))
    names.add((m[1] ?? m[2]) as string);
  return names;
}

/** Files outside the schema that read configuration: every script, the edge's, the build's and the tests' configs. */
const OUTSIDE = [
  ...readdirSync(join(root, 'scripts'))
    .filter((f) => f.endsWith('.mjs'))
    .map((f) => `scripts/${f}`),
  'src/edge/config.ts',
  'src/server/db/pglite-init.ts',
  'astro.config.mjs',
  'editor/astro.config.mjs',
  'playwright.config.ts',
  'tests/db/test-database.ts',
];

/** Read there, and not the shop's configuration: each with why it is not in the table. */
const NOT_CONFIGURATION: [RegExp, string][] = [
  [
    /^(NODE_ENV|NODE_OPTIONS|PATH|CI|VITEST|TEST_WORKER_INDEX)$/,
    "Node's, the system's or a tool's own (Playwright sets TEST_WORKER_INDEX)",
  ],
  [/^(BENCH|SOAK)_/, "a benchmark's or the soak's knob, documented with it (docs/performance.md, docs/reliability.md)"],
  [/^E2E_(DATA_DIR|MAILBOX_PORT)$/, 'set by playwright.config.ts for the server it starts'],
  [/^ADMIN_PASSWORD$/, 'the input of npm run admin:create, documented with it'],
];

function outsideVariables(files: Map<string, string>): Set<string> {
  const names = new Set<string>();
  for (const source of files.values()) {
    for (const m of source.matchAll(/\benv(?:\.([A-Z][A-Z0-9_]*)\b|\[\s*['"]([A-Z][A-Z0-9_]*)['"]\s*\])/g)) {
      const name = (m[1] ?? m[2]) as string;
      if (!NOT_CONFIGURATION.some(([pattern]) => pattern.test(name))) names.add(name);
    }
  }
  return names;
}

/** The names on one side only, each side sorted. */
function difference(table: Set<string>, code: Set<string>) {
  return {
    inTheTableOnly: [...table].filter((n) => !code.has(n)).sort(),
    inTheCodeOnly: [...code].filter((n) => !table.has(n)).sort(),
  };
}

describe("the README's configuration table", () => {
  const table = readmeVariables(read('README.md'));
  const schema = schemaVariables(read('src/server/config.server.ts'));
  const outside = outsideVariables(new Map(OUTSIDE.map((path) => [path, read(path)])));

  it('finds the variables on both sides (the parsers still understand the files)', () => {
    for (const name of ['HOST', 'DATABASE_URL', 'SUPABASE_ANON_KEY', 'SES_FROM', 'SHIPPO_API_KEY', 'GEOAPIFY_API_BASE']) {
      expect(schema, name).toContain(name);
    }
    for (const name of ['SHUTDOWN_GRACE_SECONDS', 'SHUTDOWN_DRAIN_SECONDS', 'CHROME_PATH', 'E2E_PORT', 'TEST_DATABASE_URL']) {
      expect(outside, name).toContain(name);
    }
    expect(table.size).toBeGreaterThan(30);
  });

  it('names every variable the configuration schema and the scripts read, and no other', () => {
    expect(difference(table, new Set([...schema, ...outside]))).toEqual({ inTheTableOnly: [], inTheCodeOnly: [] });
  });

  it('tells a planted difference on either side', () => {
    const readme = read('README.md');
    const row = readme.split('\n').find((line) => line.startsWith('| `PUBLISH_CHECK_EVERY`'));
    if (!row) throw new Error('The configuration table has no PUBLISH_CHECK_EVERY row to plant a difference with');
    const planted = readmeVariables(readme.replace(row, '| `NO_SUCH_VARIABLE` | unset | nothing |'));
    const { inTheTableOnly, inTheCodeOnly } = difference(planted, new Set([...schema, ...outside]));
    expect(inTheTableOnly).toContain('NO_SUCH_VARIABLE');
    expect(inTheCodeOnly).toContain('PUBLISH_CHECK_EVERY');
    const schemaWithNew = schemaVariables(
      read('src/server/config.server.ts').replace('HOST: z.string()', 'NEW_SETTING: z.string(),\n      HOST: z.string()'),
    );
    expect(schemaWithNew).toContain('NEW_SETTING');
  });
});
