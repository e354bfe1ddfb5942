/**
 * A value kept once per process, whichever build of the app asks. A publish switches the server to a freshly built
 * bundle of the same code (src/features/editor/publish.server.ts): its modules load anew, so what must exist once per
 * process (the database and the services around it, the metrics' registry) is kept on globalThis under `name`.
 */
export function processShared<T>(name: string, create: () => T): T {
  const key = Symbol.for(`aurelia.${name}`);
  const holder = globalThis as Record<symbol, unknown>;
  if (!(key in holder)) holder[key] = create();
  return holder[key] as T;
}
