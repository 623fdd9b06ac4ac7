import { CancellationScope, condition } from '@temporalio/workflow';
import { z } from 'zod';
import { effortLevels } from '../../shared/agents/effort';
import { totalTokens } from '../../shared/model/messages';
import { ErrorType, errorText } from '../../shared/protocol/errors';
import { agentCallKey, JournalReplay } from '../../shared/scripts/script-journal';
import { schemaPreflight } from '../../shared/scripts/schema-preflight';
import { scriptLimits, type ScriptRunSpec } from '../../shared/scripts/script-run';
import type { AgentParts } from '../loop/agent-parts';
import { prepareScriptOn } from '../tools/workspace-activities';
import type { AgentSlots } from './agent-slots';
import type { RunView } from './run-view';
import { runScriptInVm, type ScriptHost } from './vm/script-vm';
import { isTreeFullRefusal } from '../tree/spawn-limits';

/** What `agent(prompt, opts)` accepts (docs/workflows.md); anything else is refused by name. */
const agentOptionsSchema = z
  .object({
    label: z.string().max(200).optional(),
    phase: z.string().max(scriptLimits.maxLogChars).optional(),
    agentType: z.string().min(1).max(200).optional(),
    model: z.string().min(1).max(200).optional(),
    isolation: z.literal('worktree').optional(),
    schema: z.record(z.string(), z.unknown()).optional(),
    effort: z.enum(effortLevels).optional(),
  })
  .strict();
type AgentOptions = z.infer<typeof agentOptionsSchema>;

/** What every script of a run shares, a nested `workflow()` included: the call counter, slots, view and journal. */
export interface RunShared {
  readonly agent: Pick<AgentParts, 'input' | 'state' | 'children' | 'agentTool'>;
  readonly spec: ScriptRunSpec;
  readonly view: RunView;
  readonly slots: AgentSlots;
  readonly replay: JournalReplay;
  /** `agent()` calls so far (their numbers, in call order). */
  calls: number;
  /** Calls holding a slot now: starting, or waiting for their agent. */
  inFlight: number;
  /** Calls that gave their slot back. */
  ended: number;
}

/** The script API's host side: each `agent()` call becomes a child agent of the run (docs/workflows.md). */
export class RunHost implements ScriptHost {
  constructor(
    private readonly shared: RunShared,
    private readonly nested = false,
  ) {}

  get budgetTotal(): number | null {
    return this.shared.spec.tokenBudget ?? null;
  }

  /** Tokens of the run's finished agents (settled usage: the same on replay). */
  budgetSpent(): number {
    return totalTokens(this.shared.agent.state.treeUsage);
  }

  log(text: string): void {
    this.shared.view.log(text);
  }

  phase(title: string): void {
    this.shared.view.enterPhase(title);
  }

  async agent(prompt: string, rawOptions: Record<string, unknown>): Promise<unknown> {
    const { shared } = this;
    const options = parseOptions(prompt, rawOptions);
    if (shared.calls >= scriptLimits.maxAgentsPerRun)
      throw new Error(
        `a run may start at most ${scriptLimits.maxAgentsPerRun} agents; this was call ${shared.calls + 1}.`,
      );
    const total = this.budgetTotal;
    if (total !== null && this.budgetSpent() >= total)
      throw new Error(
        `the run's budget of ${total} tokens is spent (${this.budgetSpent()} used); no agent was started.`,
      );
    if (CancellationScope.current().consideredCancelled) throw new Error('the run is stopping; no agent was started.');
    shared.calls += 1;
    const index = shared.calls;
    const key = agentCallKey(prompt, rawOptions);
    const call = {
      index,
      label: options.label ?? firstLine(prompt),
      ...((options.phase ?? shared.view.currentPhase) ? { phase: options.phase ?? shared.view.currentPhase } : {}),
      agentType: options.agentType ?? 'general-purpose',
      ...(options.model ? { model: options.model } : {}),
    };
    const reused = shared.replay.take(index, key);
    if (reused) {
      shared.view.reused(call, reused, shared.spec.resumeFrom!.runId);
      return reused.value ?? null;
    }
    if (options.schema) {
      const refusal = schemaPreflight(options.schema);
      if (refusal) throw new Error(`opts.schema: ${refusal}`);
    }
    shared.view.queued(call);
    await shared.slots.acquire();
    shared.inFlight += 1;
    try {
      return await this.run(index, key, prompt, options, call.label);
    } finally {
      shared.inFlight -= 1;
      shared.ended += 1;
      shared.slots.release();
    }
  }

  /** Starts the call's agent, waits for its end and records it. */
  private async run(
    index: number,
    key: string,
    prompt: string,
    options: AgentOptions,
    label: string,
  ): Promise<unknown> {
    const { agent, view } = this.shared;
    const start = () =>
      agent.agentTool.startForScript(
        `script-call-${index}`,
        {
          description: label,
          prompt,
          subagent_type: options.agentType ?? 'general-purpose',
          ...(options.model ? { model: options.model } : {}),
          ...(options.isolation ? { isolation: options.isolation } : {}),
        },
        {
          scriptRunId: agent.input.agentId,
          ...(options.schema ? { outputSchema: options.schema } : {}),
          ...(options.effort ? { effort: options.effort } : {}),
        },
      );
    let started = await start();
    // A full tree makes the call wait for one of the run's own agents to end, as a slot of the run would.
    while (!started.ok && isTreeFullRefusal(started.error) && this.shared.inFlight > 1) {
      const ended = this.shared.ended;
      await condition(() => this.shared.ended > ended);
      started = await start();
    }
    if (!started.ok) {
      view.ended(index, { key, agentId: '', status: 'failed', error: started.error, tokens: 0 });
      throw new Error(started.error);
    }
    view.started(index, started.agentId);
    await condition(() => agent.children.find(started.agentId)?.result !== undefined);
    const result = agent.children.find(started.agentId)!.result!;
    const tokens = totalTokens(result.treeUsage);
    const entry = { key, agentId: result.agentId, tokens };
    if (result.status === 'completed') {
      const value = options.schema ? (result.structured ?? null) : result.finalText;
      view.ended(index, { ...entry, status: 'completed', value });
      return value;
    }
    const error = result.error ?? result.status;
    // An agent that could not submit a valid object makes its call throw (Claude Code); a stopped or failed one gives null.
    const schemaFailed =
      options.schema !== undefined &&
      (error.startsWith(ErrorType.StructuredOutputMissing) || error.startsWith(ErrorType.InvalidOutputSchema));
    view.ended(index, { ...entry, status: result.status === 'failed' ? 'failed' : 'cancelled', error });
    if (schemaFailed) throw new Error(error);
    return null;
  }

  /** `workflow(name | {scriptPath}, args)`: another saved script, run inline in this run with the same limits. */
  async workflow(target: unknown, args: unknown): Promise<unknown> {
    if (this.nested) throw new Error('workflow() nests one level only: a nested script cannot start another.');
    const reference = scriptReference(target);
    const { input, state } = this.shared.agent;
    const prepared = await prepareScriptOn(input.workspaceWorker, {
      ...reference,
      cwd: state.cwd,
      workspaceRoot: state.workspaceRoot,
    });
    if (!prepared.ok) throw new Error(prepared.error);
    this.log(`workflow ${prepared.script.meta.name} started (nested in ${input.agentId})`);
    const outcome = await runScriptInVm(prepared.script.body, args, new RunHost(this.shared, true), { nested: true });
    if (!outcome.ok) throw new Error(`workflow ${prepared.script.meta.name} failed: ${outcome.error}`);
    return outcome.value;
  }
}

/** The call's options, checked; a wrong one throws into the script with what to fix. */
function parseOptions(prompt: unknown, raw: Record<string, unknown>): AgentOptions {
  if (typeof prompt !== 'string' || prompt.trim() === '')
    throw new Error('agent(prompt, opts): prompt must be a non-empty string.');
  if (prompt.length > scriptLimits.maxPromptChars)
    throw new Error(
      `agent(prompt, opts): the prompt has ${prompt.length} characters (limit ${scriptLimits.maxPromptChars}).`,
    );
  if (JSON.stringify(raw ?? {}).length > scriptLimits.maxAgentOptionsBytes)
    throw new Error(`agent(prompt, opts): opts are larger than ${scriptLimits.maxAgentOptionsBytes} bytes of JSON.`);
  const parsed = agentOptionsSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'opts'}: ${issue.message}`);
    throw new Error(
      `agent(prompt, opts): ${problems.join('; ')}. Allowed options: ${Object.keys(agentOptionsSchema.shape).join(', ')}.`,
    );
  }
  return parsed.data;
}

/** `workflow()`'s first argument: a saved script's name or `{ scriptPath }`. */
function scriptReference(target: unknown): { name: string } | { scriptPath: string } {
  if (typeof target === 'string' && target !== '') return { name: target };
  if (
    typeof target === 'object' &&
    target !== null &&
    typeof (target as { scriptPath?: unknown }).scriptPath === 'string'
  )
    return { scriptPath: (target as { scriptPath: string }).scriptPath };
  throw new Error(
    errorText(ErrorType.InvalidScript, "workflow(nameOrRef, args): give a saved script's name or { scriptPath }."),
  );
}

/** A label for a call without one: the prompt's first line, shortened. */
function firstLine(prompt: string): string {
  const line = prompt.trim().split('\n')[0] ?? '';
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}
