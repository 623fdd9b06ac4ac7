import { CancellationScope, setHandler } from '@temporalio/workflow';
import type { AgentStatusSnapshot } from '../../shared/agents/agent';
import {
  answerApprovalUpdate,
  approvalDecisionSignal,
  approvalRequestSignal,
  approvalsQuery,
  backgroundedSignal,
  budgetChargeSignal,
  budgetGrantSignal,
  budgetQuery,
  budgetReserveSignal,
  childFinalSignal,
  closeSignal,
  conversationQuery,
  interruptSignal,
  messageSignal,
  pauseSpawningSignal,
  resumeStateQuery,
  setBudgetUpdate,
  statusQuery,
  steerSignal,
  steerUpdate,
  stopNoticeSignal,
  treeAgentEventSignal,
  treeAgentStartedSignal,
  treeQuery,
  treeSpawnReplySignal,
  treeSpawnRequestSignal,
  upgradeSignal,
  type SteerInput,
} from '../../shared/protocol/definitions';
import { boardNoticeSignal } from '../../shared/board/board';
import {
  agentMessageSchema,
  boardNoticeSchema,
  agentResultSchema,
  approvalDecisionSchema,
  approvalRequestSchema,
  budgetChangeSchema,
  budgetChargeSchema,
  budgetGrantSchema,
  budgetReserveSchema,
  conversationQuerySchema,
  interruptInputSchema,
  pauseSpawningSchema,
  steerInputSchema,
  stopNoticeSchema,
  treeAgentEventSchema,
  treeAgentStartedSchema,
  treeSpawnReplySchema,
  treeSpawnRequestSchema,
  upgradeNoticeSchema,
} from '../../shared/protocol/input-schemas';
import type { AgentParts } from './agent-parts';
import type { TreeLedgerKeeper } from '../budget/tree-ledger';
import { signalBestEffort } from '../runtime/best-effort-signal';
import { workflowNowMs } from '../runtime/clock';
import { contextSnapshot } from '../context/context-meter';
import { InputGuard } from '../runtime/input-guard';
import { installSettingsPushHandler } from './settings-reload';
import { installLongRunHandlers } from './long-run-handlers';
import { installRewindHandlers } from '../rewind/rewind-handlers';
import { oversizedMessageRefusal, refuseOversized } from '../context/message-size';
import type { TreeCoordinator } from '../tree/tree-coordinator';

/** Every handler of an agent (docs/cli.md), installed first so nothing early is lost; each hands input to its owner. */
export function installHandlers(agent: AgentParts): void {
  const { input, state, control, inbox, tree, approvals, children, progress } = agent;
  const guard = new InputGuard((rejections) => progress.inputRejected(rejections), state.rejectedInputs);
  installSettingsPushHandler(agent);

  guard.query(conversationQuery, conversationQuerySchema, ({ from }) => ({
    systemPrompt: state.systemPrompt,
    tools: input.tools,
    ...(state.extraTools
      ? { extraTools: state.extraTools.descriptors.map((descriptor) => descriptor.definition) }
      : {}),
    messages: state.messages.slice(from),
    from,
    total: state.messages.length,
  }));
  setHandler(statusQuery, (): AgentStatusSnapshot => ({
    agentId: input.agentId,
    agentType: input.agentType,
    ...(input.color ? { color: input.color } : {}),
    name: input.name,
    description: input.description,
    model: input.model,
    ...progress.current,
    turn: state.turn,
    turns: {
      last: state.turns.last,
      checkpoints: state.turns.boundaries.filter((boundary) => boundary.checkpoint).length,
      ...(state.turns.checkpointsUnavailable ? { checkpointsUnavailable: state.turns.checkpointsUnavailable } : {}),
    },
    maxTurns: input.maxTurns,
    usage: state.usage,
    toolUses: state.toolUses,
    startedAtMs: state.startedAtMs,
    messageCount: state.messages.length,
    treeUsage: state.treeUsage,
    children: children.snapshot(),
    acceptsSteering: !progress.finished,
    pendingApprovals: approvals.pendingCount,
    permissionDenials: {
      count: Object.values(state.permissionDenials).reduce((sum, count) => sum + count, 0),
      byTool: { ...state.permissionDenials },
    },
    ...(state.hooks.notices.length > 0 ? { hookNotices: [...state.hooks.notices] } : {}),
    ...(approvals.pendingCount > 0
      ? { waitingFor: `approval of ${approvals.pendingTools().join(', ')} (subagents approvals ${input.rootAgentId})` }
      : {}),
    rejectedInputs: { ...guard.rejected },
    latestText: state.lastAssistantText().slice(-4000),
    context: contextSnapshot(input, state),
  }));
  setHandler(resumeStateQuery, () => ({
    input: { ...input, renderedSystemPrompt: state.systemPrompt, carried: undefined },
    carried: state.carry(),
    status: progress.current.state,
    result: progress.current.result,
    stoppedBy: control.stopNotice?.by,
    ...(tree.coordinator ? { tree: tree.coordinator.carry() } : {}),
  }));

  const tell = (notice: string) => inbox.pushNotification(notice);
  guard.signal(messageSignal, agentMessageSchema, (message) => {
    refuseOversized(input, message.from, message.text, tell);
    inbox.pushMessage(message.from, message.text);
  });
  const steer = ({ text, by }: SteerInput) => {
    inbox.pushSteer(by ?? 'user', text);
    return { queued: true as const, turn: state.turn };
  };
  guard.update(steerUpdate, steerInputSchema, steer, (steerInput) => {
    const result = progress.current.result;
    if (result)
      throw new Error(`Agent ${input.agentId} already finished (${result.status}); the steer was not delivered.`);
    const refusal = oversizedMessageRefusal(input, steerInput.text);
    if (refusal) throw new Error(refusal);
  });
  guard.signal(steerSignal, steerInputSchema, (steerInput) => {
    refuseOversized(input, steerInput.by ?? 'user', steerInput.text, tell);
    void steer(steerInput);
  });
  guard.signal(interruptSignal, interruptInputSchema, ({ by, reason }) => {
    if (progress.finished) return;
    control.interrupt({ by: by ?? 'user', reason: reason ?? 'interrupted' });
  });
  guard.plainSignal(closeSignal, () => inbox.endInput());
  guard.signal(stopNoticeSignal, stopNoticeSchema, (notice) => control.noteStop(notice));
  guard.plainSignal(backgroundedSignal, () => tree.movedToBackground());
  guard.signal(upgradeSignal, upgradeNoticeSchema, (notice) => agent.upgrade.receive(notice));
  guard.signal(approvalDecisionSignal, approvalDecisionSchema, (decision) => approvals.receiveDecision(decision));
  guard.signal(childFinalSignal, agentResultSchema, (childResult) => children.onChildFinal(childResult));
  guard.signal(treeSpawnReplySignal, treeSpawnReplySchema, (reply) => tree.receiveSpawnReply(reply));
  guard.signal(budgetGrantSignal, budgetGrantSchema, (grant) => agent.budget.receiveGrant(grant));
  guard.signal(boardNoticeSignal, boardNoticeSchema, (notice) => agent.board.receiveNotice(notice));

  installLongRunHandlers(agent, guard);
  installRewindHandlers(agent, guard);
  if (tree.coordinator) installRootHandlers(agent, tree.coordinator, guard);
}

/** A root's handlers for its tree; their answers to other agents go out even while the root stops. */
function installRootHandlers(
  { input, tree, approvals }: AgentParts,
  coordinator: TreeCoordinator,
  guard: InputGuard,
): void {
  const owed = (send: () => Promise<void>) => CancellationScope.nonCancellable(send);
  // Reports about agents outside this tree are refused like a bad payload: a peer cannot add phantom nodes.
  const inTree = (agentId: string) => agentId.startsWith(`${input.rootAgentId}.`);
  const outsideTree = (agentId: string) => new Error(`${agentId} is not an agent of the tree ${input.rootAgentId}`);
  guard.signal(treeSpawnRequestSignal, treeSpawnRequestSchema, (request) => {
    if (!inTree(request.childId)) throw outsideTree(request.childId);
    return owed(async () => {
      const decision = coordinator.request(request.childId, request.requesterId);
      const reply = {
        requestId: request.requestId,
        granted: decision.granted,
        reason: decision.granted ? undefined : decision.reason,
      };
      // A requester that is gone will never start the child: its slot is free again.
      if (!(await signalBestEffort(request.requesterId, treeSpawnReplySignal, reply)))
        coordinator.finished(request.childId, workflowNowMs());
    });
  });
  guard.signal(treeAgentStartedSignal, treeAgentStartedSchema, (event) => {
    if (!inTree(event.agentId)) throw outsideTree(event.agentId);
    coordinator.started(event, workflowNowMs());
  });
  guard.signal(treeAgentEventSignal, treeAgentEventSchema, (event) => {
    if (!inTree(event.agentId)) throw outsideTree(event.agentId);
    return owed(async () => {
      if (event.kind === 'finished') coordinator.finished(event.agentId, workflowNowMs());
      if (event.kind === 'backgrounded') coordinator.backgrounded(event.agentId);
      if (event.usage) await tree.countUsage(event.usage);
    });
  });
  guard.signal(pauseSpawningSignal, pauseSpawningSchema, ({ paused }) => coordinator.pauseSpawning(paused));
  installLedgerHandlers(input, tree.ledger!, guard, inTree, outsideTree);
  setHandler(treeQuery, () => coordinator.snapshot());
  setHandler(approvalsQuery, () => coordinator.pendingApprovals());
  guard.signal(approvalRequestSignal, approvalRequestSchema, (request) => {
    if (request.agentId !== input.rootAgentId && !inTree(request.agentId)) throw outsideTree(request.agentId);
    return owed(() => approvals.receiveRequest(request));
  });
  guard.update(
    answerApprovalUpdate,
    approvalDecisionSchema,
    async (decision) => {
      await owed(() => approvals.answer(decision));
      return { delivered: true as const };
    },
    (decision) => {
      if (!coordinator.hasPendingApproval(decision.requestId)) {
        const pending = coordinator.pendingApprovals().map((request) => request.requestId);
        throw new Error(
          `No pending approval request "${decision.requestId}". Pending: ${pending.length > 0 ? pending.join(', ') : '(none)'}.`,
        );
      }
    },
  );
}

/** The tree's ledger (docs/budgets.md): reservations and charges from the tree's agents and model activities, the `budget` query and cap changes. */
function installLedgerHandlers(
  input: AgentParts['input'],
  ledger: TreeLedgerKeeper,
  guard: InputGuard,
  inTree: (agentId: string) => boolean,
  outsideTree: (agentId: string) => Error,
): void {
  const ofTree = (agentId: string) => agentId === input.rootAgentId || inTree(agentId);
  guard.signal(budgetReserveSignal, budgetReserveSchema, ({ request, requesterId, settle }) => {
    if (!ofTree(request.agentId) || requesterId !== request.agentId || (settle && settle.agentId !== requesterId))
      throw outsideTree(request.agentId);
    return CancellationScope.nonCancellable(() => ledger.reserve(request, requesterId, settle));
  });
  guard.signal(budgetChargeSignal, budgetChargeSchema, (charge) => {
    if (!ofTree(charge.agentId)) throw outsideTree(charge.agentId);
    return CancellationScope.nonCancellable(() => ledger.charge(charge));
  });
  setHandler(budgetQuery, () => ledger.ledger.snapshot());
  guard.update(
    setBudgetUpdate,
    budgetChangeSchema,
    (change) => ledger.change(change),
    (change) => {
      // Agents of a tree started without caps do not reserve: caps set now would not hold.
      if (input.budgeted !== true)
        throw new Error(
          `The tree ${input.rootAgentId} was started without a budget, so its model calls do not reserve; start it with caps (e.g. --max-tokens) to set them.`,
        );
      // The caps themselves were checked by budgetChangeSchema (names, whole positive counts, positive dollars).
      if (change.agentId !== undefined && !ofTree(change.agentId))
        throw new Error(`${change.agentId} is not an agent of the tree ${input.rootAgentId}`);
      if (!ledger.ledger.knows(change.agentId ?? input.rootAgentId))
        throw new Error(
          `No agent "${change.agentId}" in the ledger of ${input.rootAgentId}: only agents of a budgeted tree have caps.`,
        );
    },
  );
}
