import { ActivityFailure, ApplicationFailure, isCancellation, TimeoutFailure } from '@temporalio/workflow';
import { ErrorType, errorText } from '../../shared/protocol/errors';
import type { ToolClassification, ToolDescriptor } from '../../shared/tools/extra-tools';
import type { ToolUseBlock } from '../../shared/model/messages';
import type { ToolOutcome } from '../../shared/tools/tool-results';
import { isConcurrencySafeTool, type WebToolName } from '../../shared/policy/tool-classification';
import { toolCallSummary } from '../../shared/tools/tool-summary';
import { toolModelCallBound } from '../../shared/budget/web-tool-budget';
import type { ToolCallResult, ToolContext } from '../../shared/tools/tools';
import { parseTodoWriteInput, todoWriteResult } from '../../shared/tools/todos';
import {
  mcpSetupActivities,
  mcpSetupOptions,
  mcpToolActivities,
  mcpToolOnceActivities,
  mcpToolOnceOptions,
  mcpToolOptions,
  webToolActivities,
  webToolOptions,
} from '../runtime/activity-proxies';
import type { AgentWorkflowInput } from '../../shared/agents/agent';
import type { AgentState } from '../loop/agent-state';
import type { Progress } from '../loop/progress';
import type { TreeLink } from '../tree/tree-link';
import type { BudgetLink } from '../budget/budget-link';
import type { WorkerTools } from '../../shared/agents/agent-start';
import { runCustomTool } from './custom-tools';
import { submitStructuredOutput } from './structured-output';
import { releaseToolModelCall, reserveToolModelCall } from '../budget/tool-model-budget';
import type { WorkflowTool } from './tool-types';

// TodoWrite, WebFetch, WebSearch and the agent's extra tools (MCP), each run as its descriptor says (docs/tools.md).

/** What the extra tools need of an agent (not the whole of its parts: this module stays out of their import circle). */
export interface ToolingAgent {
  readonly input: AgentWorkflowInput;
  readonly state: AgentState;
  readonly tree: TreeLink;
  readonly budget: BudgetLink;
  readonly progress: Progress;
}

/** Snapshots the agent's MCP tools at first start; returns why the agent cannot run, if it cannot. */
export async function prepareExtraTools(agent: Pick<ToolingAgent, 'input' | 'state'>): Promise<string | undefined> {
  const { input, state } = agent;
  // A snapshot taken by an earlier run (or before custom tools existed) is kept; one holding only the worker's tools waits for MCP.
  if (!input.mcp || (state.extraTools && !state.extraTools.awaitingMcp)) return noToolsReason(agent);
  const names = Object.keys(input.mcp.servers);
  const result = await mcpSetupActivities.startMcpServers.executeWithOptions(
    { ...mcpSetupOptions, summary: `start MCP servers: ${names.join(', ') || '(none)'}` },
    [{ agentId: input.agentId, cwd: state.cwd, mcp: input.mcp }],
  );
  const workerTools = state.extraTools;
  const extraTools = workerTools
    ? {
        ...result.extraTools,
        descriptors: [...workerTools.descriptors, ...result.extraTools.descriptors],
        ...(workerTools.taskQueues ? { taskQueues: workerTools.taskQueues } : {}),
      }
    : result.extraTools;
  state.adoptExtraTools(extraTools);
  if (result.requiredFailures.length > 0) {
    const details = result.requiredFailures.map(({ name, error }) => `"${name}" (${error})`).join('; ');
    return errorText(
      ErrorType.McpServerUnavailable,
      `the agent requires MCP server(s) that did not connect within 30 s: ${details}.`,
    );
  }
  if (input.tools.length === 0 && extraTools.descriptors.length === 0) {
    return `Agent type "${input.agentType}" has no tools: its only tools are MCP tools, and its MCP servers offered none of them.`;
  }
  return undefined;
}

/** An agent whose definition named only custom tools that its worker does not define cannot run. */
function noToolsReason(agent: Pick<ToolingAgent, 'input' | 'state'>): string | undefined {
  if (toolPool(agent).length > 0 || !agent.input.customTools) return undefined;
  return `Agent type "${agent.input.agentType}" has no tools: its only tools are custom tools, and its worker defines none of them (docs/tools.md, "Custom tools").`;
}

/** Keeps what the worker said at the agent's start (its custom tools, its tool task queues) until MCP tools join them. */
export function adoptWorkerTools(
  { input, state }: Pick<ToolingAgent, 'input' | 'state'>,
  workerTools: WorkerTools | undefined,
): void {
  if (!workerTools || state.extraTools) return;
  state.adoptExtraTools({
    descriptors: workerTools.descriptors,
    mcpServers: {},
    status: [],
    ...(workerTools.taskQueues ? { taskQueues: workerTools.taskQueues } : {}),
    ...(input.mcp ? { awaitingMcp: true as const } : {}),
  });
}

/** The agent's pool: the runtime tools of its input, then its extra tools (the request order). */
export function toolPool({ input, state }: Pick<ToolingAgent, 'input' | 'state'>): string[] {
  return [...input.tools, ...(state.extraTools?.descriptors.map((descriptor) => descriptor.definition.name) ?? [])];
}

/** How an extra tool is classified (undefined for the runtime's own tools). */
export function classificationOf({ state }: Pick<ToolingAgent, 'state'>, name: string): ToolClassification | undefined {
  return state.extraTools?.descriptors.find((descriptor) => descriptor.definition.name === name)?.classification;
}

/** Calls of one turn that may run side by side: the runtime's rule, plus read-only extra tools. */
export function isConcurrencySafe(agent: Pick<ToolingAgent, 'state'>, name: string): boolean {
  return isConcurrencySafeTool(name) || classificationOf(agent, name)?.readOnly === true;
}

/** Workflow-side runners of TodoWrite, WebFetch, WebSearch and every extra tool, by the name the model calls. */
export function extraToolRoutes(agent: ToolingAgent): Record<string, WorkflowTool> {
  const routes: Record<string, WorkflowTool> = {
    TodoWrite: async (call) => todoWrite(agent, call),
    WebFetch: (call) => runWebTool(agent, 'WebFetch', call),
    WebSearch: (call) => runWebTool(agent, 'WebSearch', call),
  };
  for (const descriptor of agent.state.extraTools?.descriptors ?? []) {
    routes[descriptor.definition.name] =
      descriptor.runner.kind === 'structuredOutput'
        ? (call) => submitStructuredOutput(agent, call)
        : (call) => runExtraTool(agent, descriptor, call);
  }
  return routes;
}

function todoWrite({ state, progress }: Pick<ToolingAgent, 'state' | 'progress'>, call: ToolUseBlock): ToolOutcome {
  const parsed = parseTodoWriteInput(call.input);
  if (!parsed.ok) return { isError: true, content: parsed.error };
  state.replaceTodos(parsed.todos);
  progress.todosChanged();
  return { isError: false, content: todoWriteResult(parsed.todos) };
}

function toolContextOf({ input, state }: Pick<ToolingAgent, 'input' | 'state'>): ToolContext {
  return state.toolContext(input.agentId, input.maxToolResultChars);
}

/** Records a result's own model usage and moved output; usage already `charged` is not reported again. */
async function settle(agent: ToolingAgent, result: ToolCallResult, charged = false): Promise<ToolOutcome> {
  if (result.replacement) agent.state.recordReplacement(result.replacement);
  if (result.usage) {
    agent.state.addUsage(result.usage);
    if (!charged) await agent.tree.reportUsage(result.usage);
  }
  return { content: result.content, isError: result.isError, ...(result.blocks ? { blocks: result.blocks } : {}) };
}

function failureText(name: string, error: unknown): string {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  const message = cause instanceof ApplicationFailure || cause instanceof Error ? cause.message : String(cause);
  return `${name} failed: ${message}`;
}

async function runWebTool(agent: ToolingAgent, name: WebToolName, call: ToolUseBlock): Promise<ToolOutcome> {
  const { input } = agent;
  // A budgeted tree reserves the tool's own model call first (docs/budgets.md, "Model calls made by tools").
  const bound = toolModelCallBound(name, call.input);
  const reservation = await reserveToolModelCall(agent, bound.maxOutputTokens, bound.inputTokens);
  if (reservation.kind === 'refused') {
    const needs = `${(bound.inputTokens + bound.maxOutputTokens).toLocaleString('en-US')} tokens`;
    return {
      isError: true,
      content: errorText(
        ErrorType.BudgetExhausted,
        `${name} was not run: its model call needs room for ${needs}, more than is left in ${reservation.grant.reason}. Go on without it.`,
      ),
    };
  }
  try {
    const result = await webToolActivities[name].executeWithOptions(
      { ...webToolOptions, summary: toolCallSummary(name, call.input) },
      [
        {
          context: toolContextOf(agent),
          toolUseId: call.id,
          input: call.input,
          agentType: input.agentType,
          model: input.model,
          ...(reservation.kind === 'granted' ? { budget: reservation.budget } : {}),
        },
      ],
    );
    return await settle(agent, result, reservation.kind === 'granted');
  } catch (error) {
    if (isCancellation(error)) throw error;
    return { isError: true, content: failureText(name, error) };
  } finally {
    await releaseToolModelCall(agent, reservation);
  }
}

async function runExtraTool(agent: ToolingAgent, descriptor: ToolDescriptor, call: ToolUseBlock): Promise<ToolOutcome> {
  const { input, state } = agent;
  const { definition, runner, classification } = descriptor;
  if (runner.kind === 'custom') {
    return settle(agent, await runCustomTool(descriptor, runner, call, toolContextOf(agent)));
  }
  if (runner.kind === 'structuredOutput') return submitStructuredOutput(agent, call);
  const spec = state.extraTools?.mcpServers[runner.server];
  if (!spec)
    return {
      isError: true,
      content: errorText(ErrorType.McpServerUnavailable, `no configuration for the MCP server "${runner.server}".`),
    };
  const [activities, options] = classification.retrySafe
    ? [mcpToolActivities, mcpToolOptions]
    : [mcpToolOnceActivities, mcpToolOnceOptions];
  try {
    const result = await activities.callMcpTool.executeWithOptions({ ...options, summary: definition.name }, [
      {
        agentId: input.agentId,
        toolUseId: call.id,
        cwd: state.cwd,
        toolName: definition.name,
        server: runner.server,
        spec,
        tool: runner.tool,
        arguments: call.input,
        retrySafe: classification.retrySafe,
        ...(input.maxToolResultChars !== undefined ? { maxResultChars: input.maxToolResultChars } : {}),
      },
    ]);
    return await settle(agent, result);
  } catch (error) {
    if (isCancellation(error)) throw error;
    if (error instanceof ActivityFailure && error.cause instanceof TimeoutFailure && !classification.retrySafe) {
      return {
        isError: true,
        content:
          `${definition.name} was interrupted: the worker running it stopped before it finished, so the call may have partially run. ` +
          'Check its effects before calling it again.',
      };
    }
    return { isError: true, content: failureText(definition.name, error) };
  }
}
