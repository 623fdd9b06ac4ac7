import { condition } from '@temporalio/workflow';
import { messageSignal, steerSignal } from '../../shared/protocol/definitions';
import type { AgentParts } from '../loop/agent-parts';
import { signalBestEffort } from '../runtime/best-effort-signal';

/** Steering and messages sent to a run go on to each of its running agents (docs/workflows.md); it runs beside the script. */
export async function forwardSteering(agent: Pick<AgentParts, 'inbox' | 'children' | 'progress'>): Promise<void> {
  const { inbox, children, progress } = agent;
  for (;;) {
    await condition(() => inbox.size > 0 || progress.finished);
    if (progress.finished) return;
    const items = inbox.takeAll();
    const running = children.snapshot().filter((child) => child.status === 'running');
    for (const item of items) {
      // Notifications are the run's own (none is expected); only what a person or agent sent is passed on.
      if (item.body === undefined || item.from === undefined) continue;
      for (const child of running) {
        if (item.kind === 'steer')
          await signalBestEffort(child.agentId, steerSignal, { text: item.body, by: item.from });
        else await signalBestEffort(child.agentId, messageSignal, { from: item.from, text: item.body });
      }
    }
  }
}
