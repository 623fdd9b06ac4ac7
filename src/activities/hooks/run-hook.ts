// `runHook`: one hook handler (a sandboxed command, an http POST, a prompt), interpreted here so the history records its decision (docs/hooks.md).
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
import type Anthropic from '@anthropic-ai/sdk';
import type { Client } from '@temporalio/client';
import { noPrivateAddresses, type PrivateAddressAllowance } from '../../shared/policy/address-policy';
import type { HttpHook, PromptHook } from '../../shared/policy/hook-handlers';
import { interpretHttpAnswer, interpretPromptAnswer } from '../../shared/policy/hook-answers';
import { chargeBudget } from '../budget-charge';
import { defaultHttpHookPolicy, postHookEvent, type HttpHookPolicy } from './http-hook';
import { askPromptHook } from './prompt-hook';
import { HookTranscripts, hookTranscriptsHome } from './hook-transcript';

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

/** What the hook activities need beyond the shell: the model client (prompt hooks) and the egress rules (http hooks). */
export interface HookActivityOptions {
  shell?: ShellOptions;
  anthropic?: Anthropic;
  /** Private addresses http hooks may reach (the web tools' setting); default none. */
  allowPrivateAddresses?: PrivateAddressAllowance;
  /** Prompt hooks' model when the hook names none (the web tools' small model; default haiku). */
  smallModel?: string;
  /** Charges a budgeted tree's ledger for a prompt hook's call (docs/budgets.md). */
  temporalClient?: Client;
  /** Whose ~/.subagents holds the hook transcripts (transcript_path; default os.homedir(), SUBAGENTS_HOME first). */
  homeDir?: string;
}

/** Creates `runHook`: a command, http or prompt handler, by `input.handler`. */
export function createHookActivities(options: HookActivityOptions) {
  const policy = defaultHttpHookPolicy(options.allowPrivateAddresses ?? noPrivateAddresses);
  const transcripts = new HookTranscripts(options.temporalClient, {
    home: hookTranscriptsHome(process.env, options.homeDir),
  });
  return {
    async runHook(hookInput: HookRunInput): Promise<HookRunResult> {
      const context = Context.current();
      // transcript_path (docs/hooks.md): the agent's transcript file, brought up to date before the hook reads it.
      const input = await transcripts.withTranscriptPath(hookInput, context.info.workflowExecution);
      // An async hook runs to its end (or its timeout) even when the agent's run ends or is cancelled meanwhile.
      const signal = input.async ? undefined : context.cancellationSignal;
      const heartbeat = () => context.heartbeat();
      const result =
        input.handler?.type === 'http'
          ? await runHttpHook(input, input.handler, policy, signal, heartbeat)
          : input.handler?.type === 'prompt'
            ? await runPromptHook(input, input.handler, options, signal, heartbeat)
            : await runCommandHook(input, options.shell, signal, heartbeat);
      if (signal?.aborted) throw new CancelledFailure('the hook was cancelled and stopped');
      return result;
    },
  };
}

async function runCommandHook(
  input: HookRunInput,
  shell: ShellOptions | undefined,
  signal: AbortSignal | undefined,
  heartbeat: () => void,
): Promise<HookRunResult> {
  const run = await runHookProcess(input, { ...(shell ? { shell } : {}), ...(signal ? { signal } : {}), heartbeat });
  return { ...run, verdict: interpretHookRun(input.event, input.command, run) };
}

/** Runs `work` with a heartbeat every few seconds (a request or a model call sends none of its own). */
async function beating<T>(heartbeat: () => void, work: () => Promise<T>): Promise<T> {
  const timer = setInterval(heartbeat, toolLimits.heartbeatIntervalMs);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

async function runHttpHook(
  input: HookRunInput,
  hook: HttpHook,
  policy: HttpHookPolicy,
  signal: AbortSignal | undefined,
  heartbeat: () => void,
): Promise<HookRunResult> {
  const outcome = await beating(heartbeat, () =>
    postHookEvent(hook, input.payload, { policy, timeoutMs: input.timeoutMs, ...(signal ? { signal } : {}) }),
  );
  return {
    exitCode: null,
    stdout: outcome.type === 'response' ? outcome.body.slice(0, hookLimits.maxOutputChars) : '',
    stderr: '',
    verdict: interpretHttpAnswer(input.event, input.command, outcome),
  };
}

async function runPromptHook(
  input: HookRunInput,
  hook: PromptHook,
  options: HookActivityOptions,
  signal: AbortSignal | undefined,
  heartbeat: () => void,
): Promise<HookRunResult> {
  const failed = (notice: string): HookRunResult => ({
    exitCode: null,
    stdout: '',
    stderr: '',
    verdict: { command: input.command, kind: 'error', notice },
  });
  if (!options.anthropic) return failed('this worker has no model client for prompt hooks');
  const timeout = AbortSignal.timeout(input.timeoutMs);
  const call = await beating(heartbeat, () =>
    askPromptHook(options.anthropic!, hook, input.payload, {
      defaultModel: options.smallModel ?? 'haiku',
      agentId: input.agentId ?? 'hook',
      signal: AbortSignal.any([timeout, ...(signal ? [signal] : [])]),
    }).catch((error: unknown) => ({ error: (error as Error).message, model: hook.model ?? '' })),
  );
  if ('usage' in call && input.budget && options.temporalClient)
    await chargeBudget(
      options.temporalClient,
      { budget: input.budget, agentId: input.agentId ?? 'hook', model: call.model },
      Context.current().info.attempt,
      call.usage,
      { final: true, toolCalls: 0 },
    );
  if ('error' in call)
    return failed(
      timeout.aborted
        ? `the hook's model did not answer within ${input.timeoutMs / 1000} s`
        : `the hook's model call failed: ${call.error}`,
    );
  return {
    exitCode: null,
    stdout: call.answer.slice(0, hookLimits.maxOutputChars),
    stderr: '',
    verdict: interpretPromptAnswer(input.event, input.command, call.answer),
    usage: call.usage,
  };
}
