// How Node runs the shop's server (scripts/serve.mjs), for every script that starts it.
//
// A heap limit: without one V8 sizes the heap from the machine's memory (about 4 GB on a 24 GB machine) and lets it
// grow well before collecting. In the soak (scripts/soak.mjs, 200 shoppers) the heap reserved 470 MB, and kept growing,
// for 100 to 150 MB of live objects; limited to 512 MB it held near 250 MB, resident memory stayed flat, and throughput
// did not change. An operator's own NODE_OPTIONS=--max-old-space-size wins.
export const SERVER_NODE_FLAGS = /--max-old-space-size/.test(process.env.NODE_OPTIONS ?? '') ? [] : ['--max-old-space-size=512'];
