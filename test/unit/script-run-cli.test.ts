import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main';
import { parseRunArgs } from '../../src/cli/script-run-args';
import { parseWorkflowsArgs } from '../../src/cli/commands/workflows';
import { resolveScript, ScriptRefused } from '../../src/client/script-source';
import { scriptArgsProblem, scriptRunOptionsProblem } from '../../src/client/script-run-input';
import { scriptLimits } from '../../src/shared/scripts/script-run';
import { consoleCapture } from '../helpers/console-capture';

const header = "export const meta = { name: 'tiny', description: 'A tiny script' };\n";
const validScript = `${header}return 'ok';\n`;

function tempDir(): string {
  return realpathSync(mkdtempSync(path.join(os.tmpdir(), 'script-cli-')));
}

function writeFile(file: string, text: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

describe('subagents run: arguments refused before anything connects (exit 2)', () => {
  const { printed, capture } = consoleCapture();
  const dir = tempDir();
  const script = writeFile(path.join(dir, 'tiny.js'), validScript);
  // No server listens here: a command that got past its checks would fail with exit 3, not 2.
  process.env.TEMPORAL_ADDRESS = '127.0.0.1:1';

  it('--args that is not JSON', async () => {
    capture();
    expect(await main(['run', script, '--args', '{dir: src}'])).toBe(2);
    expect(printed.join('\n')).toMatch(/subagents run: --args must be JSON \(.+\); quote it for the shell/);
  });

  it('--args over scriptLimits.maxArgsBytes', async () => {
    capture();
    const big = JSON.stringify({ text: 'x'.repeat(scriptLimits.maxArgsBytes) });
    expect(await main(['run', script, '--args', big])).toBe(2);
    expect(printed.join('\n')).toContain(`at most ${scriptLimits.maxArgsBytes}`);
    // Just under the limit passes the check.
    const fits = JSON.stringify({ text: 'x'.repeat(scriptLimits.maxArgsBytes - 20) });
    expect(parseRunArgs([script, '--args', fits]).args).toEqual(JSON.parse(fits));
  });

  it('an unknown flag, with the one meant', async () => {
    capture();
    expect(await main(['run', script, '--folow'])).toBe(2);
    expect(printed.join('\n')).toContain("Unknown option '--folow'. Did you mean --follow?");
  });

  it('a missing script file', async () => {
    capture();
    const missing = path.join(dir, 'missing.js');
    expect(await main(['run', missing])).toBe(2);
    expect(printed.join('\n')).toContain(`the script file ${missing} does not exist`);
  });

  it('a syntax error, with the file and line:column', async () => {
    capture();
    const broken = writeFile(path.join(dir, 'broken.js'), `${header}const x = ;\n`);
    expect(await main(['run', broken])).toBe(2);
    expect(printed.join('\n')).toMatch(new RegExp(`subagents run: ${broken}: InvalidScript: .*2:\\d+`));
  });

  it('a script without its header', async () => {
    capture();
    const headless = writeFile(path.join(dir, 'headless.js'), "return 'ok';\n");
    expect(await main(['run', headless])).toBe(2);
    expect(printed.join('\n')).toMatch(/InvalidScript: 1:1: a script must start with its header/);
  });

  it('no script, two scripts, bad numbers and ids', async () => {
    capture();
    expect(await main(['run'])).toBe(2);
    expect(await main(['run', script, 'extra'])).toBe(2);
    expect(printed.join('\n')).toContain("Pass the script's input with --args JSON");
    expect(() => parseRunArgs([script, '--max-concurrent', '65'])).toThrow(
      /--max-concurrent must be a whole number from 1 to 64/,
    );
    expect(() => parseRunArgs([script, '--max-concurrent', '0'])).toThrow(/--max-concurrent/);
    expect(() => parseRunArgs([script, '--max-tokens', '1e9'])).toThrow(/--max-tokens must be a positive whole number/);
    expect(() => parseRunArgs([script, '--id', 'wf.1'])).toThrow(/--id must be letters/);
    expect(() => parseRunArgs(['not a name'])).toThrow(/not a saved script name/);
  });

  it('parses a full command line', () => {
    expect(
      parseRunArgs(
        [
          'scripts/tiny.js',
          '--args',
          '{"dir":"src"}',
          '--follow',
          '--name',
          'nightly',
          '--max-concurrent',
          '4',
          '--max-tokens',
          '50000',
          '--resume-from',
          'wf-old',
          '--id',
          'wf-new',
        ],
        dir,
      ),
    ).toEqual({
      script: { path: path.join(dir, 'scripts', 'tiny.js') },
      args: { dir: 'src' },
      follow: true,
      plain: false,
      json: false,
      cwd: dir,
      name: 'nightly',
      maxConcurrentAgents: 4,
      tokenBudget: 50_000,
      resumeFromRunId: 'wf-old',
      workflowId: 'wf-new',
    });
    expect(parseRunArgs(['review'], dir).script).toEqual({ name: 'review' });
  });

  it('subagents workflows arguments', () => {
    expect(parseWorkflowsArgs([])).toEqual({ running: false, limit: 50, json: false });
    expect(parseWorkflowsArgs(['wf-1', '--json'])).toEqual({ runId: 'wf-1', running: false, limit: 50, json: true });
    expect(() => parseWorkflowsArgs(['a', 'b'])).toThrow(/at most one run id/);
    expect(() => parseWorkflowsArgs(['--limit', '0'])).toThrow(/--limit/);
  });
});

describe('resolveScript', () => {
  it('finds a saved script in the project upward from the cwd, then in the user directory', async () => {
    const root = tempDir();
    const home = path.join(root, 'home');
    const project = path.join(root, 'project');
    const cwd = path.join(project, 'src', 'deep');
    mkdirSync(cwd, { recursive: true });
    writeFile(path.join(project, '.claude', 'workflows', 'tiny.js'), validScript);
    writeFile(
      path.join(home, '.claude', 'workflows', 'mine.js'),
      "export const meta = { name: 'mine', description: 'The user\\'s' };\nreturn 1;\n",
    );
    const tiny = await resolveScript({ name: 'tiny' }, { cwd, homeDir: home });
    expect(tiny).toMatchObject({ origin: 'project', path: path.join(project, '.claude', 'workflows', 'tiny.js') });
    expect(tiny.meta).toEqual({ name: 'tiny', description: 'A tiny script' });
    expect((await resolveScript({ name: 'mine' }, { cwd, homeDir: home })).origin).toBe('user');
    const missing = await resolveScript({ name: 'nope' }, { cwd, homeDir: home }).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(ScriptRefused);
    expect((missing as Error).message).toMatch(/^ScriptNotFound: no saved script named "nope"/);
    expect((await resolveScript(validScript, { cwd, homeDir: home })).origin).toBe('inline');
  });

  it('a name cannot climb out of .claude/workflows', async () => {
    const root = tempDir();
    const cwd = path.join(root, 'project');
    mkdirSync(cwd, { recursive: true });
    // What `.claude/workflows/../../../outside.js` would reach from the project.
    writeFile(path.join(root, 'outside.js'), validScript);
    for (const name of ['../../../outside', '..', 'a/b', 'tiny.js'])
      await expect(resolveScript({ name }, { cwd, homeDir: path.join(root, 'home') })).rejects.toThrow(
        /not a saved script name/,
      );
  });

  it('refuses a file over the size limit before reading it, and a directory', async () => {
    const dir = tempDir();
    const large = writeFile(path.join(dir, 'large.js'), `${header}//${'x'.repeat(scriptLimits.maxScriptBytes)}\n`);
    await expect(resolveScript({ path: large }, { cwd: dir })).rejects.toThrow(/scripts are at most/);
    await expect(resolveScript({ path: dir }, { cwd: dir })).rejects.toThrow(/not a regular file/);
  });
});

describe('run options', () => {
  it('args must be JSON data within the limit', () => {
    expect(scriptArgsProblem(undefined)).toBeUndefined();
    expect(scriptArgsProblem({ a: [1, 'b', null] })).toBeUndefined();
    expect(scriptArgsProblem(() => 1)).toMatch(/JSON data/);
    expect(scriptArgsProblem(10n)).toMatch(/JSON data/);
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(scriptArgsProblem(circular)).toMatch(/JSON data/);
    expect(scriptArgsProblem('x'.repeat(scriptLimits.maxArgsBytes))).toMatch(/at most/);
  });

  it('concurrency 1..64, a positive token budget, an id without dots', () => {
    expect(
      scriptRunOptionsProblem({ maxConcurrentAgents: 64, tokenBudget: 1, workflowId: 'wf-a_b:c' }),
    ).toBeUndefined();
    expect(scriptRunOptionsProblem({ maxConcurrentAgents: 1.5 })).toMatch(/maxConcurrentAgents/);
    expect(scriptRunOptionsProblem({ tokenBudget: -1 })).toMatch(/tokenBudget/);
    expect(scriptRunOptionsProblem({ workflowId: 'root.1' })).toMatch(/workflowId/);
  });
});
