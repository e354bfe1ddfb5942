/**
 * Where code goes, kept by CI (README, Project layout): imports point features → server → lib, and only the
 * composition root (src/app), pages, layouts, components and the middleware know everything. Islands never reach
 * server-only code, not even through a shared module.
 *
 * Features know each other as Medusa's modules do: little, and one way.
 * - A feature reaches another only through a module that one declares public: a `// @public: …` line at its top.
 *   A declared module rather than an index.ts barrel, because a barrel would load every module it re-exports: an
 *   island importing one store would ship the others' stores, zod and CSS too (these pages are on a JS budget), and
 *   run their top-level code. The mark is package.json `exports` at module size, and a module marked but used by no
 *   other feature loses it, so each feature's public surface stays what others actually use.
 * - The graph of features has no cycle, types included, and the foundations sit at the bottom: catalogue and toasts
 *   import no feature, auth only toasts.
 * - What spans features lives in the feature that owns the flow, with the others not importing back: checkout owns
 *   turning a cart into an order (the header's cart button and drawer, which hosts the checkout steps, are in
 *   checkout; cart knows nothing of checkout), and orders owns showing an order (order-page.server.ts, read by the
 *   shopper's order page, the e-mails and the admin).
 *
 * The HTTP edge (src/edge) is a layer of its own, run by Node as it is rather than bundled by Vite: it imports only
 * itself (relative specifiers with their `.ts`, which Node needs; never `@/`, which only Vite resolves), and nothing
 * outside it imports the edge but its switch (src/edge/switch.ts), the one interface between the app's publisher and
 * what is served, which itself imports nothing: the app's bundle takes in nothing else of the edge.
 *
 * The graph is read from the source files' import specifiers (static, dynamic and re-exports); tests are left out:
 * a test may reach across layers to check them.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(__dirname, '../..');
const SOURCE = /\.(ts|tsx|astro|mjs)$/;
const TEST = /\.test\.(ts|tsx)$/;

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return SOURCE.test(entry.name) && !TEST.test(entry.name) ? [path] : [];
  });
}

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g;
/** `import type … from '…'` and `export type … from '…'`: erased when compiled, so nothing of them reaches a bundle. */
const TYPE_ONLY = /\b(?:import|export)\s+type\s[^;'"]*?\bfrom\s*['"]([^'"]+)['"]/g;

/** The repository path (src/…, with its extension) a specifier names, or null for a package or a virtual module. */
function resolveSpecifier(specifier: string, from: string): string | null {
  let base: string;
  if (specifier.startsWith('@/')) base = `src/${specifier.slice(2)}`;
  else if (specifier.startsWith('.')) base = relative(root, resolve(root, dirname(from), specifier));
  else return null;
  const candidates = [base, ...['.ts', '.tsx', '.astro', '.mjs'].map((ext) => base + ext), `${base}/index.ts`];
  return candidates.find((path) => existsSync(join(root, path)) && SOURCE.test(path)) ?? null;
}

const files = sourceFiles('src');
const texts = new Map(files.map((file) => [file, readFileSync(join(root, file), 'utf8')]));
const targetsIn = (file: string, text: string) => [
  ...new Set(
    [...text.matchAll(SPECIFIER)].map((m) => resolveSpecifier(m[1] ?? '', file)).filter((path): path is string => path !== null),
  ),
];
/** Every file each file imports, types included: the layers hold for types too. */
const imports = new Map(files.map((file) => [file, targetsIn(file, texts.get(file) ?? '')]));
/** What each file loads when it runs: its imports less the type-only ones. */
const loads = new Map(files.map((file) => [file, targetsIn(file, (texts.get(file) ?? '').replace(TYPE_ONLY, ''))]));

type Layer = 'lib' | 'server' | 'feature' | 'root' | 'edge' | 'other';

/** Which layer a file is in. The composition root and the page frame may import anything. */
function layerOf(file: string): Layer {
  if (file.startsWith('src/lib/')) return 'lib';
  if (file.startsWith('src/server/')) return 'server';
  if (file.startsWith('src/features/')) return 'feature';
  if (file.startsWith('src/edge/')) return 'edge';
  if (/^src\/(app|pages|layouts|components)\//.test(file) || file === 'src/middleware.ts') return 'root';
  return 'other';
}

/** What each layer may import. */
const ALLOWED: Record<Layer, readonly Layer[]> = {
  lib: ['lib'],
  server: ['server', 'lib'],
  feature: ['feature', 'server', 'lib', 'root'],
  root: ['root', 'feature', 'server', 'lib', 'other'],
  edge: ['edge'],
  other: ['feature', 'server', 'lib', 'other'],
};

/** The one module of the edge the app may import: the switch between what is served and the app's publisher. */
const SWITCH = 'src/edge/switch.ts';

/** Each import that breaks the layers, as `from (layer) → to (layer)`. */
function layerViolations(graph: Map<string, string[]>): string[] {
  const broken: string[] = [];
  for (const [file, targets] of graph) {
    const layer = layerOf(file);
    for (const target of targets) {
      const targetLayer = layerOf(target);
      const allowed =
        (ALLOWED[layer].includes(targetLayer) || (targetLayer === 'edge' && target === SWITCH)) &&
        (layer !== 'feature' || targetLayer !== 'root' || FRAME.test(target));
      if (!allowed) broken.push(`${file} (${layer}) → ${target} (${targetLayer})`);
    }
  }
  return broken;
}

/** Specifiers in an edge file that Node cannot run: `@/` aliases, and relative paths without their `.ts`. */
function unrunnableInEdge(file: string, text: string): string[] {
  return [...text.matchAll(SPECIFIER)]
    .map((m) => m[1] ?? '')
    .filter((specifier) => specifier.startsWith('@/') || (specifier.startsWith('.') && !/\.(ts|mjs|js|json)$/.test(specifier)))
    .map((specifier) => `${file}: '${specifier}'`);
}

/** A component features may use from the page frame; never the composition root or a page. */
const FRAME = /^src\/(layouts|components)\//;

const isServerOnly = (file: string) => /\.server\.(ts|tsx)$/.test(file);
const isIsland = (file: string) => file.endsWith('.tsx') && !isServerOnly(file);

/** The feature a file is in (src/features/<name>/…), or null. */
const featureOf = (file: string): string | null => /^src\/features\/([^/]+)\//.exec(file)?.[1] ?? null;

/** A module another feature may import: it says so in its first lines. */
const PUBLIC_MARK = /^\/\/ @public:/m;
const isPublic = (file: string) => PUBLIC_MARK.test((texts.get(file) ?? '').split('\n').slice(0, 3).join('\n'));

/** Which features each feature imports (types included: a type is knowledge of the other feature too). */
function featureGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const [file, targets] of imports) {
    const from = featureOf(file);
    if (!from) continue;
    const edges = graph.get(from) ?? new Set<string>();
    graph.set(from, edges);
    for (const target of targets) {
      const to = featureOf(target);
      if (to && to !== from) edges.add(to);
    }
  }
  return graph;
}

/** The features everything stands on, and the only features each of them may import. */
const FOUNDATIONS: Record<string, readonly string[]> = { catalogue: [], toasts: [], auth: ['toasts'] };

describe('the import rule', () => {
  it('reads the graph it checks', () => {
    expect(files.length).toBeGreaterThan(200);
    expect(imports.get('src/app/services.server.ts')).toContain('src/server/config.server.ts');
  });

  it('points features → server → lib, and only the root knows everything', () => {
    expect(layerViolations(imports)).toEqual([]);
  });

  it('keeps the edge a layer of its own: only its switch is imported from outside, and it imports nothing', () => {
    const edge = files.filter((file) => layerOf(file) === 'edge');
    expect(edge).toContain(SWITCH);
    expect(edge.length).toBeGreaterThan(8);
    expect(imports.get(SWITCH)).toEqual([]);
    expect([...(texts.get(SWITCH) ?? '').matchAll(SPECIFIER)].map((m) => m[1])).toEqual([]);
    // Node runs the edge as it is: every specifier it can resolve.
    expect(edge.flatMap((file) => unrunnableInEdge(file, texts.get(file) ?? ''))).toEqual([]);
  });

  it('tells a planted violation of the edge layer, either way', () => {
    const planted = new Map<string, string[]>([
      ['src/features/editor/publisher.server.ts', ['src/edge/release.ts', SWITCH]],
      ['src/app/services.server.ts', ['src/edge/graceful-stop.ts']],
      ['src/edge/server.ts', ['src/server/config.server.ts', 'src/lib/email.ts', 'src/edge/release.ts']],
    ]);
    expect(layerViolations(planted)).toEqual([
      'src/features/editor/publisher.server.ts (feature) → src/edge/release.ts (edge)',
      'src/app/services.server.ts (root) → src/edge/graceful-stop.ts (edge)',
      'src/edge/server.ts (edge) → src/server/config.server.ts (server)',
      'src/edge/server.ts (edge) → src/lib/email.ts (lib)',
    ]);
    expect(
      unrunnableInEdge('src/edge/x.ts', "import { a } from '@/lib/email';\nimport { b } from './log';\nimport c from 'pino';"),
    ).toEqual(["src/edge/x.ts: '@/lib/email'", "src/edge/x.ts: './log'"]);
  });

  it('keeps server-only code out of every island, directly or through what it loads', () => {
    const reached = new Map<string, string[]>();
    for (const island of files.filter(isIsland)) {
      const seen = new Set<string>();
      const stack: string[][] = [[island]];
      while (stack.length > 0) {
        const path = stack.pop() ?? [];
        const file = path[path.length - 1] ?? '';
        if (seen.has(file)) continue;
        seen.add(file);
        if (isServerOnly(file) || file.startsWith('src/app/')) {
          reached.set(island, path);
          break;
        }
        for (const next of loads.get(file) ?? []) stack.push([...path, next]);
      }
    }
    expect([...reached.values()].map((path) => path.join(' → '))).toEqual([]);
  });

  it('has no import cycles: a module never loads itself back through what it loads', () => {
    // Tarjan's strongly connected components over the runtime graph: any component of two or more files is a cycle.
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const cycles: string[][] = [];
    const visit = (file: string) => {
      index.set(file, index.size);
      low.set(file, index.get(file) ?? 0);
      stack.push(file);
      onStack.add(file);
      for (const next of loads.get(file) ?? []) {
        if (!index.has(next)) {
          visit(next);
          low.set(file, Math.min(low.get(file) ?? 0, low.get(next) ?? 0));
        } else if (onStack.has(next)) low.set(file, Math.min(low.get(file) ?? 0, index.get(next) ?? 0));
      }
      if (low.get(file) !== index.get(file)) return;
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop();
        if (member) {
          onStack.delete(member);
          component.push(member);
        }
      } while (member && member !== file);
      if (component.length > 1) cycles.push(component.sort());
    };
    for (const file of files) if (!index.has(file)) visit(file);
    expect(cycles).toEqual([]);
  });

  it('lets a feature reach another only through a module that one declares public', () => {
    const deep: string[] = [];
    for (const [file, targets] of imports) {
      const from = featureOf(file);
      if (!from) continue;
      for (const target of targets) {
        const to = featureOf(target);
        if (to && to !== from && !isPublic(target)) deep.push(`${file} → ${target}`);
      }
    }
    expect(deep).toEqual([]);
  });

  it('keeps each public surface to what other features use', () => {
    // Used by another feature, that is: pages and the composition root import whatever they need and declare nothing.
    const used = new Set(
      [...imports].flatMap(([file, targets]) => {
        const from = featureOf(file);
        return from ? targets.filter((target) => (featureOf(target) ?? from) !== from) : [];
      }),
    );
    const unused = files.filter((file) => featureOf(file) && isPublic(file) && !used.has(file));
    expect(unused).toEqual([]);
  });

  it('has no cycle between features, and the foundations sit at the bottom', () => {
    const graph = featureGraph();
    const cycles: string[] = [];
    // Depth-first from every feature; a feature met again on the current path closes a cycle.
    const walk = (path: string[]) => {
      const last = path[path.length - 1] ?? '';
      for (const next of graph.get(last) ?? []) {
        if (path.includes(next)) cycles.push([...path.slice(path.indexOf(next)), next].join(' → '));
        else walk([...path, next]);
      }
    };
    for (const feature of graph.keys()) walk([feature]);
    expect([...new Set(cycles)]).toEqual([]);
    for (const [feature, allowed] of Object.entries(FOUNDATIONS))
      expect(
        [...(graph.get(feature) ?? [])].filter((to) => !allowed.includes(to)),
        feature,
      ).toEqual([]);
  });
});

describe('what only tests may call', () => {
  it('leaves the cost of password hashes to the shop: no source file or script lowers it', () => {
    const call = /(?<!function )\blowerPasswordCostForTests\s*\(/;
    const callers = [...sourceFiles('src'), ...sourceFiles('scripts'), ...sourceFiles('editor')].filter((file) =>
      call.test(readFileSync(join(root, file), 'utf8')),
    );
    expect(callers).toEqual([]);
    // The check sees a call where there is one (the tests' own), and not the definition.
    expect(readFileSync(join(root, 'tests/db/test-database.ts'), 'utf8')).toMatch(call);
    expect(readFileSync(join(root, 'src/server/auth/password.server.ts'), 'utf8')).toMatch(
      /function lowerPasswordCostForTests\(/,
    );
  });
});
