import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { armedCommand, processStartTime, runBash, startWatchdog } from '../../../src/activities/tools/bash';
import { HeadTailBuffer } from '../../../src/activities/tools/output-buffer';
import { createTestWorkspace, isProcessAlive, type TestWorkspace } from './helpers';
import { processesMatching } from '../../helpers/processes';

let workspace: TestWorkspace;
beforeEach(async () => {
  workspace = await createTestWorkspace();
});
afterEach(() => workspace.cleanup());

const bash = (input: Record<string, unknown>) => runBash(workspace.call(input), workspace.env);

async function waitForPath(file: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (
    !(await fs.stat(file).then(
      () => true,
      () => false,
    ))
  ) {
    if (Date.now() > deadline) throw new Error(`${file} not made in time`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('Bash', () => {
  it('runs in the working directory and returns the output', async () => {
    await fs.mkdir(path.join(workspace.root, 'sub'));
    const result = await runBash(
      workspace.call(
        { command: 'pwd && echo hello', description: 'print dir' },
        { context: { cwd: path.join(workspace.root, 'sub') } },
      ),
      workspace.env,
    );
    expect(result).toEqual({ isError: false, content: `${path.join(workspace.root, 'sub')}\nhello` });
  });

  it('reports a non-zero exit code with the output as an error', async () => {
    const result = await bash({ command: 'echo partial; echo oops >&2; exit 3' });
    expect(result.isError).toBe(true);
    expect(result.content).toBe('partial\noops\n\nExit code: 3');
    expect(await bash({ command: 'true' })).toEqual({ isError: false, content: '(no output)' });
  });

  it('interleaves stdout and stderr in arrival order', async () => {
    const result = await bash({ command: 'echo one; sleep 0.05; echo two >&2; sleep 0.05; echo three' });
    expect(result.content).toBe('one\ntwo\nthree');
  });

  it('gives the command no stdin and no pager', async () => {
    expect((await bash({ command: 'cat; echo "pager=$GIT_PAGER"' })).content).toBe('pager=cat');
  });

  it('caps output at 30000 characters, keeping head and tail', async () => {
    const result = await bash({ command: 'echo START; head -c 100000 /dev/zero | tr "\\0" x; echo; echo END' });
    expect(result.content.length).toBeLessThanOrEqual(30_000);
    expect(result.content.startsWith('START\nxxx')).toBe(true);
    expect(result.content.endsWith('xxx\nEND')).toBe(true);
    const omitted = /\.\.\. (\d+) characters omitted \.\.\./.exec(result.content);
    expect(Number(omitted?.[1])).toBeGreaterThan(70_000);
  });

  it('kills the command after its timeout and returns the output so far', async () => {
    const started = Date.now();
    const result = await bash({ command: 'echo before; sleep 5; echo after', timeout: 300 });
    expect(Date.now() - started).toBeLessThan(4000);
    expect(result).toEqual({
      isError: true,
      content: 'Command timed out after 300 ms and was killed. Output so far:\nbefore',
    });
  });

  it('kills the whole process tree when cancelled', async () => {
    // The command runs in its own PID namespace: its children are found by their unique sleep lengths.
    const marker = path.join(workspace.root, 'started');
    const running = bash({
      command: `echo started; sleep 30.101 & (sleep 30.102; echo never) & touch ${marker}; sleep 30.103`,
    });
    await waitForPath(marker);
    expect(processesMatching('^sleep 30.10')).toHaveLength(3);
    // Let "started" travel through the pipe before cancelling.
    await new Promise((resolve) => setTimeout(resolve, 200));
    workspace.abort.abort();
    const result = await running;
    expect(result).toEqual({ isError: true, content: 'Command was cancelled and killed. Output so far:\nstarted' });
    expect(processesMatching('^sleep 30.10')).toEqual([]);
  });

  it('uses SIGKILL for commands that ignore SIGTERM', async () => {
    const started = Date.now();
    const result = await bash({ command: "trap '' TERM; echo stubborn; sleep 10", timeout: 200 });
    expect(result.content).toMatch(/^Command timed out after 200 ms/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('does not start when already cancelled, and heartbeats while running', async () => {
    const slow = await bash({ command: 'sleep 1.5; echo done' });
    expect(slow.content).toBe('done');
    expect(workspace.env.heartbeats.length).toBeGreaterThanOrEqual(2);
    workspace.abort.abort();
    const marker = path.join(workspace.root, 'ran');
    expect((await bash({ command: `touch ${marker}` })).content).toMatch(/^Command was cancelled/);
    await expect(fs.access(marker)).rejects.toThrow();
  });

  it('returns without waiting for background jobs that keep the output open', async () => {
    const started = Date.now();
    const pidFile = path.join(workspace.root, 'bg.pid');
    const result = await bash({ command: `sleep 3 & echo $! > ${pidFile}; echo foreground` });
    expect(result.content).toBe('foreground');
    expect(Date.now() - started).toBeLessThan(2000);
    process.kill(Number(await fs.readFile(pidFile, 'utf8')), 'SIGKILL');
  });

  it('validates the timeout', async () => {
    const result = await bash({ command: 'true', timeout: 700_000 });
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^InvalidToolInput: .*"timeout": /);
  });
});

describe('HeadTailBuffer', () => {
  it('keeps everything that fits and the exact omitted count otherwise', () => {
    const small = new HeadTailBuffer(100);
    small.append('abc');
    small.append('def');
    expect(small.toString()).toBe('abcdef');
    const big = new HeadTailBuffer(100);
    for (let index = 0; index < 50; index += 1) big.append(`${String(index).padStart(3, '0')}|`);
    const text = big.toString();
    expect(text.length).toBeLessThanOrEqual(100);
    const [head, tail] = text.split(/\n\n\.\.\. \d+ characters omitted \.\.\.\n\n/);
    const omitted = Number(/(\d+) characters omitted/.exec(text)?.[1]);
    expect(head!.length + tail!.length + omitted).toBe(200);
    expect(head!.startsWith('000|001|')).toBe(true);
    expect(tail!.endsWith('048|049|')).toBe(true);
  });
});

describe('the Bash watchdog', () => {
  /** A process in its own group, as Bash starts commands. */
  const startGroup = () => {
    const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    child.unref();
    return child.pid!;
  };
  const waitUntilDead = async (pid: number, timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs;
    while (await isProcessAlive(pid)) {
      if (Date.now() > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return true;
  };

  it('kills the command group once its worker is gone', async () => {
    const worker = spawn('sleep', ['30'], { stdio: 'ignore' });
    const group = startGroup();
    const stop = startWatchdog(group, { pid: worker.pid!, startTime: processStartTime(worker.pid!) });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await isProcessAlive(group)).toBe(true);
    worker.kill('SIGKILL');
    expect(await waitUntilDead(group)).toBe(true);
    stop();
  });

  it("does not take a later process that got the dead worker's pid for the worker", async () => {
    // A live process whose start time is not the worker's: the pid was reused, the worker is gone.
    const reused = spawn('sleep', ['30'], { stdio: 'ignore' });
    const group = startGroup();
    const stop = startWatchdog(group, { pid: reused.pid!, startTime: '1' });
    expect(await waitUntilDead(group)).toBe(true);
    expect(await isProcessAlive(reused.pid!)).toBe(true);
    reused.kill('SIGKILL');
    stop();
  });
});

describe('a command waits for its watchdog', () => {
  it('runs only once the worker says "armed" on fd 3, and never when fd 3 closes unread', async () => {
    const run = (arm: string | undefined) =>
      new Promise<{ code: number | null; output: string }>((resolve) => {
        const child = spawn('bash', ['-c', armedCommand, 'bash', 'echo RAN $0 "$#"'], {
          stdio: ['ignore', 'pipe', 'inherit', 'pipe'],
        });
        let output = '';
        child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
        child.on('close', (code) => resolve({ code, output }));
        const fd3 = child.stdio[3] as NodeJS.WritableStream;
        if (arm === undefined) fd3.end();
        else fd3.end(arm);
      });
    expect(await run('armed\n')).toEqual({ code: 0, output: 'RAN bash 0\n' });
    expect(await run(undefined)).toEqual({ code: 125, output: '' });
    expect(await run('not-armed\n')).toEqual({ code: 125, output: '' });
  });
});
