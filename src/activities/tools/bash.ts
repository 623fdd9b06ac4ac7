// Bash: one sandboxed command in its own process group, killed as a whole, daemons included (docs/security.md).
import { lastLines, liveLimits, type LiveToolDetails } from '../../shared/protocol/live-activity';
import { ErrorType, errorText } from '../../shared/protocol/errors';
import { spawn } from 'node:child_process';
import type { Writable } from 'node:stream';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { z } from 'zod';
import { toolLimits } from '../../shared/tools/tool-definitions';
import type { ToolCallResult } from '../../shared/tools/tools';
import { integerInput } from './input';
import { HeadTailBuffer } from './output-buffer';
import type { ToolEnv } from './tool-env';
import { ToolRefusal } from './tool-error';
import { defineTool } from './tool-runner';
import { openWorkspace } from './workspace';
import { commandEnvironment } from '../../config/shell-options';
import { launchSandboxed, SandboxUnavailableError, type SandboxedLaunch } from '../../sandbox/sandboxed-launch';
import { defaultSandboxOptions } from '../../config/sandbox-options';
import os from 'node:os';

/** Input schema (the model is untrusted). */
export const bashInput = z.strictObject({
  command: z.string().min(1),
  timeout: integerInput(1, toolLimits.bashMaxTimeoutMs).optional(),
  description: z.string().optional(),
});

/** How long to wait for output still in the pipes after the shell exits (background jobs may hold them open). */
const drainGraceMs = 200;
const groupPollMs = 50;

/** A process's start time (/proc/<pid>/stat field 22), telling it from a later process reusing its pid. */
export function processStartTime(pid: number | 'self' = 'self'): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[22 - 3];
  } catch {
    return undefined;
  }
}

const workerStartTime = processStartTime();

/**
 * Kills the command's process group once this worker is gone, even by SIGKILL. It polls the pid with its
 * start time, not a pipe: an inherited write end outlives the worker, and a dead worker's pid is soon reused.
 */
export function startWatchdog(
  processGroup: number,
  worker: { pid: number; startTime?: string } = { pid: process.pid, startTime: workerStartTime },
): () => void {
  // Gone: no /proc entry, a zombie (dead, not yet reaped), or another process with the same pid.
  const script = [
    'pid=$1; group=$2; start=$3',
    'while kill -0 "$pid" 2>/dev/null; do',
    '  stat=$(sed "s/^.*) //" /proc/"$pid"/stat 2>/dev/null) || break',
    '  set -- $stat',
    '  [ "$1" = Z ] && break',
    '  [ -n "$start" ] && [ "${20}" != "$start" ] && break',
    '  sleep 1',
    'done',
    'kill -KILL "-$group" 2>/dev/null',
  ].join('\n');
  const watchdog = spawn(
    'sh',
    ['-c', script, 'watchdog', String(worker.pid), String(processGroup), worker.startTime ?? ''],
    {
      detached: true,
      stdio: 'ignore',
    },
  );
  watchdog.on('error', () => undefined);
  watchdog.unref();
  return () => {
    try {
      watchdog.kill('SIGKILL');
    } catch {
      // Already gone.
    }
  };
}

/** What `bash -c` runs: wait on fd 3 for the watchdog, then exec the command, so it never runs unwatched. */
export const armedCommand = 'IFS= read -r armed <&3; exec 3<&-; [ "$armed" = armed ] || exit 125; exec bash -c "$1"';

type Ending =
  | { kind: 'exited'; code: number | null; signal: NodeJS.Signals | null }
  | { kind: 'timed_out' }
  | { kind: 'cancelled' }
  | { kind: 'spawn_failed'; message: string };

/** Runs the Bash tool. */
export const runBash = defineTool('Bash', bashInput, async (input, call, env) => {
  const workspace = await openWorkspace(call.context);
  const cwdStat = await fs.stat(workspace.realCwd).catch(() => undefined);
  if (!cwdStat?.isDirectory())
    throw new ToolRefusal(ErrorType.FileNotFound, `the working directory ${workspace.cwd} does not exist.`);
  const timeoutMs = input.timeout ?? toolLimits.bashDefaultTimeoutMs;
  const output = new HeadTailBuffer(toolLimits.bashMaxOutputChars);
  const sandbox = env.shell?.sandbox ?? defaultSandboxOptions();
  if (sandbox.mode === 'off' && call.context.sandbox?.autoAllowBashIfSandboxed === true) {
    // The call may have skipped its approval because it would be confined: it must not run unconfined.
    return {
      content: errorText(
        ErrorType.SandboxUnavailable,
        'this tree lets Bash run without approval because commands are sandboxed (sandbox.autoAllowBashIfSandboxed), but this worker runs with SUBAGENTS_SANDBOX=off, so the command was not run. Report this; the operator must run the tree on a sandboxing worker or remove autoAllowBashIfSandboxed.',
      ),
      isError: true,
    };
  }
  let launch: SandboxedLaunch;
  try {
    launch = await launchSandboxed(
      ['bash', '-c', armedCommand, 'bash', input.command],
      {
        profile: 'command',
        workspaceRoot: workspace.root,
        cwd: workspace.realCwd,
        homeDir: env.shell?.user?.home ?? os.homedir(),
        ...(call.context.sandbox ? { settings: call.context.sandbox } : {}),
        what: 'the command',
      },
      sandbox,
    );
  } catch (error) {
    if (error instanceof SandboxUnavailableError) return { content: error.message, isError: true };
    throw error;
  }
  try {
    const ending = await runCommand(launch, workspace.realCwd, timeoutMs, output, env);
    const result = describeEnding(ending, output.toString().trimEnd(), timeoutMs);
    const refused = launch.refusedHosts();
    if (refused.length === 0) return result;
    // The model should know the network said no, and how a person opens it.
    const note = `\n\nSandbox: the network proxy refused ${refused.join(', ')} (not in sandbox.network.allowedDomains; docs/security.md).`;
    return { ...result, content: `${result.content}${note}` };
  } finally {
    await launch.release();
  }
});

function describeEnding(ending: Ending, output: string, timeoutMs: number): ToolCallResult {
  const withOutput = (headline: string) => (output === '' ? headline : `${headline}\n${output}`);
  switch (ending.kind) {
    case 'timed_out':
      return {
        content: withOutput(`Command timed out after ${timeoutMs} ms and was killed. Output so far:`),
        isError: true,
      };
    case 'cancelled':
      return { content: withOutput('Command was cancelled and killed. Output so far:'), isError: true };
    case 'spawn_failed':
      return { content: `Command could not be started: ${ending.message}`, isError: true };
    case 'exited': {
      const shown = output === '' ? '(no output)' : output;
      if (ending.code === 0) return { content: shown, isError: false };
      const status =
        ending.code !== null ? `Exit code: ${ending.code}` : `Killed by signal ${ending.signal ?? 'unknown'}`;
      return { content: `${shown}\n\n${status}`, isError: true };
    }
  }
}

/** Spawns the (sandboxed) `bash -c` as a process-group leader and collects stdout and stderr in arrival order. */
function runCommand(
  launch: SandboxedLaunch,
  cwd: string,
  timeoutMs: number,
  output: HeadTailBuffer,
  env: ToolEnv,
): Promise<Ending> {
  if (env.signal.aborted) return Promise.resolve({ kind: 'cancelled' });
  return new Promise<Ending>((resolve) => {
    const child = spawn(launch.file, launch.args, {
      cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      env: { ...commandEnvironment(env.shell ?? {}), ...launch.env },
      ...(env.shell?.user ? { uid: env.shell.user.uid, gid: env.shell.user.gid } : {}),
    });
    const stopWatchdog = child.pid === undefined ? () => undefined : startWatchdog(child.pid);
    // Only now may the command run: its watchdog is in place.
    const arm = child.stdio[3] as Writable | null;
    arm?.on('error', () => undefined);
    arm?.end('armed\n');
    const streams = [child.stdout!, child.stderr!];
    let stopReason: 'timed_out' | 'cancelled' | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    let killSent = false;
    let settled = false;

    const killGroup = (signal: NodeJS.Signals): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // The group is already gone.
      }
    };
    const groupAlive = (): boolean => {
      if (child.pid === undefined) return false;
      try {
        process.kill(-child.pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    const stop = (reason: 'timed_out' | 'cancelled'): void => {
      if (stopReason || settled) return;
      stopReason = reason;
      killGroup('SIGTERM');
      killTimer = setTimeout(() => {
        killSent = true;
        killGroup('SIGKILL');
      }, toolLimits.bashKillGraceMs);
    };
    const onAbort = (): void => stop('cancelled');
    const timeout = setTimeout(() => stop('timed_out'), timeoutMs);
    // The details show the last output lines live (src/shared/protocol/live-activity.ts).
    const progress = (): LiveToolDetails => ({
      kind: 'tool',
      tool: 'Bash',
      outputChars: output.totalChars,
      lines: lastLines(output.recent(liveLimits.outputLines * liveLimits.lineChars * 2)),
    });
    const heartbeat = setInterval(() => env.heartbeat(progress()), toolLimits.heartbeatIntervalMs);
    env.signal.addEventListener('abort', onAbort, { once: true });
    env.heartbeat(progress());

    const finish = (ending: Ending): void => {
      if (settled) return;
      settled = true;
      stopWatchdog();
      clearTimeout(timeout);
      clearInterval(heartbeat);
      if (killTimer) clearTimeout(killTimer);
      env.signal.removeEventListener('abort', onAbort);
      for (const stream of streams) stream.destroy();
      resolve(ending);
    };

    for (const stream of streams) {
      const decoder = new StringDecoder('utf8');
      stream.on('data', (chunk: Buffer) => output.append(decoder.write(chunk)));
      stream.on('end', () => output.append(decoder.end()));
    }
    child.on('error', (error) => finish({ kind: 'spawn_failed', message: error.message }));
    child.on('exit', (code, signal) => {
      if (stopReason) {
        // Stopped by us: wait until every process of the group is gone, or SIGKILL was sent (zombies may linger).
        const reason = stopReason;
        const waitForGroup = (): void => {
          if (killSent || !groupAlive()) finish({ kind: reason });
          else setTimeout(waitForGroup, groupPollMs);
        };
        waitForGroup();
        return;
      }
      // Output can still sit in the pipes after the exit; background jobs may keep them open, so wait briefly.
      const drained = streams.map((stream) =>
        stream.readableEnded ? Promise.resolve() : new Promise<void>((done) => stream.once('end', done)),
      );
      const grace = new Promise<void>((done) => setTimeout(done, drainGraceMs));
      void Promise.race([Promise.all(drained), grace]).then(() => finish({ kind: 'exited', code, signal }));
    });
  });
}
