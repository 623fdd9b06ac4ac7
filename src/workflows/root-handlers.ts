import { getExternalWorkflowHandle, setHandler } from '@temporalio/workflow';
import type { AgentWorkflowInput } from '../shared/agent';
import {
  answerApprovalUpdate,
  approvalRequestSignal,
  approvalsQuery,
  pauseSpawningSignal,
  stopNoticeSignal,
  treeAgentEventSignal,
  treeAgentStartedSignal,
  treeQuery,
  treeSpawnReplySignal,
  treeSpawnRequestSignal,
} from '../shared/definitions';
import type { AgentRuntime } from './agent-runtime';
import { answerApproval, receiveApprovalRequest } from './approvals';
import { workflowNowMs } from './clock';
import type { TreeCoordinator } from './tree-coordinator';

/** Handlers only a root has: it coordinates its tree (limits, budget, listing, pause, approvals). */
export function installRootHandlers(runtime: AgentRuntime, tree: TreeCoordinator): void {
  const { input } = runtime;
  setHandler(treeSpawnRequestSignal, async (request) => {
    const decision = tree.request(request.childId);
    await getExternalWorkflowHandle(request.requesterId)
      .signal(treeSpawnReplySignal, { requestId: request.requestId, granted: decision.granted, reason: decision.granted ? undefined : decision.reason })
      .catch(() => tree.finished(request.childId, workflowNowMs()));
  });
  setHandler(treeAgentStartedSignal, (event) => tree.started(event, workflowNowMs()));
  setHandler(treeAgentEventSignal, async (event) => {
    if (event.kind === 'finished') tree.finished(event.agentId, workflowNowMs());
    if (event.usage && tree.addUsage(event.usage)) await enforceTreeBudget(tree, input);
  });
  setHandler(pauseSpawningSignal, ({ paused }) => {
    tree.paused = paused;
  });
  setHandler(treeQuery, () => tree.snapshot());
  setHandler(approvalsQuery, () => [...tree.approvals.values()]);
  setHandler(approvalRequestSignal, (request) => receiveApprovalRequest(request, runtime));
  setHandler(answerApprovalUpdate, async (decision) => {
    await answerApproval(decision, runtime);
    return { delivered: true as const };
  }, {
    validator: (decision) => {
      if (!tree.approvals.has(decision.requestId)) {
        const pending = [...tree.approvals.keys()];
        throw new Error(`No pending approval request "${decision.requestId}". Pending: ${pending.length > 0 ? pending.join(', ') : '(none)'}.`);
      }
    },
  });
}

/** At the tree's token budget: stop every running background agent, saying why. */
export async function enforceTreeBudget(tree: TreeCoordinator, input: AgentWorkflowInput): Promise<void> {
  const reason = `the tree's token budget of ${input.limits.treeTokenBudget} tokens was reached (${tree.tokensUsed} used)`;
  for (const agentId of tree.runningBackgroundAgents()) {
    const handle = getExternalWorkflowHandle(agentId);
    await handle.signal(stopNoticeSignal, { by: 'budget', reason }).catch(() => undefined);
    await handle.cancel().catch(() => undefined);
  }
}
