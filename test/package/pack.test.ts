import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, inject, it } from 'vitest';

/**
 * The package as a new user gets it (docs/api.md): `npm pack` (which builds dist/), installed by
 * docs/api.md's install line into an empty `"type": "module"` project, typed by tsc against the
 * package's declarations (NodeNext, strict, no skipLibCheck), loaded by a CommonJS script, then a
 * plain `Worker.create({ plugins: [subagentsPlugin(...)] })` with a custom tool runs an agent end to end.
 */
const run = promisify(execFile);
const repository = path.resolve(import.meta.dirname, '..', '..');
const lock = JSON.parse(readFileSync(path.join(repository, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version: string }>;
};
// The install line of docs/api.md, at the versions this repository's lockfile tests with.
const installed = ['@temporalio/client', '@temporalio/worker', 'zod', '@types/node'].map(
  (name) => `${name}@${lock.packages[`node_modules/${name}`]!.version}`,
);
const project = mkdtempSync(path.join(os.tmpdir(), 'subagents-pack-'));
afterAll(() => rmSync(project, { recursive: true, force: true }));

describe('the installed package', () => {
  it(
    'packs, installs, type-checks and runs an agent with a custom tool on a plain worker',
    { timeout: 480_000 },
    async () => {
      const packed = await run('npm', ['pack', '--pack-destination', project, '--silent'], {
        cwd: repository,
        maxBuffer: 64 * 1024 * 1024,
      });
      const tarball = path.join(project, packed.stdout.trim().split('\n').pop()!);
      writeFileSync(
        path.join(project, 'package.json'),
        JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
      );
      // Dependencies come from the npm cache when they are there (the registry otherwise); no install scripts are needed.
      const install = await run(
        'npm',
        ['install', tarball, ...installed, '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'],
        { cwd: project, maxBuffer: 64 * 1024 * 1024 },
      );
      expect(install.stderr).not.toMatch(/ERESOLVE|EBADENGINE/);
      for (const file of readdirSync(path.join(repository, 'test', 'package', 'consumer')))
        copyFileSync(path.join(repository, 'test', 'package', 'consumer', file), path.join(project, file));

      // The Temporal SDK and zod are peers: one copy of each in the project, the team's, whatever depends on it.
      const installedManifest = JSON.parse(
        readFileSync(path.join(project, 'node_modules', 'durable-subagents', 'package.json'), 'utf8'),
      ) as { dependencies: Record<string, string> };
      expect(
        Object.keys(installedManifest.dependencies).filter((name) => name.startsWith('@temporalio/') || name === 'zod'),
      ).toEqual([]);
      const shared = [
        '@temporalio/workflow',
        '@temporalio/activity',
        '@temporalio/common',
        '@temporalio/client',
        '@temporalio/worker',
        'zod',
      ];
      const copies = await run('npm', ['ls', '--all', '--parseable', ...shared], {
        cwd: project,
        maxBuffer: 16 * 1024 * 1024,
      });
      const paths = copies.stdout.split('\n').filter((line) => line.includes(`${path.sep}node_modules${path.sep}`));
      for (const name of shared)
        expect(
          paths.filter((line) => line.endsWith(`${path.sep}node_modules${path.sep}${name.split('/').join(path.sep)}`)),
          name,
        ).toHaveLength(1);

      // Types: the entry points resolve under NodeNext (the strictest ESM resolution) and every
      // declaration is checked (no skipLibCheck): a type error in ours or a dependency's fails here.
      expect(readFileSync(path.join(project, 'tsconfig.json'), 'utf8')).not.toContain('skipLibCheck');
      const tsc = path.join(repository, 'node_modules', 'typescript', 'bin', 'tsc');
      await run(process.execPath, [tsc, '-p', project], { cwd: project }).catch((error: { stdout?: string }) => {
        throw new Error(`tsc failed:\n${error.stdout ?? String(error)}`);
      });

      // A CommonJS consumer: require() of each entry point works (Node's require of ES modules).
      const required = await run(process.execPath, [path.join(project, 'require.cjs')], { cwd: project });
      const loaded = JSON.parse(required.stdout) as {
        loaded: Record<string, string[]>;
        client: string;
        plugin: string;
      };
      expect(loaded.loaded['durable-subagents']).toContain('SubagentsClient');
      expect(loaded.loaded['durable-subagents/workflows']).toEqual([
        'agentWorkflow',
        'boardWorkflow',
        'scriptRunWorkflow',
      ]);
      expect(loaded).toMatchObject({ client: 'function', plugin: 'durable-subagents' });

      // No tsx, no sources: the CLI runs from dist/.
      const help = await run(process.execPath, [path.join(project, 'node_modules', '.bin', 'subagents'), '--help'], {
        cwd: project,
      });
      expect(help.stdout).toContain('usage: subagents <command>');
      expect(readdirSync(path.join(project, 'node_modules', 'durable-subagents'))).not.toContain('src');

      const workspace = path.join(project, 'workspace');
      mkdirSync(workspace);
      const { stdout } = await run(
        process.execPath,
        [path.join(project, 'out', 'main.js'), inject('temporalAddress'), workspace],
        { cwd: project, maxBuffer: 16 * 1024 * 1024 },
      );
      const outcome = JSON.parse(stdout.trim().split('\n').pop()!) as {
        result: { status: string; finalText: string };
        toolResult: { content: string };
        activityTypes: string[];
        budget: { accounts: { subtree: { toolCalls: number } }[] };
      };
      expect(outcome.result).toMatchObject({ status: 'completed', finalText: 'Three words.' });
      expect(outcome.toolResult.content).toMatch(/^3 words \(for agent-/);
      expect(outcome.activityTypes).toContain('word_count');
      expect(outcome.budget.accounts[0]?.subtree.toolCalls).toBe(1);
    },
  );
});
