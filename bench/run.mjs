// Runs a benchmark script (`node bench/run.mjs bench/spawn.ts`) the way bin/subagents.js runs the CLI's
// worker in a clone: tsx registered on this thread only. The `tsx` command instead passes its loader to
// every thread (`--import`), which turns Node's source-map support on in the worker's workflow thread too:
// there the SDK's hook on every promise workflow code creates compiles a small function, and Node then
// scans each for a source-map comment (~0.8 ms of the workflow thread a child of a fan-out, CPU profile on
// this machine). A worker started from the compiled package or with bin/subagents.js does not pay that;
// the benches measure what such a worker does.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { register } from 'tsx/esm/api';

const [script] = process.argv.slice(2);
if (!script) {
  console.error('usage: node bench/run.mjs <bench script>, e.g. node bench/run.mjs bench/spawn.ts');
  process.exit(2);
}
register();
await import(pathToFileURL(path.resolve(script)).href);
