import { CancellationScope, condition, getExternalWorkflowHandle, isCancellation } from '@temporalio/workflow';
import { approvalDecisionSignal, approvalRequestSignal, type ApprovalDecision, type ApprovalRequest } from '../shared/definitions';
import type { ToolUseBlock } from '../shared/messages';
import { toolCallSummary } from '../shared/tool-summary';
import type { AgentRuntime } from './agent-runtime';
import { workflowNowMs } from './clock';
import { decidePermission, routeApproval } from './permissions';
import type { ToolOutcome } from './tool-results';

/**
 * Checks one tool call against the agent's permission mode before it runs. Returns undefined to go
 * ahead, or the tool result the model sees (a denial). A call that needs a person creates a pending
 * request at the root and waits durably (a worker restart changes nothing) for the answer.
 */
export async function authorizeToolCall(call: ToolUseBlock, runtime: AgentRuntime): Promise<ToolOutcome | undefined> {
  const { input } = runtime;
  const alwaysAllowed = [...runtime.alwaysAllowed, ...(runtime.tree?.alwaysAllowed ?? [])];
  const decision = decidePermission(input.permissionMode, call.name, alwaysAllowed);
  if (decision.type === 'allow') return undefined;
  if (decision.type === 'deny') return { isError: true, content: `Permission denied: ${decision.reason}` };
  const route = routeApproval({
    mode: input.permissionMode,
    inForegroundChain: runtime.inForegroundChain,
    backgroundApprovals: input.limits.backgroundApprovals,
  });
  if (route.type === 'auto') {
    return route.approved ? undefined : { isError: true, content: `Permission denied: ${route.reason}. Do without ${call.name}, or report what you would have done.` };
  }
  const request: ApprovalRequest = {
    requestId: `${input.agentId}/${call.id}`,
    agentId: input.agentId,
    agentType: input.agentType,
    tool: call.name,
    toolUseId: call.id,
    inputSummary: toolCallSummary(call.name, call.input),
    requestedAtMs: workflowNowMs(),
  };
  runtime.pendingApprovals.add(request.requestId);
  try {
    await submitApprovalRequest(request, runtime);
    await condition(() => runtime.approvalDecisions.has(request.requestId));
  } catch (error) {
    if (isCancellation(error)) await withdrawApprovalRequest(request, runtime);
    throw error;
  } finally {
    runtime.pendingApprovals.delete(request.requestId);
  }
  const answer = runtime.approvalDecisions.get(request.requestId)!;
  if (answer.always && answer.approved) runtime.alwaysAllowed.add(call.name);
  if (answer.approved) return undefined;
  return {
    isError: true,
    content: `Permission denied by ${answer.by ?? 'the user'}${answer.reason ? `: ${answer.reason}` : ''}. Do not retry ${call.name} with the same input; adjust your approach.`,
  };
}

async function submitApprovalRequest(request: ApprovalRequest, runtime: AgentRuntime): Promise<void> {
  if (runtime.tree) {
    // The root holds its own requests; a person answers with the answerApproval update.
    if (runtime.tree.alwaysAllowed.has(request.tool)) {
      runtime.approvalDecisions.set(request.requestId, { approved: true, by: 'an earlier "always" approval' });
      return;
    }
    runtime.tree.approvals.set(request.requestId, request);
    return;
  }
  await getExternalWorkflowHandle(runtime.input.rootAgentId).signal(approvalRequestSignal, request);
}

/** An interrupted or stopped agent takes its request back, so nobody answers a question no longer asked. */
async function withdrawApprovalRequest(request: ApprovalRequest, runtime: AgentRuntime): Promise<void> {
  if (runtime.tree) {
    runtime.tree.approvals.delete(request.requestId);
    return;
  }
  await CancellationScope.nonCancellable(() =>
    getExternalWorkflowHandle(runtime.input.rootAgentId).signal(approvalRequestSignal, { ...request, withdrawn: true }).catch(() => undefined),
  );
}

/** Root side: a request arrived from an agent of the tree (or was withdrawn). */
export async function receiveApprovalRequest(request: ApprovalRequest, runtime: AgentRuntime): Promise<void> {
  const tree = runtime.tree!;
  if (request.withdrawn) {
    tree.approvals.delete(request.requestId);
    return;
  }
  if (tree.alwaysAllowed.has(request.tool)) {
    await sendDecision(request.agentId, { requestId: request.requestId, approved: true, by: 'an earlier "always" approval' }, runtime);
    return;
  }
  tree.approvals.set(request.requestId, request);
}

/** Root side: a person answered. */
export async function answerApproval(decision: ApprovalDecision, runtime: AgentRuntime): Promise<void> {
  const tree = runtime.tree!;
  const request = tree.approvals.get(decision.requestId);
  if (!request) return;
  tree.approvals.delete(decision.requestId);
  if (decision.always && decision.approved) tree.alwaysAllowed.add(request.tool);
  await sendDecision(request.agentId, decision, runtime);
}

async function sendDecision(agentId: string, decision: ApprovalDecision, runtime: AgentRuntime): Promise<void> {
  if (agentId === runtime.input.agentId) {
    runtime.approvalDecisions.set(decision.requestId, decision);
    return;
  }
  await getExternalWorkflowHandle(agentId).signal(approvalDecisionSignal, decision).catch(() => undefined);
}
