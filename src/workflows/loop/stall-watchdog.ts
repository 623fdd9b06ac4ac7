import { CancellationScope, condition, proxyLocalActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { AgentStatusSnapshot, StallReport } from '../../shared/agents/agent';
import { messageSignal } from '../../shared/protocol/definitions';
import { defaultStallTimeoutMs, type StallAction } from '../../shared/protocol/limits';
import { outputMoved, type StepOutput } from '../../shared/protocol/step-output';
import type { Activities } from '../runtime/activity-proxies';
import type { AgentParts } from './agent-parts';
import { signalBestEffort } from '../runtime/best-effort-signal';
import { workflowNowMs } from '../runtime/clock';

/** A describe of the agent's own run: quick; a failure leaves the step judged as before (stalled). */
const stepProgressActivities = proxyLocalActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 2 },
});

/** What the watchdog sees of the agent when its timer fires. */
export interface StallFacts {
  nowMs: number;
  lastChangeMs: number;
  timeoutMs: number;
  state: AgentStatusSnapshot['state'];
  currentTools: readonly string[];
  pendingApprovals: number;
  /** Whether a step idle past the timeout is asked for its output first (the watchdog always asks; unset: stalled at once). */
  readsOutput?: boolean;
  /** The step's output at the watchdog's previous look and now, once asked (src/shared/protocol/step-output.ts). */
  output?: { before: StepOutput; now: StepOutput };
}

/** The watchdog's decision: stalled, look later, not yet, ask the step's output, or its output grew. */
export type StallDecision =
  | { kind: 'stalled'; afterMs: number }
  | { kind: 'exempt' }
  | { kind: 'not_yet'; remainingMs: number }
  | { kind: 'read_output' }
  | { kind: 'producing' };

/** Whether an agent is stalled; waiting for a message, an approval or foreground children is not, nor growing output. */
export function stallDecision(facts: StallFacts): StallDecision {
  if (facts.state === 'waiting' || facts.state === 'finished' || facts.pendingApprovals > 0) return { kind: 'exempt' };
  if (
    facts.state === 'running_tools' &&
    facts.currentTools.length > 0 &&
    facts.currentTools.every((tool) => tool === 'Agent')
  )
    return { kind: 'exempt' };
  const idleMs = facts.nowMs - facts.lastChangeMs;
  if (idleMs < facts.timeoutMs) return { kind: 'not_yet', remainingMs: facts.timeoutMs - idleMs };
  const inStep = facts.state === 'calling_model' || facts.state === 'running_tools';
  if (inStep && facts.output)
    return outputMoved(facts.output.before, facts.output.now)
      ? { kind: 'producing' }
      : { kind: 'stalled', afterMs: idleMs };
  if (inStep && facts.readsOutput) return { kind: 'read_output' };
  return { kind: 'stalled', afterMs: idleMs };
}

/** The text a stalled agent's parent receives (and the reason of an automatic stop). */
export function stallText(agentId: string, report: StallReport): string {
  const seconds = Math.round(report.afterMs / 1000);
  const what =
    report.action === 'stop'
      ? 'It is being stopped (stallAction "stop").'
      : 'It is still running; stop it or send it a message if it should not wait.';
  return `Agent ${agentId} has made no progress for ${seconds}s (${report.state}: ${report.activity}). ${what}`;
}

/** The stall watchdog (docs/architecture.md): one timer per period, reports a stall and stops on stallAction "stop". */
export async function runStallWatchdog(
  agent: Pick<AgentParts, 'input' | 'progress' | 'approvals' | 'control'>,
): Promise<void> {
  const { input, progress, approvals, control } = agent;
  const timeoutMs = input.limits.stallTimeoutMs ?? defaultStallTimeoutMs;
  const action: StallAction = input.limits.stallAction ?? 'report';
  const output = new StepOutputLooks();
  // Non-cancellable: a stop must not make its sleep throw beside the ending; the run ends anyway.
  await CancellationScope.nonCancellable(async () => {
    let waitMs = timeoutMs;
    while (!progress.finished) {
      // One timer a period, left pending at the end: fewer promises than a condition with a timeout.
      await sleep(waitMs);
      if (progress.finished) return;
      const current = progress.current;
      const facts: StallFacts = {
        nowMs: workflowNowMs(),
        lastChangeMs: Math.max(progress.lastChangeMs, output.lastGrewMs),
        timeoutMs,
        state: current.state,
        currentTools: current.currentTools,
        pendingApprovals: approvals.pendingCount,
        readsOutput: true,
      };
      let decision = stallDecision(facts);
      if (decision.kind === 'read_output') {
        const changedAt = progress.lastChangeMs;
        decision = stallDecision({ ...facts, output: await output.look() });
        if (progress.finished) return;
        // The step ended or another began while it was looked at: that is progress, a period from now.
        if (progress.lastChangeMs !== changedAt) decision = { kind: 'not_yet', remainingMs: timeoutMs };
      }
      if (decision.kind === 'producing') output.grewNow();
      if (decision.kind !== 'stalled') {
        waitMs = decision.kind === 'not_yet' ? decision.remainingMs : timeoutMs;
        continue;
      }
      const stalledAt = progress.lastChangeMs;
      const activity =
        current.currentTools.length > 0
          ? `running ${current.currentTools.join(', ')}`
          : current.state === 'calling_model'
            ? 'calling the model'
            : current.state;
      const report: StallReport = {
        sinceMs: facts.lastChangeMs,
        afterMs: decision.afterMs,
        state: current.state,
        activity,
        action,
      };
      progress.stalledNow(report);
      if (input.parentAgentId)
        await signalBestEffort(input.parentAgentId, messageSignal, {
          from: input.agentId,
          text: stallText(input.agentId, report),
        });
      if (action === 'stop') {
        control.stopSelf({
          by: 'stall watchdog',
          reason: `no progress for ${Math.round(decision.afterMs / 1000)}s (${activity})`,
        });
        return;
      }
      // Reported once: look again after the next state change.
      await condition(() => progress.finished || progress.lastChangeMs !== stalledAt);
      waitMs = timeoutMs;
    }
  });
}

/** The watchdog's looks at the running step's output: what it saw last, and when it last saw it grow. */
class StepOutputLooks {
  private seen: StepOutput = {};
  /** Workflow time the step's output was last seen growing (0: never). */
  lastGrewMs = 0;

  /** The output at the last look and now; a failed look sees nothing new, and the step is judged as before. */
  async look(): Promise<{ before: StepOutput; now: StepOutput }> {
    const before = this.seen;
    const { workflowId, runId } = workflowInfo();
    try {
      this.seen = await stepProgressActivities.readStepOutput({ workflowId, runId });
    } catch {
      this.seen = before;
    }
    return { before, now: this.seen };
  }

  grewNow(): void {
    this.lastGrewMs = workflowNowMs();
  }
}
