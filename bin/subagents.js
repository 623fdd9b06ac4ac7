#!/usr/bin/env node
// In a clone the CLI runs from the TypeScript sources through tsx (no build step); the installed
// package has no sources and runs the compiled dist/ (npm run build), without tsx.
import { existsSync } from 'node:fs';

let main;
if (existsSync(new URL('../src/cli/main.ts', import.meta.url))) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
} else {
  ({ main } = await import('../dist/cli/main.js'));
}
process.exitCode = await main(process.argv.slice(2));
