#!/usr/bin/env node
// In a clone the CLI runs from the TypeScript sources through tsx (no build step); the installed
// package has no sources and runs the compiled dist/ (npm run build).
import { existsSync } from 'node:fs';

const sources = new URL('../src/cli/main.ts', import.meta.url);
let main;
if (existsSync(sources)) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import(sources.href));
} else {
  ({ main } = await import(new URL('../dist/cli/main.js', import.meta.url).href));
}
process.exitCode = await main(process.argv.slice(2));
