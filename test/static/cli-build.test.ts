// @slow
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { modulesLoadedWhile } from '../helpers/unit-loaded-modules';

const root = path.join(import.meta.dirname, '..', '..');

/** A clone in miniature: the real bin/subagents.js, scripts/build.mjs and tsconfig.build.json over a two-file src/cli. */
function makeClone(): string {
  const clone = mkdtempSync(path.join(os.tmpdir(), 'subagents-cli-build-'));
  for (const file of ['bin/subagents.js', 'scripts/build.mjs', 'tsconfig.build.json']) {
    mkdirSync(path.dirname(path.join(clone, file)), { recursive: true });
    copyFileSync(path.join(root, file), path.join(clone, file));
  }
  symlinkSync(path.join(root, 'node_modules'), path.join(clone, 'node_modules'));
  writeFileSync(path.join(clone, 'package.json'), JSON.stringify({ name: 'clone', private: true, type: 'module' }));
  const compilerOptions = {
    target: 'ES2022',
    module: 'ESNext',
    moduleResolution: 'Bundler',
    types: ['node'],
    strict: true,
    skipLibCheck: true,
    noEmit: true,
  };
  writeFileSync(path.join(clone, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['src'] }));
  mkdirSync(path.join(clone, 'src', 'cli'), { recursive: true });
  writeFileSync(
    path.join(clone, 'src', 'cli', 'main.ts'),
    "import { word } from './word';\nexport async function main(): Promise<number> {\n  console.log(word);\n  return 0;\n}\n",
  );
  writeSource(clone, 'src/cli/word.ts', "export const word = 'first';\n");
  return clone;
}

/** Writes a source with an mtime later than any before it (an edit in the same millisecond as the build still counts). */
function writeSource(clone: string, file: string, text: string): void {
  writeFileSync(path.join(clone, file), text);
  const later = new Date(Date.now() + 5_000 + Math.random() * 1_000);
  utimesSync(path.join(clone, file), later, later);
}

function subagents(clone: string): { stdout: string; stderr: string; status: number | null } {
  const run = spawnSync(process.execPath, [path.join(clone, 'bin', 'subagents.js')], {
    cwd: clone,
    encoding: 'utf8',
    env: { ...process.env, SUBAGENTS_FROM_SOURCES: '' },
  });
  return { stdout: run.stdout.trim(), stderr: run.stderr.trim(), status: run.status };
}

const clones: string[] = [];
afterAll(() => {
  for (const clone of clones) rmSync(clone, { recursive: true, force: true });
});

describe('bin/subagents.js in a clone', () => {
  it(
    'builds dist/ on first use, runs it, and rebuilds it when a source changes: never the old code',
    { timeout: 240_000 },
    () => {
      const clone = makeClone();
      clones.push(clone);
      expect(subagents(clone)).toEqual({ stdout: 'first', stderr: '', status: 0 });
      expect(readFileSync(path.join(clone, 'dist', 'cli', 'word.js'), 'utf8')).toContain("'first'");

      writeSource(clone, 'src/cli/word.ts', "export const word = 'second';\n");
      expect(subagents(clone)).toEqual({ stdout: 'second', stderr: '', status: 0 });
      // Rebuilt, not run from the sources.
      expect(readFileSync(path.join(clone, 'dist', 'cli', 'word.js'), 'utf8')).toContain("'second'");

      // A deleted source leaves no compiled orphan behind.
      rmSync(path.join(clone, 'src', 'cli', 'word.ts'));
      writeSource(clone, 'src/cli/other-word.ts', "export const word = 'third';\n");
      writeSource(
        clone,
        'src/cli/main.ts',
        "import { word } from './other-word';\nexport async function main(): Promise<number> {\n  console.log(word);\n  return 0;\n}\n",
      );
      expect(subagents(clone)).toEqual({ stdout: 'third', stderr: '', status: 0 });
      expect(existsSync(path.join(clone, 'dist', 'cli', 'word.js'))).toBe(false);
    },
  );

  it(
    'falls back to the sources through tsx, with one line saying why, when the build fails',
    { timeout: 240_000 },
    () => {
      const clone = makeClone();
      clones.push(clone);
      expect(subagents(clone).stdout).toBe('first');
      writeSource(clone, 'src/cli/word.ts', "export const word = 'second';\n");
      writeSource(
        clone,
        'tsconfig.build.json',
        JSON.stringify({
          extends: './tsconfig.json',
          compilerOptions: { noEmit: false, outDir: 'dist', target: 'no-such-target' },
        }),
      );
      const run = subagents(clone);
      expect(run.stdout).toBe('second');
      expect(run.stderr.split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(
        /^subagents: running the sources through tsx \(slower\), because building dist\/ failed: tsc failed: .*target/,
      );
    },
  );
});

/** The modules a fresh process loads to answer `argv` (a resolve hook sees every ESM import tsx resolves; not CommonJS requires). */
function modulesLoadedFor(argv: string[]): string[] {
  const body = `
    const { main } = await import(${JSON.stringify(path.join(root, 'src', 'cli', 'main.ts'))});
    console.log = () => {};
    console.error = () => {};
    await main(${JSON.stringify(argv)});`;
  return modulesLoadedWhile(body, { cwd: root });
}

describe('the command table', () => {
  it(
    'answers --help, a command --help and did-you-mean without loading any command or the Temporal client',
    { timeout: 120_000 },
    () => {
      for (const argv of [['--help'], ['status', '--help'], ['stauts']]) {
        const loaded = modulesLoadedFor(argv);
        expect(
          loaded.filter((url) => url.includes('/src/cli/commands/') || url.includes('@temporalio')),
          argv.join(' '),
        ).toEqual([]);
      }
      // The probe sees a command load when it runs (a refused flag fails before connecting).
      expect(
        modulesLoadedFor(['start', 'a prompt', '--bogus']).some((url) => url.endsWith('/src/cli/commands/agents.ts')),
      ).toBe(true);
    },
  );

  it(
    'runs status, ls, ls --tree, budget and board without agent definitions, yaml, zod or the start machinery',
    { timeout: 180_000 },
    () => {
      const cases: [string[], string][] = [
        [['status', 'agent-x', '--bogus'], 'inspect.ts'],
        [['ls', '--bogus'], 'inspect.ts'],
        [['budget', 'agent-x', '--bogus'], 'budget.ts'],
        [['board', 'agent-x', '--bogus'], 'board.ts'],
      ];
      for (const [argv, command] of cases) {
        const loaded = modulesLoadedFor(argv);
        // Loaded: the command and the Temporal client it reads with (a refused flag fails after its imports, before connecting).
        expect(
          loaded.some((url) => url.endsWith(`/src/cli/commands/${command}`)),
          argv.join(' '),
        ).toBe(true);
        expect(
          loaded.some((url) => url.includes('/node_modules/@temporalio/client/')),
          argv.join(' '),
        ).toBe(true);
        const heavy = loaded.filter((url) =>
          /\/src\/(activities|client\/(client|root-input)\.ts)|\/node_modules\/(zod|yaml)\//.test(url),
        );
        expect(heavy, argv.join(' ')).toEqual([]);
      }
    },
  );
});
