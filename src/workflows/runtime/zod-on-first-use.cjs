// What the workflow bundle gets for `zod` (the webpack alias of `workflowBundlerOptions`, src/worker/plugin.ts):
// the same `z`, with zod itself evaluated when a schema is first built. Every workflow run evaluates the
// bundle's modules anew, and zod's own evaluation cost ~4 ms of each run's start, while most runs never
// check a signal or query input. Node loads the real `zod` once; only the bundle uses this file.
// Only `z` is given: workflow code imports nothing else from zod (test/static/workflow-bundle.test.ts).
// CommonJS on purpose: webpack bundles the `require` below and evaluates zod only when `z` is first read
// (an ES module may not call `require`). The build copies this file to dist/workflows/.
'use strict';

let loaded;
Object.defineProperty(exports, 'z', {
  enumerable: true,
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  get: () => (loaded ??= require('zod/v4').z),
});
