import { CancellationScope, setHandler } from '@temporalio/workflow';
import type { AgentStatusSnapshot } from '../shared/agent';
import {
  answerApprovalUpdate,
  approvalDecisionSignal,
  approvalRequestSignal,
  approvalsQuery,
  backgroundedSignal,
  childFinalSignal,
  closeSignal,
  conversationQuery,
  interruptSignal,
  messageSignal,
  pauseSpawningSignal,
  resumeStateQuery,
  statusQuery,
  steerSignal,
  steerUpdate,
  stopNoticeSignal,
  treeAgentEventSignal,
  treeAgentStartedSignal,
  treeQuery,
  treeSpawnReplySignal,
  treeSpawnRequestSignal,
  type SteerInput,
} from '../shared/definitions';
import type { AgentParts } from './agent-parts';
import { signalBestEffort } from './best-effort-signal';
import { workflowNowMs } from './clock';
import type { TreeCoordinator } from './tree-coordinator';

/**
 * Every signal, update and query handler of an agent (docs/cli.md lists them), installed first
 * thing in the workflow so nothing that arrives early is lost. Handlers only hand what arrives to
 * the part that owns it.
 */
export function installHandlers(agent: AgentParts): void {
  const { input, state, control, inbox, tree, approvals, children, progress } = agent;

  setHandler(conversationQuery, ({ from }) => ({
    systemPrompt: state.systemPrompt,
    tools: input.tools,
    ...(state.extraTools ? { extraTools: state.extraTools.descriptors.map((descriptor) => descriptor.definition) } : {}),
    messages: state.messages.slice(Math.max(0, from)),
    from,
    total: state.messages.length,
  }));
  setHandler(statusQuery, (): AgentStatusSnapshot => ({
    agentId: input.agentId,
    agentType: input.agentType,
    name: input.name,
    description: input.description,
    model: input.model,
    ...progress.current,
    turn: state.turn,
    maxTurns: input.maxTurns,
    usage: state.usage,
    toolUses: state.toolUses,
    startedAtMs: state.startedAtMs,
    messageCount: state.messages.length,
    treeUsage: state.treeUsage,
    children: children.snapshot(),
    acceptsSteering: !progress.finished,
    pendingApprovals: approvals.pendingCount,
  }));
  setHandler(resumeStateQuery, () => ({
    input: { ...input, renderedSystemPrompt: state.systemPrompt, carried: undefined },
    carried: state.carry(),
    status: progress.current.state,
    result: progress.current.result,
    stoppedBy: control.stopNotice?.by,
  }));

  setHandler(messageSignal, (message) => inbox.pushMessage(message.from, message.text));
  const steer = ({ text, by }: SteerInput) => {
    inbox.pushSteer(by ?? 'user', text);
    return { queued: true as const, turn: state.turn };
  };
  setHandler(steerUpdate, steer, {
    validator: ({ text }) => {
      const result = progress.current.result;
      if (result) throw new Error(`Agent ${input.agentId} already finished (${result.status}); the steer was not delivered.`);
      if (typeof text !== 'string' || text.trim() === '') throw new Error('A steer needs non-empty text.');
    },
  });
  setHandler(steerSignal, (steerInput) => void steer(steerInput));
  setHandler(interruptSignal, ({ by, reason }) => {
    if (progress.finished) return;
    control.interrupt({ by: by ?? 'user', reason: reason ?? 'interrupted' });
  });
  setHandler(closeSignal, () => inbox.endInput());
  setHandler(stopNoticeSignal, (notice) => control.noteStop(notice));
  setHandler(backgroundedSignal, () => tree.movedToBackground());
  setHandler(approvalDecisionSignal, (decision) => approvals.receiveDecision(decision));
  setHandler(childFinalSignal, (childResult) => children.onChildFinal(childResult));
  setHandler(treeSpawnReplySignal, (reply) => tree.receiveSpawnReply(reply));

  if (tree.coordinator) installRootHandlers(agent, tree.coordinator);
}

/**
 * Handlers only a root has: it coordinates its tree (limits, budget, listing, pause, approvals).
 * What they send to other agents are answers owed to them, sent even while the root is stopping.
 */
function installRootHandlers({ tree, approvals }: AgentParts, coordinator: TreeCoordinator): void {
  const owed = (send: () => Promise<void>) => CancellationScope.nonCancellable(send);
  setHandler(treeSpawnRequestSignal, (request) =>
    owed(async () => {
      const decision = coordinator.request(request.childId);
      const reply = { requestId: request.requestId, granted: decision.granted, reason: decision.granted ? undefined : decision.reason };
      // A requester that is gone will never start the child: its slot is free again.
      if (!(await signalBestEffort(request.requesterId, treeSpawnReplySignal, reply))) coordinator.finished(request.childId, workflowNowMs());
    }),
  );
  setHandler(treeAgentStartedSignal, (event) => coordinator.started(event, workflowNowMs()));
  setHandler(treeAgentEventSignal, (event) =>
    owed(async () => {
      if (event.kind === 'finished') coordinator.finished(event.agentId, workflowNowMs());
      if (event.kind === 'backgrounded') coordinator.backgrounded(event.agentId);
      if (event.usage) await tree.countUsage(event.usage);
    }),
  );
  setHandler(pauseSpawningSignal, ({ paused }) => coordinator.pauseSpawning(paused));
  setHandler(treeQuery, () => coordinator.snapshot());
  setHandler(approvalsQuery, () => coordinator.pendingApprovals());
  setHandler(approvalRequestSignal, (request) => owed(() => approvals.receiveRequest(request)));
  setHandler(answerApprovalUpdate, (decision) => owed(async () => {
    await approvals.answer(decision);
  }).then(() => ({ delivered: true as const })), {
    validator: (decision) => {
      if (!coordinator.hasPendingApproval(decision.requestId)) {
        const pending = coordinator.pendingApprovals().map((request) => request.requestId);
        throw new Error(`No pending approval request "${decision.requestId}". Pending: ${pending.length > 0 ? pending.join(', ') : '(none)'}.`);
      }
    },
  });
}
