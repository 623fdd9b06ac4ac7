import { ErrorType, errorText } from '../../shared/protocol/errors';
import { maxConcurrentToolCalls } from '../../shared/protocol/limits';
import type { ToolUseBlock } from '../../shared/model/messages';
import {
  isConcurrencySafeTool,
  isFileReadTool,
  isWorkspaceTool,
  type WorkspaceToolName,
} from '../../shared/policy/tool-classification';
import { isCancellation } from '@temporalio/workflow';
import { unanalysed, type BashReading } from '../../shared/policy/command-analysis';
import { checkCallInput, readsBashCommand } from '../../shared/policy/call-checks';
import type { ToolRules } from '../../shared/policy/tool-rules';
import type { PermissionRules, RuleDecision } from '../../shared/policy/permission-rules';
import { shellSyntaxActivities } from '../runtime/activity-proxies';
import { appendText } from './hooks';
import type { ToolOutcome } from '../../shared/tools/tool-results';
import type {
  ContentReplacement,
  ReadBatchOutcome,
  ReadFileRecord,
  ReadFileState,
  ToolCallResult,
  ToolContext,
} from '../../shared/tools/tools';
import { toolCallSummary } from '../../shared/tools/tool-summary';
import type { WorkspaceWorker } from '../../shared/workspace/workspace-routing';
import type { ToolTaskQueues } from '../../shared/tools/custom-tools';
import { inSlidingWindow, partitionToolCalls } from './tool-batches';
import { failureOutcome } from './tool-failure';
import { runWorkspaceTool } from './workspace-activities';
import type { PermissionOverride, PreReadLookup, PreToolDecision, WorkflowTool } from './tool-types';
import { readFailure } from './read-batch';

/** What tool execution needs from the agent, and what it reports back. */
export interface ToolRunContext {
  pool: readonly string[];
  /** The agent's Bash runs read-only commands only (Explore, Plan): others are refused before they run. */
  readOnlyBash: boolean;
  /** Tool rules of its definition (`Bash(git diff:*)`, `Edit(src/**)`): a call they refuse never runs. */
  toolRules?: ToolRules;
  /** Permission rules of the tree's settings files (deny > ask > allow), checked after the definition's rules. */
  permissionRules?: PermissionRules;
  /** PreToolUse hooks (docs/hooks.md): refuse the call, or say whether to skip or force the approval. */
  beforeTool?(call: ToolUseBlock): Promise<PreToolDecision>;
  /** PostToolUse hooks: what they add after a successful call's result. */
  afterTool?(call: ToolUseBlock, outcome: ToolOutcome): Promise<ToolOutcome>;
  /** A call refused before it ran (a rule, a read-only Bash, a permission): counted as a permission denial. */
  onDenied?(call: ToolUseBlock): void;
  toolContext: ToolContext;
  readFileState: ReadFileState;
  workflowTools: Readonly<Record<string, WorkflowTool>>;
  /** Where the agent's files are when workers do not share a filesystem (docs/operations.md); absent: any worker. */
  workspaceWorker?: WorkspaceWorker;
  /** Built-in tools whose activities run on their own task queue (docs/tools.md, "Tool task queues"). */
  toolTaskQueues?: ToolTaskQueues;
  /** Calls of one turn that may run side by side (default: the runtime's own rule). */
  concurrencySafe?(name: string): boolean;
  /** Permission check: undefined or the denial, a promise only when it must wait; `allow` skips the prompt, `ask` asks. */
  authorize(
    call: ToolUseBlock,
    override?: PermissionOverride,
  ): Promise<ToolOutcome | undefined> | ToolOutcome | undefined;
  /** The input a person, client or PermissionRequest hook approved the call with in place of the model's, if any. */
  approvedInput?(call: ToolUseBlock): Record<string, unknown> | undefined;
  /** The permission decision when it needs no one (nothing happens either way): `go`, or `later` for whatever {@link authorize} must settle. */
  authorizedNow?(call: ToolUseBlock, override?: PermissionOverride): 'go' | 'later';
  onStart(call: ToolUseBlock): void;
  onReadFiles(records: ReadFileRecord[]): void;
  onReplacement(replacement: ContentReplacement): void;
  /** File reads the model call already ran (src/workflows/tools/pre-reads.ts): such a call takes its outcome instead of running. */
  preRead?: PreReadLookup;
}

/** Read-file entries an Edit/Write may need: those whose path ends with the target's base name. */
function readStateFor(call: ToolUseBlock, state: ReadFileState): ReadFileState {
  const target = typeof call.input.file_path === 'string' ? call.input.file_path : '';
  const baseName = target.split('/').pop() ?? '';
  if (!baseName) return {};
  return Object.fromEntries(Object.entries(state).filter(([path]) => path.split('/').pop() === baseName));
}

/** A pre-read call's result, or the failure it ran into (thrown, as the activity's would be). */
function preReadResult(early: ReadBatchOutcome): ToolCallResult {
  if ('result' in early) return early.result;
  throw readFailure(early.failure);
}

/** A tool call's result as the model sees it, its read-file records and content replacement kept for the agent. */
function recordedOutcome(result: ToolCallResult, context: ToolRunContext): ToolOutcome {
  if (result.readFiles?.length) context.onReadFiles(result.readFiles);
  if (result.replacement) context.onReplacement(result.replacement);
  return { content: result.content, isError: result.isError };
}

async function runActivityTool(
  name: WorkspaceToolName,
  call: ToolUseBlock,
  context: ToolRunContext,
): Promise<ToolCallResult> {
  const early = isFileReadTool(name) ? context.preRead?.(call, context.toolContext) : undefined;
  if (early) return preReadResult(early);
  const input = {
    context: context.toolContext,
    toolUseId: call.id,
    input: call.input,
    ...(name === 'Edit' || name === 'Write' ? { readFileState: readStateFor(call, context.readFileState) } : {}),
  };
  return runWorkspaceTool(
    name,
    input,
    toolCallSummary(name, call.input),
    context.workspaceWorker,
    context.toolTaskQueues?.[name],
  );
}

/** How a call's checks read its Bash command: undefined when they need not; a promise only when the parse must run. */
function bashReading(call: ToolUseBlock, context: ToolRunContext): BashReading | Promise<BashReading> | undefined {
  if (call.name !== 'Bash' || !readsBashCommand(context)) return undefined;
  const command = typeof call.input.command === 'string' ? call.input.command : '';
  return shellSyntaxActivities.analyzeShellCommand({ command }).then(
    (analysis): BashReading => ({ type: 'parsed', analysis }),
    (error: unknown): BashReading => {
      if (isCancellation(error)) throw error;
      // A failed parse decides nothing: not read-only, matched by no allow rule (deny rules still see the text).
      return {
        type: 'parsed',
        analysis: unanalysed(
          `the command could not be analysed (${error instanceof Error ? error.message : String(error)})`,
        ),
      };
    },
  );
}

/** The stronger of a rule's and a hook's word on asking: defer beats ask beats allow. */
function strongest(...words: (PermissionOverride | undefined)[]): PermissionOverride | undefined {
  return words.includes('defer')
    ? 'defer'
    : words.includes('ask')
      ? 'ask'
      : words.includes('allow')
        ? 'allow'
        : undefined;
}

/** The policy's verdict on a call's input (docs/permissions.md): a refusal, or the settings rule that spoke. */
function inputChecks(
  call: ToolUseBlock,
  context: ToolRunContext,
  bash?: BashReading,
): { refusal?: ToolOutcome; rule?: RuleDecision } {
  const verdict = checkCallInput(call, context, {
    cwd: context.toolContext.cwd,
    bash,
  });
  return 'refusal' in verdict ? { refusal: { isError: true, content: verdict.refusal } } : verdict;
}

/** Every check before a call: the refusal, or what to add to its result and a hook's rewritten call. */
async function refusalOf(
  call: ToolUseBlock,
  context: ToolRunContext,
): Promise<{ refusal?: ToolOutcome; context?: string; call?: ToolUseBlock }> {
  if (!context.pool.includes(call.name)) {
    return {
      refusal: {
        isError: true,
        content: errorText(
          ErrorType.ToolNotAllowed,
          `the tool "${call.name}" is not available to this agent. Available tools: ${context.pool.join(', ') || '(none)'}.`,
        ),
      },
    };
  }
  const denied = (refusal: ToolOutcome) => {
    context.onDenied?.(call);
    return { refusal };
  };
  const reading = bashReading(call, context);
  const checked = inputChecks(call, context, reading instanceof Promise ? await reading : reading);
  if (checked.refusal) return denied(checked.refusal);
  const hook = context.beforeTool ? await context.beforeTool(call) : undefined;
  if (hook?.type === 'refuse') return denied(hook.outcome);
  // A rewritten input (a PreToolUse hook's, or an approval's below) must pass the same checks as the model's.
  const rewrite = async (input: Record<string, unknown>): Promise<ToolOutcome | undefined> => {
    const rewritten: ToolUseBlock = { ...call, input };
    const rereading = bashReading(rewritten, context);
    const again = inputChecks(rewritten, context, rereading instanceof Promise ? await rereading : rereading);
    if (again.refusal) return again.refusal;
    call = rewritten;
    return undefined;
  };
  if (hook?.updatedInput) {
    const refused = await rewrite(hook.updatedInput);
    if (refused) return denied(refused);
  }
  // A read-only command needs no approval (unless a hook deferred it to a person).
  if (!(call.name === 'Bash' && context.readOnlyBash) || hook?.permission === 'defer') {
    const rule = checked.rule?.type === 'ask' || checked.rule?.type === 'allow' ? checked.rule.type : undefined;
    const authorized = context.authorize(call, strongest(rule, hook?.permission));
    const refused = authorized instanceof Promise ? await authorized : authorized;
    if (refused) return denied(refused);
  }
  // Approved with another input (a client's canUseTool, a PermissionRequest hook): checked as the model's would be.
  const approvedInput = context.approvedInput?.(call);
  if (approvedInput) {
    const refused = await rewrite(approvedInput);
    if (refused) return denied(refused);
  }
  const rewrote = hook?.updatedInput !== undefined || approvedInput !== undefined;
  return { ...(hook?.context ? { context: hook.context } : {}), ...(rewrote ? { call } : {}) };
}

/** The outcome of a pre-read call whose every check decides now; undefined sends it through runOne. */
function settledNow(call: ToolUseBlock, context: ToolRunContext): ToolOutcome | undefined {
  if (
    !context.preRead ||
    context.beforeTool ||
    context.afterTool ||
    !context.authorizedNow ||
    !isFileReadTool(call.name) ||
    !context.pool.includes(call.name)
  )
    return undefined;
  const checked = inputChecks(call, context);
  if (checked.refusal || checked.rule?.type === 'ask') return undefined;
  if (context.authorizedNow(call, checked.rule?.type === 'allow' ? 'allow' : undefined) !== 'go') return undefined;
  const early = context.preRead(call, context.toolContext);
  if (!early) return undefined;
  context.onStart(call);
  try {
    return recordedOutcome(preReadResult(early), context);
  } catch (error) {
    return failureOutcome(call.name, error);
  }
}

async function runOne(call: ToolUseBlock, context: ToolRunContext): Promise<ToolOutcome> {
  const checked = await refusalOf(call, context);
  if (checked.refusal) return checked.refusal;
  const run = checked.call ?? call;
  context.onStart(run);
  let outcome = await execute(run, context);
  if (checked.context) outcome = appendText(outcome, checked.context);
  return context.afterTool ? context.afterTool(run, outcome) : outcome;
}

async function execute(call: ToolUseBlock, context: ToolRunContext): Promise<ToolOutcome> {
  const workflowTool = context.workflowTools[call.name];
  if (workflowTool) return workflowTool(call);
  if (!isWorkspaceTool(call.name)) {
    return {
      isError: true,
      content: errorText(ErrorType.UnknownTool, `this runtime has no tool named "${call.name}".`),
    };
  }
  try {
    const result = await runActivityTool(call.name, call, context);
    return recordedOutcome(result, context);
  } catch (error) {
    return failureOutcome(call.name, error);
  }
}

/** Runs one turn's tool calls: read-only runs concurrently, others alone; outcomes are written as they come. */
export async function runToolCalls(
  calls: readonly ToolUseBlock[],
  context: ToolRunContext,
  outcomes: Record<string, ToolOutcome>,
): Promise<void> {
  const concurrencySafe = (name: string) =>
    (context.concurrencySafe?.(name) ?? isConcurrencySafeTool(name)) && context.pool.includes(name);
  const run = async (call: ToolUseBlock) => {
    outcomes[call.id] = await runOne(call, context);
  };
  for (const group of partitionToolCalls(calls, concurrencySafe, Number.POSITIVE_INFINITY)) {
    if (group.calls.length > maxConcurrentToolCalls) {
      await inSlidingWindow(group.calls, maxConcurrentToolCalls, run);
      continue;
    }
    // A group that fits the window: one batch, its calls settled now left out.
    for (const batch of partitionToolCalls(group.calls, () => group.concurrent, maxConcurrentToolCalls)) {
      let settled = 0;
      const running = batch.calls.flatMap((call) => {
        const now = settledNow(call, context);
        if (!now) return [run(call)];
        outcomes[call.id] = now;
        settled++;
        return [];
      });
      if (running.length > 0 || settled === 0) await Promise.all(running);
    }
  }
}
