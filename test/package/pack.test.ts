import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, inject, it } from 'vitest';

/**
 * The package as a new user gets it (docs/api.md): `npm pack` (which builds dist/), installed into
 * an empty project, typed by tsc against the package's declarations, then a plain
 * `Worker.create({ plugins: [subagentsPlugin(...)] })` with a custom tool runs an agent end to end.
 */
const run = promisify(execFile);
const repository = path.resolve(import.meta.dirname, '..', '..');
const project = mkdtempSync(path.join(os.tmpdir(), 'subagents-pack-'));
afterAll(() => rmSync(project, { recursive: true, force: true }));

describe('the installed package', () => {
  it('packs, installs, type-checks and runs an agent with a custom tool on a plain worker', { timeout: 480_000 }, async () => {
    const packed = await run('npm', ['pack', '--pack-destination', project, '--silent'], { cwd: repository, maxBuffer: 64 * 1024 * 1024 });
    const tarball = path.join(project, packed.stdout.trim().split('\n').pop()!);
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    // Dependencies come from the npm cache when they are there (the registry otherwise); no install scripts are needed.
    await run('npm', ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: project, maxBuffer: 64 * 1024 * 1024 });
    for (const file of readdirSync(path.join(repository, 'test', 'package', 'consumer'))) copyFileSync(path.join(repository, 'test', 'package', 'consumer', file), path.join(project, file));

    // Types: the entry points resolve under NodeNext (the strictest ESM resolution); a type error fails here.
    const tsc = path.join(repository, 'node_modules', 'typescript', 'bin', 'tsc');
    await run(process.execPath, [tsc, '-p', project], { cwd: project }).catch((error: { stdout?: string }) => {
      throw new Error(`tsc failed:\n${error.stdout ?? String(error)}`);
    });

    // No tsx, no sources: the CLI runs from dist/.
    const help = await run(process.execPath, [path.join(project, 'node_modules', '.bin', 'subagents'), '--help'], { cwd: project });
    expect(help.stdout).toContain('usage: subagents <command>');
    expect(readdirSync(path.join(project, 'node_modules', 'durable-subagents'))).not.toContain('src');

    const workspace = path.join(project, 'workspace');
    mkdirSync(workspace);
    const { stdout } = await run(process.execPath, [path.join(project, 'out', 'main.js'), inject('temporalAddress'), workspace], { cwd: project, maxBuffer: 16 * 1024 * 1024 });
    const outcome = JSON.parse(stdout.trim().split('\n').pop()!) as { result: { status: string; finalText: string }; toolResult: { content: string }; activityTypes: string[] };
    expect(outcome.result).toMatchObject({ status: 'completed', finalText: 'Three words.' });
    expect(outcome.toolResult.content).toMatch(/^3 words \(for agent-/);
    expect(outcome.activityTypes).toContain('word_count');
  });
});
