// Types of scripts/build.mjs for the TypeScript that imports it (bench/cli.ts).

/** Makes dist/ current for the CLI, building it when the sources changed; says why when it could not. */
export function ensureBuilt(
  root: string,
  options?: { onBuild?: () => void },
): { ok: true } | { ok: false; reason: string };
/** Whether dist/ was built from the sources as they are now. */
export function isBuildCurrent(root: string): boolean;
/** Fingerprints of the sources' names (`files`) and of their names, sizes and mtimes (`sources`). */
export function sourceFingerprint(root: string): { files: string; sources: string };
/** The stamp in dist/, relative to the root. */
export const stampFile: string;
