import { CancellationScope, log } from '@temporalio/workflow';
import type { CommandHook } from '../../shared/policy/hook-handlers';
import type { HookVerdict } from '../../shared/policy/hook-outcome';
import { runHookHandler, type HookEventRun, type HookRunningAgent } from './hook-handler-run';

/** What an async hook needs of its agent: running it, and an inbox for what it says (without one: kept for `status`). */
export interface AsyncHookAgent extends HookRunningAgent {
  readonly inbox?: { pushNotification(text: string): void };
}

// Per agent run: the async hooks still running (keyed by the run's state object, so runs never share).
const running = new WeakMap<object, Set<Promise<void>>>();

/** Starts an async command hook without waiting for it; when it ends, its `additionalContext` and `systemMessage` reach the agent. */
export function startAsyncHook(agent: AsyncHookAgent, hook: CommandHook, run: HookEventRun): void {
  const hooks = running.get(agent.state) ?? new Set<Promise<void>>();
  running.set(agent.state, hooks);
  // Not cancellable: an interrupted turn or a stopping agent does not cut it (its activity ignores cancellation too).
  const done: Promise<void> = CancellationScope.nonCancellable(() => runHookHandler(agent, hook, run))
    .then((verdict) => deliver(agent, run.event, verdict))
    .catch((error: unknown) => log.warn(`${agent.input.agentId}: async ${run.event} hook: ${(error as Error).message}`))
    .finally(() => hooks.delete(done));
  hooks.add(done);
}

/** Async hooks of this run still running. */
export function asyncHooksRunning(agent: Pick<AsyncHookAgent, 'state'>): number {
  return running.get(agent.state)?.size ?? 0;
}

/** Waits until every async hook of this run has ended (each is bounded by its own timeout). */
export async function awaitAsyncHooks(agent: Pick<AsyncHookAgent, 'state'>): Promise<void> {
  for (let hooks = running.get(agent.state); hooks && hooks.size > 0;) await Promise.all([...hooks]);
}

/** What a finished async hook says: to the agent when it has something to say (as Claude Code), else to `status`. */
function deliver(agent: AsyncHookAgent, event: string, verdict: HookVerdict): void {
  const said = verdict.kind === 'success' ? [verdict.additionalContext, verdict.notice].filter((text) => !!text) : [];
  if (said.length > 0 && !agent.inbox)
    agent.state.hooks.recordNotice(`${event} (async): ${verdict.command}: ${said.join(' ').slice(0, 300)}`);
  else if (said.length > 0) {
    agent.inbox!.pushNotification(
      `<hook-result event="${event}" async="true">\nThe async ${event} hook \`${verdict.command.slice(0, 200)}\` finished:\n${said.join('\n')}\n</hook-result>`,
    );
  }
  if (verdict.kind !== 'success' && verdict.notice)
    agent.state.hooks.recordNotice(`${event} (async): ${verdict.command}: ${verdict.notice}`);
  if (verdict.kind === 'blocking')
    agent.state.hooks.recordNotice(
      `${event} (async): ${verdict.command}: exit 2 cannot block an async hook's event: ${verdict.reason ?? ''}`,
    );
}
