import type { PermissionMode } from '../../shared/agents/agent';
import type { ToolClassification } from '../../shared/tools/extra-tools';
import { isCoordinationTool, isEditTool, isReadOnlyTool } from '../../shared/policy/tool-classification';

/** What happens to one tool call before it runs. */
export type PermissionDecision = { type: 'allow' } | { type: 'ask' } | { type: 'deny'; reason: string };

/** The permission mode's decision for one call, with a rule's or hook's `override` (docs/architecture.md, approvals). */
export function decidePermission(
  mode: PermissionMode,
  toolName: string,
  alwaysAllowed: readonly string[],
  classification?: ToolClassification,
  override?: 'allow' | 'ask',
): PermissionDecision {
  if (override !== undefined) {
    const byMode = decidePermission(mode, toolName, alwaysAllowed, classification);
    if (mode === 'plan' && byMode.type === 'deny') return byMode;
    if (override === 'allow') return { type: 'allow' };
    if (mode === 'dontAsk')
      return {
        type: 'deny',
        reason: `${toolName} must be approved by a person (a settings ask rule or a hook says so), and this agent runs in dontAsk mode, so it was denied.`,
      };
    return { type: 'ask' };
  }
  if (isReadOnlyTool(toolName) || isCoordinationTool(toolName) || classification?.needsApproval === false)
    return { type: 'allow' };
  if (mode === 'bypassPermissions' || alwaysAllowed.includes(toolName)) return { type: 'allow' };
  if (mode === 'acceptEdits' && isEditTool(toolName)) return { type: 'allow' };
  if (mode === 'plan')
    return { type: 'deny', reason: `${toolName} is not allowed in plan mode: explore and plan, make no changes.` };
  if (mode === 'dontAsk')
    return {
      type: 'deny',
      reason: `${toolName} needs approval, and this agent runs in dontAsk mode, so it was denied.`,
    };
  return { type: 'ask' };
}

/** What a person's "always" for one WebFetch call approves: its domain, as Claude Code's rule `WebFetch(domain:host)`. */
export function webFetchPermission(host: string): string {
  return `WebFetch(domain:${host})`;
}

/** The key an "always" answer stores: its WebFetch domain, else its tool; a forged `permission` falls back to the tool. */
export function alwaysAllowKey(request: { tool: string; permission?: string }): string {
  const domain =
    request.tool === 'WebFetch' ? /^WebFetch\(domain:([^()\s]+)\)$/.exec(request.permission ?? '')?.[1] : undefined;
  return domain ? webFetchPermission(domain) : request.tool;
}

/** The decision for a WebFetch call to `host`, as Claude Code's (docs/security.md, "WebFetch"). */
export function decideWebFetchPermission(
  mode: PermissionMode,
  host: string | undefined,
  alwaysAllowed: readonly string[],
  override?: 'allow' | 'ask',
): PermissionDecision {
  if (host === undefined) return { type: 'allow' };
  const refuse = (why: string): PermissionDecision => ({
    type: 'deny',
    reason: `WebFetch to ${host} ${why}, and this agent runs in ${mode} mode, so it was denied. A settings allow rule WebFetch(domain:${host}) lets it through.`,
  });
  if (override === 'ask')
    return mode === 'dontAsk' || mode === 'plan'
      ? refuse('must be approved by a person (a settings ask rule or a hook says so)')
      : { type: 'ask' };
  if (override === 'allow' || mode === 'bypassPermissions') return { type: 'allow' };
  if (alwaysAllowed.includes('WebFetch') || alwaysAllowed.includes(webFetchPermission(host))) return { type: 'allow' };
  if (mode === 'dontAsk' || mode === 'plan') return refuse('needs a person to approve its domain');
  return { type: 'ask' };
}

/** Where an "ask" goes: to a person at the root, or auto-answered for a background agent. */
export type ApprovalRoute = { type: 'bubble' } | { type: 'auto'; approved: boolean; reason: string };

/** Foreground chains and `bubble` agents ask the root; a background agent is denied unless configured otherwise. */
export function routeApproval(options: {
  mode: PermissionMode;
  inForegroundChain: boolean;
  backgroundApprovals: 'deny' | 'approve' | 'bubble';
}): ApprovalRoute {
  if (options.mode === 'bubble' || options.inForegroundChain) return { type: 'bubble' };
  switch (options.backgroundApprovals) {
    case 'bubble':
      return { type: 'bubble' };
    case 'approve':
      return { type: 'auto', approved: true, reason: 'auto-approved for background agents by the tree configuration' };
    case 'deny':
      return { type: 'auto', approved: false, reason: 'background agents cannot ask a person; denied automatically' };
  }
}
