import { CancellationScope, condition, sleep } from '@temporalio/workflow';
import type { AgentStatusSnapshot, StallReport } from '../shared/agent';
import { messageSignal } from '../shared/definitions';
import { defaultStallTimeoutMs, type StallAction } from '../shared/limits';
import type { AgentParts } from './agent-parts';
import { signalBestEffort } from './best-effort-signal';
import { workflowNowMs } from './clock';
import { onPatchBaseline } from './patches';

/** Patch id of the stall watchdog (docs/testing.md, patch table): its timers are new commands. */
export const stallWatchdogPatch = 'stall-watchdog';

/** What the watchdog sees of the agent when its timer fires. */
export interface StallFacts {
  nowMs: number;
  lastChangeMs: number;
  timeoutMs: number;
  state: AgentStatusSnapshot['state'];
  currentTools: readonly string[];
  pendingApprovals: number;
}

/** The watchdog's decision: a stall, nothing to judge now (look again later), or not yet. */
export type StallDecision =
  | { kind: 'stalled'; afterMs: number }
  | { kind: 'exempt' }
  | { kind: 'not_yet'; remainingMs: number };

/**
 * Whether an agent is stalled. Waiting is not stalling: for the next message (an idle interactive
 * agent), for a person's approval, or for foreground subagents only (they have watchdogs of their own).
 */
export function stallDecision(facts: StallFacts): StallDecision {
  if (facts.state === 'waiting' || facts.state === 'finished' || facts.pendingApprovals > 0) return { kind: 'exempt' };
  if (facts.state === 'running_tools' && facts.currentTools.length > 0 && facts.currentTools.every((tool) => tool === 'Agent')) return { kind: 'exempt' };
  const idleMs = facts.nowMs - facts.lastChangeMs;
  if (idleMs >= facts.timeoutMs) return { kind: 'stalled', afterMs: idleMs };
  return { kind: 'not_yet', remainingMs: facts.timeoutMs - idleMs };
}

/** The text a stalled agent's parent receives (and the reason of an automatic stop). */
export function stallText(agentId: string, report: StallReport): string {
  const seconds = Math.round(report.afterMs / 1000);
  const what = report.action === 'stop' ? 'It is being stopped (stallAction "stop").' : 'It is still running; stop it or send it a message if it should not wait.';
  return `Agent ${agentId} has made no progress for ${seconds}s (${report.state}: ${report.activity}). ${what}`;
}

/**
 * The stall watchdog (docs/architecture.md, Stall watchdog): sleeps until the agent's last state
 * change is `stallTimeoutMs` old, and then reports a stall to the status, the UI and the parent, and
 * with stallAction "stop" stops the agent. One timer per timeout period at most, so a busy agent's
 * history does not grow with it. Runs beside the query loop until the agent finishes.
 */
export async function runStallWatchdog(agent: AgentParts): Promise<void> {
  const { input, progress, approvals, control } = agent;
  const timeoutMs = input.limits.stallTimeoutMs ?? defaultStallTimeoutMs;
  const action: StallAction = input.limits.stallAction ?? 'report';
  // A run on the patch baseline sleeps through each period and looks then: the run ends with the timer
  // pending instead of cancelling it, and one timer costs far fewer promises than a condition with a
  // timeout (src/workflows/patches.ts). Runs recorded before keep the condition.
  const lean = onPatchBaseline();
  // Non-cancellable: a stop must not make its sleep throw beside the ending; the run ends anyway.
  await CancellationScope.nonCancellable(async () => {
    let waitMs = timeoutMs;
    while (!progress.finished) {
      if (lean) {
        await sleep(waitMs);
        if (progress.finished) return;
      } else if (await condition(() => progress.finished, waitMs)) return;
      const current = progress.current;
      const decision = stallDecision({
        nowMs: workflowNowMs(), lastChangeMs: progress.lastChangeMs, timeoutMs, state: current.state, currentTools: current.currentTools, pendingApprovals: approvals.pendingCount,
      });
      if (decision.kind !== 'stalled') {
        waitMs = decision.kind === 'not_yet' ? decision.remainingMs : timeoutMs;
        continue;
      }
      const stalledAt = progress.lastChangeMs;
      const activity = current.currentTools.length > 0 ? `running ${current.currentTools.join(', ')}` : current.state === 'calling_model' ? 'calling the model' : current.state;
      const report: StallReport = { sinceMs: stalledAt, afterMs: decision.afterMs, state: current.state, activity, action };
      progress.stalledNow(report);
      if (input.parentAgentId) await signalBestEffort(input.parentAgentId, messageSignal, { from: input.agentId, text: stallText(input.agentId, report) });
      if (action === 'stop') {
        control.stopSelf({ by: 'stall watchdog', reason: `no progress for ${Math.round(decision.afterMs / 1000)}s (${activity})` });
        return;
      }
      // Reported once: look again after the next state change.
      await condition(() => progress.finished || progress.lastChangeMs !== stalledAt);
      waitMs = timeoutMs;
    }
  });
}
