// bench:floor's bare workflows: the shapes the [perf] goals measure (a conversation loop, a fan-out,
// a tree of background children, a stopped tree) written with the Temporal SDK alone — no state,
// schemas, hooks or tree bookkeeping — so their times are what the SDK and the server cost here.
import {
  ActivityCancellationType,
  proxyActivities,
  proxyLocalActivities,
  startChild,
  workflowInfo,
  type ChildWorkflowHandle,
  type Workflow,
} from '@temporalio/workflow';
import type { MessageParam, ToolUseBlock } from '../../src/shared/model/messages';
import { buildToolResultMessage } from '../../src/shared/tools/tool-results';
import type * as activities from './activities';
import type { ServedLoopActivities } from './served-activities';

const { call } = proxyActivities<typeof activities>({ startToCloseTimeout: '1 minute' });
const { wait } = proxyActivities<typeof activities>({
  startToCloseTimeout: '1 hour',
  heartbeatTimeout: '10 seconds',
  cancellationType: ActivityCancellationType.TRY_CANCEL,
});
const { read, render } = proxyLocalActivities<typeof activities>({ startToCloseTimeout: '1 minute' });
const { servedModelCall, servedModelCallWithResults, durableModelCall, durableModelCallWithReads } =
  proxyActivities<ServedLoopActivities>({ startToCloseTimeout: '1 minute' });
const { servedTools, durableTools } = proxyLocalActivities<ServedLoopActivities>({ startToCloseTimeout: '1 minute' });

/** As the runtime runs one message's Agent calls: at most `batch` at a time, each answered when its child started. */
async function startChildren(
  workflow: Workflow,
  args: unknown[][],
  batch: number,
): Promise<ChildWorkflowHandle<Workflow>[]> {
  const { workflowId } = workflowInfo();
  const handles: ChildWorkflowHandle<Workflow>[] = [];
  for (let first = 0; first < args.length; first += batch) {
    const started = args
      .slice(first, first + batch)
      .map((childArgs, index) =>
        startChild(workflow, { workflowId: `${workflowId}.${first + index + 1}`, args: childArgs }),
      );
    handles.push(...(await Promise.all(started)));
  }
  return handles;
}

/** An agent's conversation: a model call, then the turn's Reads, `turns` times, then the final model call. */
export async function floorLoop(turns: number, latencyMs: number, files: string[]): Promise<number> {
  const { workflowId } = workflowInfo();
  for (let turn = 0; turn < turns; turn++) {
    await call(`${workflowId}/${turn}`, latencyMs);
    await read(files);
  }
  await call(`${workflowId}/${turns}`, latencyMs);
  return turns + 1;
}

/**
 * bench:overhead's bare-SDK loop: the durable agent's conversation with the runtime taken out — each
 * model call an activity, each turn's tool calls one local activity, the conversation in the bench's
 * memory (bench/floor/served-activities.ts). Returns the number of model calls.
 */
export async function floorServedLoop(key: string): Promise<number> {
  for (let calls = 1; ; calls++) {
    if ((await servedModelCall(key)) === 0) return calls;
    await servedTools(key);
  }
}

/**
 * How deep in the call stack `floorDurableLoop`'s extra promises are made: deep enough that each stack trace
 * the SDK captures and source-maps for them is full (as many frames as `Error.stackTraceLimit` allows: 10 by
 * default, 5 on a worker that preloads the runtime's src/workflows/runtime/stack-frames.ts), as the runtime's are,
 * made deep in its turn and tool code.
 */
const promiseStackDepth = 10;

function atStackDepth(depth: number, then: () => void): void {
  if (depth <= 0) then();
  else atStackDepth(depth - 1, then);
}

/** Makes exactly `count` settled promises (the promise hooks see each made and settled; nothing awaits them, so no microtask turn moves). */
function makePromises(count: number): void {
  for (let made = 0; made < count; made++) void Promise.resolve(made);
}

/**
 * bench:overhead's durable bare-SDK loop: `floorServedLoop` with the conversation passing through the
 * workflow, as a durable agent's must for its history to be its transcript — each answer is the model
 * call's result, each turn's tool results the local activity's, and each model call's input the
 * messages added since the last call (the worker keeps its copy, as the runtime's conversation cache
 * does). The same requests; nothing of the runtime. Returns the number of model calls.
 * `extraPromisesPerCall`: after each model call, that many more promises, as many as the runtime's workflow
 * code makes beyond this loop's (bench:promises counts both): what those promises alone cost the workflow task.
 * `readsWithCall`: each answer's tool calls run in the model call's activity and come back with the answer, as
 * the runtime's turn runs its leading Reads (src/workflows/tools/pre-reads.ts): no local activity.
 */
export async function floorDurableLoop(key: string, extraPromisesPerCall = 0, readsWithCall = false): Promise<number> {
  const transcript: MessageParam[] = [];
  let tail: MessageParam[] = [];
  for (let calls = 1; ; calls++) {
    const answer = readsWithCall
      ? await durableModelCallWithReads(key, tail)
      : { content: await durableModelCall(key, tail) };
    const { content } = answer;
    if (extraPromisesPerCall > 0) atStackDepth(promiseStackDepth, () => makePromises(extraPromisesPerCall));
    transcript.push(...tail, { role: 'assistant', content });
    const uses = content.filter((block): block is ToolUseBlock => block.type === 'tool_use');
    if (uses.length === 0) return calls;
    tail = [
      buildToolResultMessage(uses, 'outcomes' in answer ? answer.outcomes : await durableTools(key, uses), 'missing'),
    ];
  }
}

/**
 * bench:spawn's bare-SDK fan-out: the parent's model call (the durable root's first request: its answer
 * asks for `children` Agent calls), then its children started `batch` at a time, each its start (a local
 * activity) and its first model call (the durable child's first request). Conversations in the bench's
 * memory, by workflow id (bench/floor/served-activities.ts).
 */
export async function floorServedFanParent(children: number, batch: number): Promise<void> {
  const { workflowId } = workflowInfo();
  await servedModelCall(workflowId);
  const handles = await startChildren(
    floorServedFanChild,
    Array.from({ length: children }, () => []),
    batch,
  );
  await Promise.all(handles.map((handle) => handle.result()));
}

export async function floorServedFanChild(): Promise<void> {
  const { workflowId } = workflowInfo();
  await render(workflowId);
  await servedModelCall(workflowId);
}

/** A child of the fan-out: its start (a local activity), then its first model call. */
export async function floorFanChild(): Promise<void> {
  const { workflowId } = workflowInfo();
  await render(workflowId);
  await call(workflowId, 0);
}

/** One model answer asks for `children` background children; they are started `batch` at a time and awaited. */
export async function floorFanParent(children: number, batch: number): Promise<void> {
  const { workflowId } = workflowInfo();
  await call(workflowId, 0);
  const handles = await startChildren(
    floorFanChild,
    Array.from({ length: children }, () => []),
    batch,
  );
  await Promise.all(handles.map((handle) => handle.result()));
}

/** A leaf of the scale case: its start, then `turns` model calls with Reads between them. */
export async function floorScaleChild(turns: number, latencyMs: number, files: string[]): Promise<void> {
  const { workflowId } = workflowInfo();
  await render(workflowId);
  for (let turn = 0; turn < turns; turn++) {
    await call(`${workflowId}/${turn}`, latencyMs);
    if (turn < turns - 1) await read(files);
  }
}

/** The scale case's root: one model call spawns the children, it waits for them all, then answers. */
export async function floorScaleParent(
  children: number,
  turns: number,
  latencyMs: number,
  files: string[],
): Promise<void> {
  const { workflowId } = workflowInfo();
  await call(`${workflowId}/spawn`, latencyMs);
  const handles = await startChildren(
    floorScaleChild,
    Array.from({ length: children }, () => [turns, latencyMs, files]),
    10,
  );
  await Promise.all(handles.map((handle) => handle.result()));
  await call(`${workflowId}/answer`, latencyMs);
}

/**
 * bench:scale's 50 case as bare workflows sending the durable agents' requests (bench:scale's `bareSdk`): the
 * root's first request (its answer asks for the children), its children started `batch` at a time, each its
 * start (a local activity) and the durable child's conversation with its Reads in its model calls (as the
 * runtime's turn runs them), then the root's answer with every child's. Conversations by workflow id.
 */
export async function floorServedScaleParent(children: number, batch: number): Promise<void> {
  const { workflowId } = workflowInfo();
  await servedModelCall(workflowId);
  const handles = await startChildren(
    floorServedScaleChild,
    Array.from({ length: children }, () => []),
    batch,
  );
  const calls = await Promise.all(handles.map((handle) => handle.result()));
  await servedModelCallWithResults(
    workflowId,
    calls.map((count, index) => `child ${index + 1} finished after ${count} model calls`),
  );
}

export async function floorServedScaleChild(): Promise<number> {
  const { workflowId } = workflowInfo();
  await render(workflowId);
  return floorDurableLoop(workflowId, 0, true);
}

/**
 * A node of the stopped tree: starts its children (`fanOut[0]` of them, each with `fanOut.slice(1)`),
 * then waits on a heartbeating activity until cancelled — or, for a busy leaf (`busyMs` > 0), runs
 * turns until cancelled: a model call of `busyMs`, then its Reads. Cancelling the root cancels
 * everything below it (the SDK's default for children: the parent hears when each child is cancelled),
 * and a node closes after its children.
 */
export async function floorTreeNode(fanOut: number[], busyMs: number, files: string[]): Promise<void> {
  const [count = 0, ...below] = fanOut;
  const { workflowId } = workflowInfo();
  await render(workflowId);
  const handles =
    count > 0
      ? await startChildren(
          floorTreeNode,
          Array.from({ length: count }, () => [below, busyMs, files]),
          10,
        )
      : [];
  await call(workflowId, 0);
  // A stopped node closes only when its children have: like an agent that reports its subagents' ends.
  const ends = await Promise.allSettled([
    count === 0 && busyMs > 0 ? busyTurns(busyMs, files) : wait(),
    ...handles.map((handle) => handle.result()),
  ]);
  const failed = ends.find((end) => end.status === 'rejected');
  if (failed) throw failed.reason;
}

async function busyTurns(busyMs: number, files: string[]): Promise<never> {
  const { workflowId } = workflowInfo();
  for (let turn = 1; ; turn++) {
    await call(`${workflowId}/${turn}`, busyMs);
    await read(files);
  }
}
