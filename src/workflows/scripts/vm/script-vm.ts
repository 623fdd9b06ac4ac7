// Runs a model-written orchestration script in its own QuickJS instance, with a promise bridge to the workflow.
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime } from 'quickjs-emscripten-core';
import { scriptLimits } from '../../../shared/scripts/script-run';
import { preludeSource, type PreludeConfig } from './prelude';
import { newQuickJsInstance } from './quickjs-instance';

/** What a script's API calls reach: the run's workflow. Values cross as JSON only. */
export interface ScriptHost {
  /** One `agent()` call; resolves to a JSON value or null, a rejection becomes Error(message) in the script. */
  agent(prompt: string, options: Record<string, unknown>): Promise<unknown>;
  /** One `workflow()` call (never called for a nested run). */
  workflow(target: unknown, args: unknown): Promise<unknown>;
  log(text: string): void;
  phase(title: string): void;
  readonly budgetTotal: number | null;
  budgetSpent(): number;
}

/** The caps of one run; ticks are interrupt-handler calls (QuickJS makes one about every 10,000 operations). */
export interface ScriptVmLimits {
  /** Hard cap of the instance's linear memory (64 KB pages; 16 MB at least, the build's initial memory). */
  memoryBytes: number;
  /** Ticks one synchronous stretch of the script may use (keeps an activation far under the SDK's 5 s limit). */
  ticksPerDrain: number;
  /** Ticks of the whole run. */
  totalTicks: number;
  /** Promise jobs one stretch may run (an endless promise chain does little work per job). */
  maxJobsPerDrain: number;
  /** QuickJS stack bytes (deep recursion ends in a catchable `InternalError: stack overflow`). */
  stackBytes: number;
}

/**
 * Defaults, measured on 2 busy cores: 100 ticks are 0.15–0.4 s of plain loops but up to ~2.5 s of builtin-heavy ones
 * (ticks count interpreted steps, not work inside JSON.stringify and the like); a parallel() of 4,096 agent() calls
 * uses under 30. 64 KB of stack is ~360 plain recursive calls: small enough that QuickJS's own check fires before
 * the host's stack runs out (that one ends the run; QuickJS's is catchable, so which fires first must not vary).
 */
export const defaultScriptVmLimits: ScriptVmLimits = {
  memoryBytes: 64 * 1024 * 1024,
  ticksPerDrain: 100,
  totalTicks: 20_000,
  maxJobsPerDrain: 100_000,
  stackBytes: 64 * 1024,
};

/** How a run ended: its JSON result, or why not. */
export type ScriptOutcome =
  | { ok: true; value: unknown }
  | { ok: false; error: string; kind: 'syntax' | 'thrown' | 'limit' | 'deadlock' | 'result' };

type Failure = Extract<ScriptOutcome, { ok: false }>;

/** Promise jobs run per executePendingJobs call, so the job cap is checked between batches. */
const jobBatch = 1_000;
/** QuickJS errors that mean a cap was reached, not a fault of the script's logic. */
const limitMessages = /^InternalError: (out of memory|stack overflow|interrupted)/;

/**
 * Runs `body` (the script without its header) as a strict async function: top-level await and return work; the
 * value returned must be JSON. One QuickJS instance per call (fresh heap: the same on every replay), never disposed:
 * dropped with the run, since disposing after an abort or a stack overflow can trip QuickJS's assertions.
 */
export async function runScriptInVm(
  body: string,
  args: unknown,
  host: ScriptHost,
  options: { limits?: Partial<ScriptVmLimits>; nested?: boolean } = {},
): Promise<ScriptOutcome> {
  const limits = { ...defaultScriptVmLimits, ...options.limits };
  const argsJson = args === undefined ? undefined : JSON.stringify(args);
  const quickJs = await newQuickJsInstance(limits.memoryBytes);
  const runtime = quickJs.newRuntime();
  // Secondary: it undercounts big strings in this build, but catches many small objects early.
  runtime.setMemoryLimit(limits.memoryBytes);
  runtime.setMaxStackSize(limits.stackBytes);
  const run = new ScriptRun(runtime, runtime.newContext(), host, limits);
  return run.start(body, {
    argsJson,
    budgetTotal: host.budgetTotal,
    nested: options.nested ?? false,
    limits: {
      maxListItems: scriptLimits.maxListItems,
      maxPromptChars: scriptLimits.maxPromptChars,
      maxAgentOptionsBytes: scriptLimits.maxAgentOptionsBytes,
      maxResultBytes: scriptLimits.maxResultBytes,
      maxLogChars: scriptLimits.maxLogChars,
    },
  });
}

/** One run's state: the tick counters, the host calls still out, and how it ends. */
class ScriptRun {
  private ticks = 0;
  private drainTicks = 0;
  private limitHit: string | undefined;
  private outstanding = 0;
  private drainQueued = false;
  private finished = false;
  private scriptPromise: QuickJSHandle | undefined;
  private api: { resultJson: QuickJSHandle; describe: QuickJSHandle } | undefined;
  private resolveOutcome: (outcome: ScriptOutcome) => void = () => {};

  constructor(
    private readonly runtime: QuickJSRuntime,
    private readonly context: QuickJSContext,
    private readonly host: ScriptHost,
    private readonly limits: ScriptVmLimits,
  ) {
    runtime.setInterruptHandler(() => this.tick());
  }

  start(body: string, config: PreludeConfig): Promise<ScriptOutcome> {
    const outcome = new Promise<ScriptOutcome>((resolve) => (this.resolveOutcome = resolve));
    this.guard(() => {
      this.installPrelude(config);
      // Same line as the body's first: error lines are the script's own.
      const evaluated = this.context.evalCode(`(async () => { 'use strict'; ${body}\n})()`, 'script.js', {
        type: 'global',
      });
      if (evaluated.error) {
        const failure = this.failureOf(evaluated.error, 'syntax');
        evaluated.error.dispose();
        return this.finish(failure);
      }
      this.scriptPromise = evaluated.value;
      this.drain();
    });
    return outcome;
  }

  /** Interrupt handler: true stops the script (an uncatchable InternalError: interrupted). */
  private tick(): boolean {
    this.ticks++;
    this.drainTicks++;
    if (this.limitHit === undefined && this.drainTicks > this.limits.ticksPerDrain)
      this.limitHit = `the script computed for more than ${this.limits.ticksPerDrain} ticks without waiting for an agent (an endless loop?); orchestrate, do not compute`;
    if (this.limitHit === undefined && this.ticks > this.limits.totalTicks)
      this.limitHit = `the script used its whole CPU budget of ${this.limits.totalTicks} ticks`;
    return this.limitHit !== undefined;
  }

  /** Defines the script API (host functions reach the prelude as arguments, never the global object). */
  private installPrelude(config: PreludeConfig): void {
    const { context } = this;
    const prelude = context.unwrapResult(context.evalCode(preludeSource, 'prelude.js', { type: 'global' }));
    const hostObject = context.newObject();
    const define = (name: string, implementation: (...handles: QuickJSHandle[]) => QuickJSHandle | void) =>
      context.newFunction(name, implementation).consume((handle) => context.setProp(hostObject, name, handle));
    define('agent', (prompt, optionsJson) =>
      this.hostCall(() => this.host.agent(context.getString(prompt!), JSON.parse(context.getString(optionsJson!)))),
    );
    define('workflow', (targetJson, argsJson) =>
      this.hostCall(() =>
        this.host.workflow(
          JSON.parse(context.getString(targetJson!)),
          context.typeof(argsJson!) === 'string' ? JSON.parse(context.getString(argsJson!)) : undefined,
        ),
      ),
    );
    // Braces: whatever the host's log() returns must not reach QuickJS (it takes a truthy return for a handle).
    define('log', (text) => {
      this.host.log(context.getString(text!));
    });
    define('phase', (title) => {
      this.host.phase(context.getString(title!));
    });
    define('spent', () => context.newNumber(this.host.budgetSpent()));
    const configHandle = context.newString(JSON.stringify(config));
    const api = context.unwrapResult(context.callFunction(prelude, context.undefined, hostObject, configHandle));
    this.api = { resultJson: context.getProp(api, 'resultJson'), describe: context.getProp(api, 'describe') };
    for (const handle of [prelude, hostObject, configHandle, api]) handle.dispose();
  }

  /** A host promise as a QuickJS promise of its JSON text; the script continues in the drain after it settles. */
  private hostCall(call: () => Promise<unknown>): QuickJSHandle {
    const { context } = this;
    const deferred = context.newPromise();
    this.outstanding++;
    let settle: Promise<unknown>;
    try {
      settle = call();
    } catch (error) {
      settle = Promise.reject(error);
    }
    settle
      .then((value) => JSON.stringify(value ?? null))
      .then(
        (json) => this.settle(() => context.newString(json).consume((handle) => deferred.resolve(handle))),
        (error: unknown) =>
          this.settle(() => context.newError(errorMessage(error)).consume((handle) => deferred.reject(handle))),
      )
      // settle() never throws (guard); the deferred's resolvers dispose themselves when used.
      .catch(() => {});
    return deferred.handle;
  }

  private settle(deliver: () => void): void {
    this.outstanding--;
    if (this.finished) return;
    this.guard(deliver);
    if (this.finished || this.drainQueued) return;
    // Settlements arriving in the same microtask turn share one drain (and one tick budget).
    this.drainQueued = true;
    void Promise.resolve().then(() => {
      this.drainQueued = false;
      if (!this.finished) this.guard(() => this.drain());
    });
  }

  /** Runs the script's pending promise jobs, then ends the run if it settled, hit a cap, or can never continue. */
  private drain(): void {
    const { runtime, context } = this;
    this.drainTicks = 0;
    let jobs = 0;
    while (this.limitHit === undefined && runtime.hasPendingJob()) {
      if (jobs >= this.limits.maxJobsPerDrain)
        return this.finish({
          ok: false,
          kind: 'limit',
          error: `the script ran more than ${this.limits.maxJobsPerDrain} promise jobs without waiting for an agent (an endless promise chain?)`,
        });
      const executed = runtime.executePendingJobs(jobBatch);
      if (executed.error) {
        const failure = this.failureOf(executed.error, 'thrown');
        executed.error.dispose();
        return this.finish(failure);
      }
      jobs += executed.value;
    }
    if (this.limitHit !== undefined) return this.finish({ ok: false, kind: 'limit', error: this.limitHit });
    const state = context.getPromiseState(this.scriptPromise!);
    if (state.type === 'fulfilled') {
      const result = context.callFunction(this.api!.resultJson, context.undefined, state.value);
      state.value.dispose();
      if (result.error) {
        const failure = this.failureOf(result.error, 'result');
        result.error.dispose();
        return this.finish(failure);
      }
      const json = result.value.consume((handle) => context.getString(handle));
      return this.finish({ ok: true, value: JSON.parse(json) });
    }
    if (state.type === 'rejected') {
      const failure = this.failureOf(state.error, 'thrown');
      state.error.dispose();
      return this.finish(failure);
    }
    if (this.outstanding === 0)
      this.finish({
        ok: false,
        kind: 'deadlock',
        error:
          'the script awaits a promise nothing will settle (no agent() or workflow() call is running); ' +
          'await only promises from agent(), workflow(), parallel() and pipeline()',
      });
  }

  /** The run's failure for a QuickJS error value: a cap reached, or `kind` with the script's own message. */
  private failureOf(error: QuickJSHandle, kind: Failure['kind']): Failure {
    if (this.limitHit !== undefined) return { ok: false, kind: 'limit', error: this.limitHit };
    const { context } = this;
    const described = context.callFunction(this.api!.describe, context.undefined, error);
    const text = described.error
      ? described.error.consume(() => String(context.dump(error)))
      : described.value.consume((handle) => context.getString(handle));
    if (this.limitHit !== undefined) return { ok: false, kind: 'limit', error: this.limitHit };
    return limitMessages.test(text)
      ? { ok: false, kind: 'limit', error: limitText(text) }
      : { ok: false, kind, error: text };
  }

  /** Runs a step against the VM; a wasm abort (a trap inside QuickJS) ends the run and the instance is never touched again. */
  private guard(step: () => void): void {
    try {
      step();
    } catch (error) {
      const text = errorMessage(error);
      this.finish({
        ok: false,
        kind: 'limit',
        error:
          this.limitHit ??
          (/call stack/i.test(text)
            ? `the script nests too deep (recursion, or deeply nested data or code): ${text}`
            : `the script's interpreter stopped: ${text} (out of memory?)`),
      });
    }
  }

  private finish(outcome: ScriptOutcome): void {
    if (this.finished) return;
    this.finished = true;
    this.resolveOutcome(outcome);
  }
}

/** Duck-typed: errors from the wasm instance or another realm are not `instanceof Error` here. */
function errorMessage(error: unknown): string {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(error);
}

function limitText(text: string): string {
  if (text.includes('out of memory')) return `the script ran out of memory: ${text}`;
  if (text.includes('stack overflow')) return `the script recursed too deep: ${text}`;
  return text;
}
