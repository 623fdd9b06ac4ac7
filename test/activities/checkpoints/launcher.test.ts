/** The checkpoint launcher (src/checkpoints/launcher.ts): one long-lived sh running scripts with exactly their inputs. */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Launcher, launch, launcher, requestText, shellWord } from '../../../src/checkpoints/launcher';

const directory = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'launcher-')));
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

/** Values that would run code, split words or end a quote if they reached sh unquoted. */
const hostile = [
  `$(touch ${directory}/pwned)`,
  '`touch pwned-too`',
  "it's ' quoted '\\'' twice",
  'a b\tc\nd',
  '; rm -rf / #',
  '"$HOME" ${PATH} $1 \\',
  '-e',
  '',
  'né 日本 🎉',
];

describe('shellWord', () => {
  it('quotes any text as one word', async () => {
    const result = await launch({ cwd: directory, env, script: `printf '%s\\0' "$@"`, args: hostile });
    expect(result.code).toBe(0);
    expect(result.stdout.split('\0').slice(0, -1)).toEqual(hostile);
    expect(existsSync(path.join(directory, 'pwned'))).toBe(false);
    expect(existsSync(path.join(directory, 'pwned-too'))).toBe(false);
  });

  it('refuses a NUL byte, which no argument or variable can hold', () => {
    expect(() => shellWord('a\0b')).toThrow(/NUL/);
    expect(() =>
      requestText(1, { cwd: directory, env, script: 'true', args: ['a\0b'] }, { out: 'o', err: 'e' }),
    ).toThrow(/NUL/);
  });
});

describe('launch', () => {
  it('gives the script exactly the request environment, hostile values intact', async () => {
    const result = await launch({
      cwd: directory,
      env: { ...env, GIT_DIR: hostile[0]!, QUOTED: hostile[2]!, 'NOT-A-NAME': 'x' },
      script: 'env',
      args: [],
    });
    const lines = result.stdout.split('\n');
    expect(lines).toContain(`GIT_DIR=${hostile[0]}`);
    expect(result.stdout).toContain(`QUOTED=${hostile[2]}`);
    expect(result.stdout).not.toContain('NOT-A-NAME');
    // Nothing of the worker's own environment leaks in: only what sh itself sets beside the request's.
    const names = lines.filter((line) => /^[A-Za-z_]+=/.test(line)).map((line) => line.split('=')[0]);
    expect(names.filter((name) => !['PWD', 'OLDPWD'].includes(name!)).sort()).toEqual(['GIT_DIR', 'PATH', 'QUOTED']);
  });

  it('runs without PATH when the request has none', async () => {
    const result = await launch({ cwd: directory, env: {}, script: 'printf "[%s]" "${PATH-unset}"', args: [] });
    expect(result.stdout).toBe('[unset]');
  });

  it('runs in the request directory, hostile names included', async () => {
    const odd = path.join(directory, "it's $(odd)\ndir");
    mkdirSync(odd);
    const result = await launch({ cwd: odd, env, script: 'pwd', args: [] });
    expect(result.stdout).toBe(`${odd}\n`);
  });

  it('fails with 126 and says why when the directory is missing', async () => {
    const result = await launch({ cwd: path.join(directory, 'missing'), env, script: 'true', args: [] });
    expect(result.code).toBe(126);
    expect(result.stderr).toMatch(/missing/);
  });

  it('feeds input on stdin and returns the exit status and stderr', async () => {
    const result = await launch({
      cwd: directory,
      env,
      script: 'read -r line; echo "got $line"; echo oops >&2; exit 3',
      args: [],
      input: 'hello\n',
    });
    expect(result).toEqual({ code: 3, stdout: 'got hello\n', stderr: 'oops\n' });
  });

  it('stops a script at its first failing command', async () => {
    const result = await launch({ cwd: directory, env, script: 'set -e; false; echo never', args: [] });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
  });

  it('runs requests side by side and answers each with its own output', async () => {
    const started = performance.now();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        launch({ cwd: directory, env, script: 'sleep 0.3; printf %s "$1"', args: [`request ${index}`] }),
      ),
    );
    expect(results.map((result) => result.stdout)).toEqual(Array.from({ length: 8 }, (_, index) => `request ${index}`));
    // Eight 0.3 s sleeps one after the other would take 2.4 s.
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('leaves no output files behind', async () => {
    const own = new Launcher();
    try {
      await own.run({ cwd: directory, env, script: 'echo out; echo err >&2', args: [], input: 'in' });
      expect(readdirSync(own.folder)).toEqual([]);
    } finally {
      own.close();
    }
    expect(existsSync(own.folder)).toBe(false);
  });

  it('lets a script outlive its killed launcher, and starts a new launcher for the next', async () => {
    const first = launcher();
    const pending = launch({ cwd: directory, env, script: 'sleep 0.5; echo finished', args: [] });
    await new Promise((resolve) => setTimeout(resolve, 100));
    process.kill(first.pid!, 'SIGKILL');
    expect((await pending).stdout).toBe('finished\n');
    const result = await launch({ cwd: directory, env, script: 'echo again', args: [] });
    expect(result.stdout).toBe('again\n');
    expect(launcher()).not.toBe(first);
    expect(existsSync(first.folder)).toBe(false);
  });

  it('fails a request whose script was killed with its launcher', async () => {
    const own = new Launcher();
    const pending = own.run({ cwd: directory, env, script: 'echo started; exec sleep 5', args: [] });
    await new Promise((resolve) => setTimeout(resolve, 200));
    // The launcher and the script's subshell and sleep: as a killed worker's process group would go.
    execFileSync('pkill', ['-KILL', '-P', String(own.pid)]);
    process.kill(own.pid!, 'SIGKILL');
    await expect(pending).rejects.toThrow(/before the script ended/);
  });

  it('keeps a request file out of the script text: a file named like a command is only read', async () => {
    writeFileSync(path.join(directory, 'input'), 'x');
    const result = await launch({ cwd: directory, env, script: 'cat', args: [], input: "'; touch pwned; '" });
    expect(result.stdout).toBe("'; touch pwned; '");
    expect(existsSync(path.join(directory, 'pwned'))).toBe(false);
  });
});
