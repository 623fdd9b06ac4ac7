/** The demo's workflow-writing model: asked for a workflow, it starts the review script, then summarises its run. */
import { readFileSync } from 'node:fs';
import type { RequestContext, ToolParam } from './request-types';
import { clip, firstUserText, listedPaths, offeredTools, pastToolCalls, type PastToolCall } from './demo-history';
import { toolUseId } from './ids';
import type { ModelReply, OutputBlock } from './reply';
import { isRecord } from './tokens';

/** The tool that starts an orchestration script (docs/workflows.md). */
export const workflowToolName = 'Workflow';
/** The saved script the demo runs by name when the Workflow tool lists it. */
export const reviewScriptName = 'review';
/** Words that ask for a workflow, as Claude Code's keyword ("workflow") and its ultracode mode; whole words only. */
export const workflowTrigger = /\b(workflow|ultracode|orchestrated)\b/i;
/** The bundled example the demo writes inline when no saved `review` script is listed (same path from src/ and dist/). */
export const reviewScriptFile = new URL('../../examples/workflows/review.js', import.meta.url);

const listingPattern = '*/*';
/** Past this turn the lead answers with what it has: the demo always terminates. */
const maxLeadTurns = 6;
/** Top-level folders no review reads: generated output and dependencies. */
const skippedFolders = new Set(['node_modules', 'dist', 'coverage', 'test-results', 'build', 'out', 'vendor']);
const maxFolders = 8;

/** True when the request offers the Workflow tool and the task asks for a workflow. */
export function wantsWorkflow(context: RequestContext): boolean {
  return offeredTools(context).has(workflowToolName) && workflowTrigger.test(firstUserText(context));
}

/** True when this text (the tool's description, or the opening context the runtime puts them in) lists a saved script. */
export function listsSavedScript(tool: ToolParam | undefined, name: string, opening = ''): boolean {
  const description = `${typeof tool?.description === 'string' ? tool.description : ''}\n${opening}`;
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|\\n)\\s*[-*•]?\\s*[\`"']?${escaped}[\`"']?\\s*[:(—–-]|[\`"]${escaped}[\`"]`).test(description);
}

/** The lead's next step from the conversation alone. */
export function workflowLeadStep(context: RequestContext, agentKey: string): ModelReply {
  const tools = offeredTools(context);
  const calls = pastToolCalls(context);
  const notification = taskNotificationOf(context.latestUserText);
  if (notification) return textAnswer(runSummary(notification));
  const started = calls.find((call) => call.name === workflowToolName);
  if (started?.result !== undefined) return textAnswer(launchAnswer(started));
  const listing = calls.find((call) => call.name === 'Glob' && call.input.pattern === listingPattern);
  if (context.turnIndex >= maxLeadTurns) return textAnswer('I could not start the review workflow in time.');
  if (!listing && tools.has('Glob'))
    return toolStep(context, agentKey, 'I will list the top-level folders to review.', 'Glob', {
      pattern: listingPattern,
    });
  const input = workflowInput(context, listing);
  if (!input) return textAnswer(`I cannot write the review script: ${reviewScriptFile.pathname} is missing.`);
  const how = input.name ? `the saved "${reviewScriptName}" script` : 'a review script';
  return toolStep(context, agentKey, `I will run ${how} as a workflow.`, workflowToolName, input);
}

/** The Workflow tool's input: the saved script by name when listed, else the example's source inline. */
export function workflowInput(context: RequestContext, listing?: PastToolCall): Record<string, unknown> | undefined {
  const folders = listing ? topLevelFolders(listedPaths(listing.result)) : [];
  const args = folders.length > 0 ? { args: { folders } } : {};
  const tool = context.request.tools.find((candidate) => candidate.name === workflowToolName);
  const opening = JSON.stringify(context.request.messages[0]?.content ?? '').replaceAll('\\n', '\n');
  if (listsSavedScript(tool, reviewScriptName, opening)) return { name: reviewScriptName, ...args };
  const script = reviewScriptSource();
  return script === undefined ? undefined : { script, ...args };
}

/** The first path segments of the listed files, sorted, without generated or hidden folders. */
export function topLevelFolders(paths: readonly string[]): string[] {
  const folders = new Set<string>();
  for (const path of paths) {
    const [first, ...rest] = path.replace(/^\.\//, '').split('/');
    if (first && rest.length > 0 && !first.startsWith('.') && !skippedFolders.has(first)) folders.add(first);
  }
  return [...folders].sort().slice(0, maxFolders);
}

let cachedSource: string | undefined;
function reviewScriptSource(): string | undefined {
  try {
    cachedSource ??= readFileSync(reviewScriptFile, 'utf8');
  } catch {
    return undefined;
  }
  return cachedSource;
}

/** A `<task-notification>` in a message: status and result. */
export interface TaskNotice {
  status: string;
  result: string;
}

export function taskNotificationOf(text: string): TaskNotice | undefined {
  const block = /<task-notification>([\s\S]*?)<\/task-notification>/.exec(text)?.[1];
  if (block === undefined) return undefined;
  const tag = (name: string): string => new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(block)?.[1]?.trim() ?? '';
  return { status: tag('status'), result: tag('result') };
}

/** The final answer from a run's notification: counts and the report when the result is the review's object. */
export function runSummary(notice: TaskNotice): string {
  const value = parseJsonObject(notice.result);
  if (notice.status !== 'completed')
    return `The review workflow ${notice.status || 'ended'} without a report: ${clip(notice.result, 400) || '(no detail)'}`;
  if (value && typeof value.report === 'string') {
    const counts = `${String(value.confirmed ?? 0)} finding(s) confirmed, ${String(value.refuted ?? 0)} refuted`;
    return `The review workflow finished: ${counts}.\n\n${clip(value.report.trim(), 2000)}`;
  }
  return `The review workflow finished. Its result:\n${clip(notice.result, 2000)}`;
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  const start = text.indexOf('{');
  if (start < 0) return undefined;
  try {
    const value: unknown = JSON.parse(text.slice(start));
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** What the lead says once the tool answered: waiting for the run, or why it did not start. */
function launchAnswer(call: PastToolCall): string {
  const result = (call.result ?? '').trim();
  return call.isError
    ? `The review workflow did not start: ${clip(result, 600)}`
    : `The review workflow is running in the background (${clip(result.split('\n')[0] ?? '', 300)}). ` +
        'I will summarise it when it finishes.';
}

function toolStep(
  context: RequestContext,
  agentKey: string,
  text: string,
  name: string,
  input: Record<string, unknown>,
): ModelReply {
  const content: OutputBlock[] = [
    { type: 'text', text },
    { type: 'tool_use', id: toolUseId(agentKey, context.turnIndex, 1), name, input },
  ];
  return { content, stopReason: 'tool_use' };
}
const textAnswer = (text: string): ModelReply => ({ content: [{ type: 'text', text }], stopReason: 'end_turn' });
