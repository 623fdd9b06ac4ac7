import type { ToolUseBlock } from '../../shared/model/messages';
import type { ToolOutcome } from '../../shared/tools/tool-results';
import type { ToolContext } from '../../shared/tools/tools';
import type { TreeSettings } from '../../shared/agents/tree-settings';
import { withDefinitionDomains } from '../../shared/policy/sandbox';
import { ErrorType, errorText } from '../../shared/protocol/errors';
import { classificationOf, extraToolRoutes, isConcurrencySafe } from '../tools/extra-tools';
import { afterTool, beforeTool, hooksMayRun } from '../tools/hooks';
import {
  afterToolFailure,
  approvalHooksMayRun,
  askWithHooks,
  deferredCall,
  deniedOutcome,
} from '../tools/permission-hooks';
import { taskRefusal } from '../tools/hook-events';
import type { BoardHooks } from '../board/agent-board-link';
import type { ToolRunContext } from '../tools/run-tools';
import type { PreReadLookup } from '../tools/tool-types';
import { sendMessageTool } from '../tree/send-message';
import { taskOutputTool } from '../tree/task-output';
import { workflowTool } from '../scripts/workflow-tool';
import { rewindTool } from '../rewind/rewind-tool';
import type { AgentParts } from './agent-parts';
import type { PermissionRules } from '../../shared/policy/permission-rules';
import { withSessionRules } from '../../shared/policy/permission-updates';

/** What running this agent's tools needs: its pool, its place, the workflow-run tools, approvals and bookkeeping. */
export function toolRunContext(
  agent: AgentParts,
  pool: readonly string[],
  preRead: PreReadLookup | undefined,
): ToolRunContext {
  const { input, state, children, approvals, progress } = agent;
  return {
    pool,
    readOnlyBash: input.readOnlyBash === true,
    ...(input.toolRules ? { toolRules: input.toolRules } : {}),
    // Rules a PermissionRequest hook added for the session count beside the settings files' (docs/hooks.md).
    ...permissionRulesOf(state),
    // Without hooks for them, no step per call for PreToolUse and PostToolUse.
    ...(hooksMayRun(agent, 'PreToolUse')
      ? {
          beforeTool: (call: ToolUseBlock) =>
            beforeTool(agent, call, (reason) => ({
              isError: true,
              content: errorText(
                ErrorType.HookBlocked,
                `a PreToolUse hook refused this call; nothing was run. The hook said: ${reason}`,
              ),
            })),
        }
      : {}),
    ...(hooksMayRun(agent, 'PostToolUse') || hooksMayRun(agent, 'PostToolUseFailure')
      ? {
          afterTool: (call: ToolUseBlock, outcome: ToolOutcome) =>
            outcome.isError ? afterToolFailure(agent, call, outcome) : afterTool(agent, call, outcome),
        }
      : {}),
    onDenied: (call) => state.recordDenial(call.name),
    toolContext: toolContextOf(state, input),
    readFileState: state.readFileState,
    workspaceWorker: input.workspaceWorker,
    ...(state.extraTools?.taskQueues ? { toolTaskQueues: state.extraTools.taskQueues } : {}),
    workflowTools: {
      Agent: (call) => agent.agentTool.call(call),
      Workflow: (call) => workflowTool(call, agent),
      SendMessage: (call) => sendMessageTool(call, input, children, agent.tree),
      TaskStop: (call) => children.stop(String(call.input.task_id ?? ''), input.agentId, 'its parent stopped it'),
      TaskOutput: (call) => taskOutputTool(call, children),
      Rewind: async (call) => rewindTool(call, agent),
      ...agent.board.workflowTools(boardHooks(agent)),
      ...extraToolRoutes(agent),
    },
    // A call the mode allows or denies outright is decided without awaiting.
    authorize: (call, ruleOverride) => {
      // A PreToolUse hook's `defer` (docs/hooks.md): a person or a client decides, whatever the mode says.
      if (ruleOverride === 'defer')
        return deferredCall(agent, call, () => approvals.askPerson(call, 'deferred by a PreToolUse hook'));
      const classification = classificationOf(agent, call.name);
      const override = ruleOverride ?? sandboxedBashAllowed(state.settings, call.name);
      const now = approvals.decideNow(call, classification, override);
      if (now !== 'ask') return deniedOutcome(agent, call, now.outcome);
      // Without hooks around approvals, the wait alone (no step more: recorded histories replay unchanged).
      if (!approvalHooksMayRun(agent, call.name)) return approvals.authorize(call, classification, override);
      return askWithHooks(
        agent,
        call,
        () => approvals.authorize(call, classification, override),
        (updated) => approvals.approveWithInput(call.id, updated),
      );
    },
    approvedInput: (call) => approvals.takeApprovedInput(call.id),
    authorizedNow: (call, ruleOverride) => {
      if (ruleOverride === 'defer') return 'later';
      const override = ruleOverride ?? sandboxedBashAllowed(state.settings, call.name);
      const now = approvals.decideNow(call, classificationOf(agent, call.name), override);
      return now !== 'ask' && now.outcome === undefined ? 'go' : 'later';
    },
    concurrencySafe: (name) => isConcurrencySafe(agent, name),
    onStart: (call) => progress.toolStarted(call.name),
    onReadFiles: (records) => state.recordReadFiles(records),
    onReplacement: (replacement) => state.recordReplacement(replacement),
    ...(preRead ? { preRead } : {}),
  };
}

function permissionRulesOf(state: AgentParts['state']): { permissionRules?: PermissionRules } {
  const rules = withSessionRules(state.settings?.permissions, state.permissions.rules);
  return rules ? { permissionRules: rules } : {};
}

/** TaskCreated and TaskCompleted hooks for the board's tools, only those configured. */
function boardHooks(agent: AgentParts): BoardHooks | undefined {
  const created = hooksMayRun(agent, 'TaskCreated');
  const completed = hooksMayRun(agent, 'TaskCompleted');
  if (!created && !completed) return undefined;
  return {
    ...(created ? { created: (task) => taskRefusal(agent, 'TaskCreated', task) } : {}),
    ...(completed ? { completed: (task) => taskRefusal(agent, 'TaskCompleted', task) } : {}),
  };
}

/** The agent's tool context; a definition's `WebFetch(domain:…)` rules also open those hosts to its sandboxed Bash. */
function toolContextOf(state: AgentParts['state'], input: AgentParts['input']): ToolContext {
  const context = state.toolContext(input.agentId, input.maxToolResultChars);
  const sandbox = withDefinitionDomains(context.sandbox, input.toolRules?.allow);
  return sandbox ? { ...context, sandbox } : context;
}

/** Bash needs no approval where the tree's settings say sandboxed commands run without one (Claude Code's `autoAllowBashIfSandboxed`). */
function sandboxedBashAllowed(settings: TreeSettings | undefined, tool: string): 'allow' | undefined {
  return tool === 'Bash' && settings?.sandbox?.autoAllowBashIfSandboxed === true ? 'allow' : undefined;
}
