// How Node runs the shop's server (scripts/serve.mjs), for every script that starts it.
//
// A heap limit: without one V8 sizes the heap from the machine's memory (about 4 GB on a 24 GB machine) and lets it
// grow well before collecting. In the soak (scripts/soak.mjs, 200 shoppers) the heap reserved 470 MB, and kept growing,
// for 100 to 150 MB of live objects; limited to 512 MB it held near 250 MB, resident memory stayed flat, and throughput
// did not change. An operator's own NODE_OPTIONS=--max-old-space-size wins.
//
// `--liftoff-only`: the embedded database (PGlite, PostgreSQL compiled to WebAssembly) runs on V8's baseline compiler
// alone. Its optimising compiler needs about 600 MB for one of PostgreSQL's functions, on top of the shop, whenever
// that function becomes hot (at every start, and again in a vacuum): the server peaked at 830 MB. Without it the
// embedded shop peaks under 300 MB, for about a quarter more CPU in the database's part of a request (docs/performance.md,
// "Memory"). A shop on PostgreSQL runs no WebAssembly: the flag changes nothing there.
//
// `--expose-gc`: once the server rests, src/edge/memory-at-rest.ts asks V8 for one memory-reducing collection, which
// gives back the heap start-up or a burst of shoppers grew (about 50 MB at rest; decision 013).
const heapLimit = /--max-old-space-size/.test(process.env.NODE_OPTIONS ?? '') ? [] : ['--max-old-space-size=512'];
export const SERVER_NODE_FLAGS = [...heapLimit, '--liftoff-only', '--expose-gc'];

// `MALLOC_ARENA_MAX=2`: glibc gives each thread that allocates (the embedded database's, libuv's, V8's helpers) an arena
// of its own, up to eight per core, and keeps what each freed: two hold the server's memory at rest about 17 MB lower
// (decision 013). For the environment of every process that runs scripts/serve.mjs; an operator's own value wins.
export const SERVER_ENV = { MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2' };
