// @ts-check
// Builds src/ into dist/ and stamps dist/ with a fingerprint of the sources it came from, so that bin/subagents.js
// in a clone runs the compiled CLI only while it matches the sources (plain JavaScript: it runs before anything is built).
//   node scripts/build.mjs   the package build (npm run build, npm pack): clean, type-checked, with declarations.
//   ensureBuilt(root)        bin/subagents.js: nothing when the stamp matches; else an emit-only, incremental tsc.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The stamp in dist/: fingerprints of the sources dist/ was built from. */
export const stampFile = path.join('dist', '.source-stamp.json');
// Besides src/: the files that change what the build emits.
const buildInputs = ['tsconfig.json', 'tsconfig.build.json', 'scripts/build.mjs'];
const lockWaitMs = 10 * 60_000;

/**
 * Fingerprints of the sources: `files` of their names, `sources` of their names, sizes and mtimes. A stat per file
 * (a few ms for src/), not a read: an edit, a checkout, an added or deleted file all change it.
 * @param {string} root
 * @returns {{ files: string; sources: string }}
 */
export function sourceFingerprint(root) {
  /** @type {string[]} */
  const lines = [];
  /** @param {string} relative */
  const add = (relative) => {
    const stat = statSync(path.join(root, relative));
    lines.push(`${relative}\t${stat.size}\t${stat.mtimeMs}`);
  };
  /** @param {string} directory */
  const visit = (directory) => {
    for (const entry of readdirSync(path.join(root, directory), { withFileTypes: true })) {
      const relative = path.join(directory, entry.name);
      if (entry.isDirectory()) visit(relative);
      else add(relative);
    }
  };
  visit('src');
  for (const file of buildInputs) if (existsSync(path.join(root, file))) add(file);
  lines.sort();
  const hash = (/** @type {string[]} */ parts) => createHash('sha256').update(parts.join('\n')).digest('hex');
  return { files: hash(lines.map((line) => line.split('\t')[0] ?? '')), sources: hash(lines) };
}

/**
 * The stamp dist/ carries, if any.
 * @param {string} root
 * @returns {{ files: string; sources: string } | undefined}
 */
function readStamp(root) {
  try {
    return JSON.parse(readFileSync(path.join(root, stampFile), 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Whether dist/ was built from the sources as they are now.
 * @param {string} root
 */
export function isBuildCurrent(root) {
  const stamp = readStamp(root);
  return (
    stamp !== undefined &&
    stamp.sources === sourceFingerprint(root).sources &&
    existsSync(path.join(root, 'dist', 'cli', 'main.js'))
  );
}

/**
 * Makes dist/ current for the CLI: builds it (once, under a lock other CLI processes wait on) when the sources changed.
 * Returns why it could not, for the caller to fall back to the sources.
 * @param {string} root
 * @param {{ onBuild?: () => void }} [options]
 * @returns {{ ok: true } | { ok: false; reason: string }}
 */
export function ensureBuilt(root, options = {}) {
  if (isBuildCurrent(root)) return { ok: true };
  return withLock(root, () => {
    // Another process may have built it while this one waited.
    if (isBuildCurrent(root)) return { ok: true };
    options.onBuild?.();
    return build(root, 'cli');
  });
}

/**
 * One build. `cli`: emit-only (no type check, no declarations) and incremental, the way tsx runs the sources; a clean
 * build when files were added or deleted (no compiled orphans). `package`: clean, type-checked, with declarations.
 * @param {string} root
 * @param {'cli' | 'package'} kind
 * @returns {{ ok: true } | { ok: false; reason: string }}
 */
function build(root, kind) {
  // Taken before compiling: a source edited during the build leaves the stamp stale.
  const fingerprint = sourceFingerprint(root);
  const dist = path.join(root, 'dist');
  if (kind === 'package' || readStamp(root)?.files !== fingerprint.files)
    rmSync(dist, { recursive: true, force: true });
  else rmSync(path.join(root, stampFile), { force: true });
  const require = createRequire(path.join(root, 'package.json'));
  /** @type {string} */
  let tsc;
  /** @type {string} */
  let tscAlias;
  try {
    tsc = require.resolve('typescript/bin/tsc');
    tscAlias = path.join(path.dirname(require.resolve('tsc-alias/package.json')), 'dist', 'bin', 'index.js');
  } catch {
    return { ok: false, reason: 'typescript or tsc-alias is not installed (npm install)' };
  }
  const cliOptions = [
    '--noCheck',
    '--declaration',
    'false',
    '--declarationMap',
    'false',
    '--incremental',
    '--tsBuildInfoFile',
    path.join('dist', '.tsbuildinfo'),
  ];
  const steps = [
    { name: 'tsc', argv: [tsc, '-p', 'tsconfig.build.json', ...(kind === 'cli' ? cliOptions : [])] },
    // Adds the .js extensions Node's ESM loader needs to the relative imports tsc leaves as written.
    { name: 'tsc-alias', argv: [tscAlias, '-p', 'tsconfig.build.json'] },
  ];
  for (const step of steps) {
    const run = spawnSync(process.execPath, step.argv, {
      cwd: root,
      encoding: 'utf8',
      stdio: kind === 'package' ? 'inherit' : 'pipe',
    });
    if (run.status !== 0) {
      const output = `${run.stdout ?? ''}${run.stderr ?? ''}`.trim().split('\n')[0] ?? '';
      return {
        ok: false,
        reason: `${step.name} failed${output ? `: ${output}` : ` (exit ${run.status ?? run.signal})`}`,
      };
    }
  }
  copyPlainModules(root, 'src');
  inlineQuickJsWasm(root);
  writeFileSync(path.join(root, stampFile), `${JSON.stringify(fingerprint)}\n`);
  return { ok: true };
}

/**
 * dist/'s QuickJS module imports the wasm as a JavaScript module of its base64 text, which Node loads as well as any
 * bundler (a `.wasm` import needs the workflow bundle's rule; from src/, tests and the bundler have one).
 * @param {string} root
 */
function inlineQuickJsWasm(root) {
  const moduleFile = path.join(root, 'dist', 'workflows', 'scripts', 'vm', 'quickjs-module.js');
  if (!existsSync(moduleFile)) return;
  const require = createRequire(path.join(root, 'package.json'));
  const wasm = readFileSync(require.resolve('@jitl/quickjs-wasmfile-release-sync/wasm'));
  writeFileSync(
    path.join(path.dirname(moduleFile), 'quickjs-wasm-base64.js'),
    `// Written by scripts/build.mjs: QuickJS's wasm as base64.\nexport default ${JSON.stringify(wasm.toString('base64'))};\n`,
  );
  const text = readFileSync(moduleFile, 'utf8');
  writeFileSync(
    moduleFile,
    text.replace(/(['"])@jitl\/quickjs-wasmfile-release-sync\/wasm\1/, "'./quickjs-wasm-base64.js'"),
  );
}

/**
 * The .cjs / .mjs modules under src/ that tsc does not emit (loaded by path at run time), copied beside the compiled code.
 * @param {string} root
 * @param {string} directory
 */
function copyPlainModules(root, directory) {
  for (const entry of readdirSync(path.join(root, directory), { withFileTypes: true })) {
    const relative = path.join(directory, entry.name);
    if (entry.isDirectory()) copyPlainModules(root, relative);
    else if (/\.(cjs|mjs)$/.test(entry.name)) {
      const target = path.join(root, 'dist', path.relative('src', relative));
      mkdirSync(path.dirname(target), { recursive: true });
      copyFileSync(path.join(root, relative), target);
    }
  }
}

/**
 * Runs `work` holding .tmp/dist-build.lock (a directory: mkdir is atomic), so that CLI processes started together build
 * once; a lock whose process has gone is taken over.
 * @template T
 * @param {string} root
 * @param {() => T} work
 * @returns {T | { ok: false; reason: string }}
 */
function withLock(root, work) {
  const lock = path.join(root, '.tmp', 'dist-build.lock');
  mkdirSync(path.dirname(lock), { recursive: true });
  const deadline = Date.now() + lockWaitMs;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch (error) {
      if (/** @type {NodeJS.ErrnoException} */ (error).code !== 'EEXIST') throw error;
      if (!holderAlive(lock)) {
        rmSync(lock, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline)
        return {
          ok: false,
          reason: `another build has held ${path.relative(root, lock)} for ${lockWaitMs / 60_000} minutes`,
        };
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    return work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * Whether the process that took the lock still runs (a lock just made, its pid not yet written, counts as held).
 * @param {string} lock
 */
function holderAlive(lock) {
  let pid;
  try {
    pid = Number(readFileSync(path.join(lock, 'pid'), 'utf8'));
  } catch {
    try {
      return Date.now() - statSync(lock).mtimeMs < 5_000;
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return /** @type {NodeJS.ErrnoException} */ (error).code === 'EPERM';
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const result = withLock(root, () => build(root, 'package'));
  if (!result.ok) {
    console.error(`build: ${result.reason}`);
    process.exitCode = 1;
  }
}
