// `runHook`: one sandboxed hook command, interpreted here so the history records its decision (docs/hooks.md).
import { spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { CancelledFailure, Context } from '@temporalio/activity';
import { hookLimits } from '../../shared/policy/hooks';
import {
  interpretHookRun,
  type HookProcessResult,
  type HookRunInput,
  type HookRunResult,
} from '../../shared/policy/hook-outcome';
import { toolLimits } from '../../shared/tools/tool-definitions';
import { startWatchdog } from '../tools/bash';
import { commandEnvironment, type ShellOptions } from '../../config/shell-options';
import { launchSandboxed, SandboxUnavailableError, type SandboxedLaunch } from '../../sandbox/sandboxed-launch';
import os from 'node:os';
import path from 'node:path';

/** Keeps the first `max` characters of a stream and counts the rest. */
class CappedText {
  text = '';
  dropped = 0;
  constructor(private readonly max: number) {}
  append(chunk: string): void {
    const room = this.max - this.text.length;
    if (room > 0) this.text += chunk.slice(0, room);
    this.dropped += Math.max(0, chunk.length - Math.max(room, 0));
  }
}

/** Where a hook may write: its project (or its cwd when that lies elsewhere). */
function hookWorkspace(input: HookRunInput): string {
  const project = path.resolve(input.projectDir);
  const cwd = path.resolve(input.cwd);
  return cwd === project || cwd.startsWith(`${project}/`) ? project : cwd;
}

/** Runs one command in the OS sandbox (docs/security.md); `signal` cancels it. Exported for tests that run hooks without a worker. */
export async function runHookProcess(
  input: HookRunInput,
  options: { shell?: ShellOptions; signal?: AbortSignal; heartbeat?: () => void } = {},
): Promise<HookProcessResult> {
  let launch: SandboxedLaunch;
  try {
    launch = await launchSandboxed(
      ['bash', '--norc', '-c', input.command],
      {
        profile: 'service',
        workspaceRoot: hookWorkspace(input),
        cwd: input.cwd,
        homeDir: options.shell?.user?.home ?? os.homedir(),
        ...(input.sandbox ? { settings: input.sandbox } : {}),
        what: `the hook \`${input.command.slice(0, 80)}\``,
      },
      options.shell?.sandbox,
    );
  } catch (error) {
    if (error instanceof SandboxUnavailableError)
      return { exitCode: null, stdout: '', stderr: '', spawnError: error.message };
    throw error;
  }
  try {
    return await runLaunched(launch, input, options);
  } finally {
    await launch.release();
  }
}

function runLaunched(
  launch: SandboxedLaunch,
  input: HookRunInput,
  options: { shell?: ShellOptions; signal?: AbortSignal; heartbeat?: () => void },
): Promise<HookProcessResult> {
  return new Promise((resolve) => {
    const stdout = new CappedText(hookLimits.maxOutputChars);
    const stderr = new CappedText(hookLimits.maxOutputChars);
    // --norc: bash takes a socket stdin for a remote shell and would source ~/.bashrc, whose locks can hang a hook.
    const child = spawn(launch.file, launch.args, {
      cwd: input.cwd,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...commandEnvironment(options.shell ?? {}), ...launch.env, CLAUDE_PROJECT_DIR: input.projectDir },
      ...(options.shell?.user ? { uid: options.shell.user.uid, gid: options.shell.user.gid } : {}),
    });
    const stopWatchdog = child.pid === undefined ? () => undefined : startWatchdog(child.pid);
    let timedOut = false;
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    const killGroup = (signal: NodeJS.Signals) => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, signal);
      } catch {
        // Already gone.
      }
    };
    const stop = () => {
      killGroup('SIGTERM');
      timers.push(setTimeout(() => killGroup('SIGKILL'), toolLimits.bashKillGraceMs));
    };
    const onAbort = () => stop();
    const finish = (result: HookProcessResult) => {
      if (settled) return;
      settled = true;
      stopWatchdog();
      for (const timer of timers) clearTimeout(timer);
      clearInterval(heartbeat);
      options.signal?.removeEventListener('abort', onAbort);
      // Whatever the command left running in its group goes with it.
      killGroup('SIGKILL');
      child.stdout?.destroy();
      child.stderr?.destroy();
      const truncatedChars = stdout.dropped + stderr.dropped;
      resolve({
        ...result,
        stdout: stdout.text,
        stderr: stderr.text,
        ...(truncatedChars > 0 ? { truncatedChars } : {}),
        ...(timedOut ? { timedOut } : {}),
      });
    };
    timers.push(
      setTimeout(() => {
        timedOut = true;
        stop();
      }, input.timeoutMs),
    );
    const heartbeat = setInterval(() => options.heartbeat?.(), toolLimits.heartbeatIntervalMs);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    for (const [stream, sink] of [
      [child.stdout!, stdout],
      [child.stderr!, stderr],
    ] as const) {
      const decoder = new StringDecoder('utf8');
      stream.on('data', (chunk: Buffer) => sink.append(decoder.write(chunk)));
      stream.on('end', () => sink.append(decoder.end()));
    }
    // A hook that does not read its stdin closes the pipe early: that is not an error.
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(JSON.stringify(input.payload));
    child.on('error', (error) => finish({ exitCode: null, stdout: '', stderr: '', spawnError: error.message }));
    child.on('close', (code) => finish({ exitCode: code, stdout: '', stderr: '' }));
    // A background job holding the pipes open must not keep the hook "running" after its shell exited.
    child.on('exit', (code) => timers.push(setTimeout(() => finish({ exitCode: code, stdout: '', stderr: '' }), 200)));
    if (options.signal?.aborted) stop();
  });
}

/** Creates `runHook`. */
export function createHookActivities(options: { shell?: ShellOptions }) {
  return {
    async runHook(input: HookRunInput): Promise<HookRunResult> {
      const context = Context.current();
      const run = await runHookProcess(input, {
        shell: options.shell,
        signal: context.cancellationSignal,
        heartbeat: () => context.heartbeat(),
      });
      if (context.cancellationSignal.aborted) throw new CancelledFailure('the hook was cancelled and killed');
      return { ...run, verdict: interpretHookRun(input.event, input.command, run) };
    },
  };
}
