import { budgetApprovalTool } from '../../shared/budget/budget';
import { CancellationScope, condition, isCancellation } from '@temporalio/workflow';
import type { AgentWorkflowInput } from '../../shared/agents/agent';
import type { ToolClassification } from '../../shared/tools/extra-tools';
import { approvalDecisionSignal } from '../../shared/protocol/definitions';
import type { ToolUseBlock } from '../../shared/model/messages';
import type { ToolOutcome } from '../../shared/tools/tool-results';
import { toolCallSummary } from '../../shared/tools/tool-summary';
import type { ApprovalDecision, ApprovalRequest } from '../../shared/protocol/tree';
import { signalBestEffort } from '../runtime/best-effort-signal';
import { workflowNowMs } from '../runtime/clock';
import { urlHost } from '../../shared/policy/egress-domains';
import {
  alwaysAllowKey,
  decidePermission,
  decideWebFetchPermission,
  routeApproval,
  webFetchPermission,
} from './permissions';
import type { TreeLink } from '../tree/tree-link';
import type { HookPermissions } from './session-permissions';
import type { PermissionMode } from '../../shared/agents/permission-mode';

/** Approvals (docs/architecture.md): an agent waits durably for a person's answer; the root holds the tree's requests. */
export class Approvals {
  private readonly decisions = new Map<string, ApprovalDecision>();
  /** This agent's requests waiting for an answer: requestId → tool. */
  private readonly waiting = new Map<string, string>();
  /** Tools a person approved "always" for this agent (the root also keeps the tree's set). */
  private readonly alwaysAllowed = new Set<string>();
  /** Calls approved with another input than the model's, by tool use id, until the call takes it. */
  private readonly approvedInputs = new Map<string, Record<string, unknown>>();

  constructor(
    private readonly input: AgentWorkflowInput,
    private readonly tree: TreeLink,
    private readonly permissions: Pick<HookPermissions, 'mode'>,
  ) {}

  /** The agent's permission mode: its start mode, or the one a PermissionRequest hook set (docs/hooks.md). */
  get mode(): PermissionMode {
    return this.permissions.mode;
  }

  get pendingCount(): number {
    return this.waiting.size;
  }

  pendingTools(): string[] {
    return [...new Set(this.waiting.values())];
  }

  receiveDecision(decision: ApprovalDecision): void {
    this.decisions.set(decision.requestId, decision);
  }

  /** The call is approved to run with `input` instead of the model's (a client's or a PermissionRequest hook's answer). */
  approveWithInput(callId: string, input: Record<string, unknown>): void {
    this.approvedInputs.set(callId, input);
  }

  /** The input a call was approved with in place of its own, taken once. */
  takeApprovedInput(callId: string): Record<string, unknown> | undefined {
    const input = this.approvedInputs.get(callId);
    this.approvedInputs.delete(callId);
    return input;
  }

  /** The mode's decision without asking: go ahead (`outcome` undefined), a denial, or 'ask' a person. */
  decideNow(
    call: ToolUseBlock,
    classification?: ToolClassification,
    override?: 'allow' | 'ask',
  ): { outcome: ToolOutcome | undefined } | 'ask' {
    const { input } = this;
    const alwaysAllowed = [...this.alwaysAllowed, ...(this.tree.coordinator?.alwaysAllowed ?? [])];
    const domain = webFetchDomain(call);
    const decision = domain
      ? decideWebFetchPermission(this.mode, domain.host, alwaysAllowed, override)
      : decidePermission(this.mode, call.name, alwaysAllowed, classification, override);
    if (decision.type === 'allow') return { outcome: undefined };
    if (decision.type === 'deny')
      return { outcome: { isError: true, content: `Permission denied: ${decision.reason}` } };
    const route = routeApproval({
      mode: this.mode,
      inForegroundChain: this.tree.inForegroundChain,
      backgroundApprovals: input.limits.backgroundApprovals,
    });
    if (route.type === 'auto') {
      return {
        outcome: route.approved
          ? undefined
          : {
              isError: true,
              content: `Permission denied: ${route.reason}. Do without ${call.name}, or report what you would have done.`,
            },
      };
    }
    return 'ask';
  }

  /** Checks a call against the permission mode: undefined to go ahead, or the denial the model sees. */
  authorize(
    call: ToolUseBlock,
    classification?: ToolClassification,
    override?: 'allow' | 'ask',
  ): Promise<ToolOutcome | undefined> {
    const now = this.decideNow(call, classification, override);
    // Not async: its promise settles on the same tick as the wait's, as recorded histories expect.
    if (now !== 'ask') return Promise.resolve(now.outcome);
    return this.askPerson(call);
  }

  /** Asks a person (or a client) about a call and waits durably for the answer: undefined to go ahead, or the denial. */
  async askPerson(call: ToolUseBlock, why?: string): Promise<ToolOutcome | undefined> {
    const { input } = this;
    const host = webFetchDomain(call)?.host;
    const summary = host
      ? `WebFetch domain ${host}: ${toolCallSummary(call.name, call.input)}`
      : toolCallSummary(call.name, call.input);
    const request: ApprovalRequest = {
      requestId: `${input.agentId}/${call.id}`,
      agentId: input.agentId,
      agentType: input.agentType,
      tool: call.name,
      toolUseId: call.id,
      inputSummary: why ? `${why}: ${summary}` : summary,
      requestedAtMs: workflowNowMs(),
      ...(host ? { permission: webFetchPermission(host) } : {}),
    };
    this.waiting.set(request.requestId, call.name);
    try {
      await this.submit(request);
      await condition(() => this.decisions.has(request.requestId));
    } catch (error) {
      if (isCancellation(error)) await this.withdraw(request);
      throw error;
    } finally {
      this.waiting.delete(request.requestId);
    }
    const answer = this.decisions.get(request.requestId)!;
    if (answer.always && answer.approved) this.alwaysAllowed.add(alwaysAllowKey(request));
    if (answer.approved && answer.updatedInput) this.approveWithInput(call.id, answer.updatedInput);
    if (answer.approved) return undefined;
    return {
      isError: true,
      content: `Permission denied by ${answer.by ?? 'the user'}${answer.reason ? `: ${answer.reason}` : ''}. Do not retry ${call.name} with the same input; adjust your approach.`,
    };
  }

  private async submit(request: ApprovalRequest): Promise<void> {
    const tree = this.tree.coordinator;
    if (!tree) return this.tree.requestApproval(request);
    // The root holds its own requests; a person answers with the answerApproval update.
    if (tree.alwaysAllowed.has(alwaysAllowKey(request)))
      this.decisions.set(request.requestId, {
        requestId: request.requestId,
        approved: true,
        by: 'an earlier "always" approval',
      });
    else tree.holdApproval(request);
  }

  /** An interrupted or stopped agent takes its request back, so nobody answers a question no longer asked. */
  private async withdraw(request: ApprovalRequest): Promise<void> {
    const tree = this.tree.coordinator;
    if (tree) tree.takeApproval(request.requestId);
    else await CancellationScope.nonCancellable(() => this.tree.withdrawApproval(request));
  }

  /** Root: a request arrived from an agent of the tree (or was withdrawn). */
  async receiveRequest(request: ApprovalRequest): Promise<void> {
    const tree = this.tree.coordinator!;
    if (request.withdrawn) {
      tree.takeApproval(request.requestId);
      return;
    }
    if (tree.alwaysAllowed.has(alwaysAllowKey(request))) {
      await this.deliver(request.agentId, {
        requestId: request.requestId,
        approved: true,
        by: 'an earlier "always" approval',
      });
      return;
    }
    tree.holdApproval(request);
  }

  async answer(decision: ApprovalDecision): Promise<void> {
    const tree = this.tree.coordinator!;
    const request = tree.takeApproval(decision.requestId);
    if (!request) return;
    // A reached cap's question (docs/budgets.md, action `ask`): the tree's ledger takes the answer.
    if (request.tool === budgetApprovalTool && request.agentId === this.input.agentId && this.tree.ledger) {
      await this.tree.ledger.answerAsk(request.requestId, decision.approved);
      return;
    }
    if (decision.always && decision.approved) tree.allowAlways(alwaysAllowKey(request));
    await this.deliver(request.agentId, decision);
  }

  private async deliver(agentId: string, decision: ApprovalDecision): Promise<void> {
    if (agentId === this.input.agentId) this.receiveDecision(decision);
    else await signalBestEffort(agentId, approvalDecisionSignal, decision);
  }
}

/** A WebFetch call decided by its domain: its URL's host (undefined when it has none). */
function webFetchDomain(call: ToolUseBlock): { host: string | undefined } | undefined {
  if (call.name !== 'WebFetch') return undefined;
  return { host: urlHost(call.input.url) };
}
