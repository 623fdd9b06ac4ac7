/**
 * What the workflow bundle gets for `zod` (the alias of `workflowBundlerOptions`, src/plugin.ts): the
 * same `z`, with zod itself evaluated when a schema is first built. Every workflow run evaluates the
 * bundle's modules anew, and zod's own evaluation cost ~4 ms of each run's start here, while most runs
 * never check a signal or query input. Node loads the real `zod` once; only the bundle uses this file.
 */
import type { z as Zod } from 'zod';

let loaded: typeof Zod | undefined;
// A CommonJS require inside a function: webpack bundles zod but evaluates it only when this runs.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const load = (): typeof Zod => (loaded ??= (require('zod/v4') as { z: typeof Zod }).z);

export const z: typeof Zod = new Proxy({} as typeof Zod, { get: (_target, key) => Reflect.get(load(), key) as unknown });
