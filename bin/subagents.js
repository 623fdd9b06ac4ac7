#!/usr/bin/env node
// The installed package has no sources and runs the compiled dist/. A clone runs dist/ too, building it first when the
// sources changed since (scripts/build.mjs: a stamp of src/ names, sizes and mtimes), so a stale dist/ never runs;
// it runs the sources through tsx only when that build fails, or with SUBAGENTS_FROM_SOURCES=1.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
let main;
if (!existsSync(new URL('../src/cli/main.ts', import.meta.url))) {
  ({ main } = await import('../dist/cli/main.js'));
} else {
  const { ensureBuilt } = await import('../scripts/build.mjs');
  const built =
    process.env.SUBAGENTS_FROM_SOURCES === '1' ? { ok: false } : ensureBuilt(root, { onBuild: announceBuild });
  if (built.ok) {
    ({ main } = await import('../dist/cli/main.js'));
  } else {
    if (built.reason)
      console.error(
        `subagents: running the sources through tsx (slower), because building dist/ failed: ${built.reason}`,
      );
    const { register } = await import('tsx/esm/api');
    register();
    ({ main } = await import('../src/cli/main.ts'));
  }
}
process.exitCode = await main(process.argv.slice(2));

/** Says why this call is slow, on a terminal only (scripts and tests read stderr). */
function announceBuild() {
  if (process.stderr.isTTY)
    process.stderr.write(
      'subagents: the sources changed; compiling them into dist/ once (npm run build does it ahead)...\n',
    );
}
