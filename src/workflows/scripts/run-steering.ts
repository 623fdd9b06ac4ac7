import { condition } from '@temporalio/workflow';
import { steerSignal } from '../../shared/protocol/definitions';
import type { AgentParts } from '../loop/agent-parts';
import { signalBestEffort } from '../runtime/best-effort-signal';

/** Steering and messages sent to a run go on to each of its running agents (docs/workflows.md); it runs beside the script. */
export async function forwardSteering(
  agent: Pick<AgentParts, 'input' | 'inbox' | 'children' | 'progress'>,
): Promise<void> {
  const { input, inbox, children, progress } = agent;
  for (;;) {
    await condition(() => inbox.size > 0 || progress.finished);
    if (progress.finished) return;
    const texts = inbox.drain();
    inbox.markSent();
    const running = children.snapshot().filter((child) => child.status === 'running');
    for (const text of texts)
      for (const child of running) await signalBestEffort(child.agentId, steerSignal, { text, by: input.agentId });
  }
}
