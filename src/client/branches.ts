// Fork and rewind from the client (docs/rewind.md): which agent, which boundary, and where the branch goes.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import {
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type WorkflowClient,
  type WorkflowHandle,
} from '@temporalio/client';
import type { AgentWorkflowInput } from '../shared/agents/agent';
import { resumeDescendantUpdate, resumeStateQuery, type ResumeState } from '../shared/protocol/definitions';
import { agentDepthKey, agentTypeKey, rootAgentIdKey } from '../shared/protocol/search-attributes';
import { branchInput, branchRefusal, type BranchOptions } from '../shared/rewind/branch-input';
import { withSettingsWatch } from '../shared/agents/agent-input';
import {
  forkSubagentUpdate,
  rewindUpdate,
  turnsQuery,
  type ForkAck,
  type RewindAck,
  type TurnsSnapshot,
} from '../shared/rewind/rewind-protocol';
import { findBoundary, latestCheckpoint, type TurnBoundary } from '../shared/rewind/turns';
import { changesSince } from '../checkpoints/index';
import { changedUnderneathText } from '../shared/rewind/refusals';
import { loadAgentDefinitions } from '../project/agent-definitions/load';
import { existingDirectory } from './root-input';

/** Options of `fork` (docs/rewind.md). */
export interface ForkOptions {
  /** The boundary: the conversation after this many turns (0: the opening). */
  turn: number;
  /** A user message that continues the fork; without it the fork goes on from the boundary as the source did. */
  prompt?: string;
  /** Another agent type (its system prompt replaces the source's: the cache prefix is not shared then). */
  type?: string;
  /** Where the fork works (default where the source started). */
  cwd?: string;
  /** Its own git worktree holding the source's files as of the turn. */
  worktree?: boolean;
  /** A new root even when the source's parent runs (default: a subagent's fork is placed beside it). */
  root?: boolean;
  /** The new root's id (default `fork-<random>`). */
  agentId?: string;
  homeDir?: string;
  by?: string;
}

export interface ForkResult {
  agentId: string;
  /** `tree`: a child of the source's parent, counted by the tree's limits; `root`: a new tree. */
  placement: 'tree' | 'root';
  startedBy?: string;
  sourceAgentId: string;
  turn: number;
  /** Why a subagent's fork became a new root (its parent had finished). */
  note?: string;
}

/** Options of `rewind` (docs/rewind.md). */
export interface RewindOptions {
  turn: number;
  /** The workspace returns to the checkpoint as of the turn (refused when files changed since by someone else). */
  files?: boolean;
  prompt?: string;
  by?: string;
}

/** A running agent rewinds in place (its run goes on); a finished one gets a new run that starts at the boundary. */
export type RewindOutcome =
  { mode: 'in-place'; ack: RewindAck } | { mode: 'new-run'; agentId: string; turn: number; startedBy?: string };

/** Turn boundaries of an agent, running or finished. */
export async function agentTurns(client: WorkflowClient, agentId: string): Promise<TurnsSnapshot> {
  return client.getHandle(agentId).query(turnsQuery);
}

/** Forks an agent at a turn: a sibling in its tree when its parent runs, else (or with `root`) a new root. */
export async function forkAgent(client: WorkflowClient, sourceId: string, options: ForkOptions): Promise<ForkResult> {
  const source = client.getHandle(sourceId);
  const description = await describeAgent(source, sourceId);
  const previous = await source.query(resumeStateQuery);
  const boundary = boundaryOf(previous, options.turn);
  const cwd =
    options.cwd !== undefined ? await existingDirectory(options.cwd, "The fork's working directory") : undefined;
  const parentId = previous.input.parentAgentId;
  let note: string | undefined;
  if (parentId !== undefined && !options.root && options.type === undefined) {
    if (await isRunning(client, parentId)) {
      const ack: ForkAck = await update(client.getHandle(parentId), () =>
        client.getHandle(parentId).executeUpdate(forkSubagentUpdate, {
          args: [
            {
              sourceAgentId: sourceId,
              turn: options.turn,
              ...(options.prompt !== undefined ? { prompt: options.prompt } : {}),
              ...(cwd !== undefined ? { cwd } : {}),
              ...(options.worktree ? { worktree: true } : {}),
              by: options.by ?? 'user',
            },
          ],
        }),
      );
      return {
        agentId: ack.agentId,
        placement: 'tree',
        startedBy: ack.startedBy,
        sourceAgentId: sourceId,
        turn: options.turn,
      };
    }
    note = `${sourceId}'s parent ${parentId} has finished: the fork is a new root.`;
  }
  const agentId = options.agentId ?? `fork-${randomUUID().slice(0, 8)}`;
  const branch: BranchOptions = {
    agentId,
    reason: 'fork',
    nowMs: Date.now(),
    ...(options.prompt !== undefined ? { prompt: options.prompt } : {}),
    ...(cwd !== undefined ? { cwd } : {}),
    ...(options.worktree ? { worktree: true } : {}),
  };
  const refusal = branchRefusal(previous, boundary, branch);
  if (refusal) throw new Error(`Not forked: ${refusal}`);
  // A new tree may keep the source's name (names address agents within a tree; a fork beside its source gets none).
  let input: AgentWorkflowInput = withSettingsWatch({
    ...asRoot(branchInput(previous, boundary, branch)),
    name: previous.input.name,
  });
  if (cwd !== undefined) input = { ...input, workspaceRoot: cwd };
  if (options.type !== undefined) input = await withType(input, options.type, options.homeDir);
  await client.start('agentWorkflow', {
    taskQueue: description.taskQueue,
    workflowId: agentId,
    args: [input],
    typedSearchAttributes: [
      { key: agentTypeKey, value: input.agentType },
      { key: rootAgentIdKey, value: agentId },
      { key: agentDepthKey, value: 0 },
    ],
    staticSummary: `${input.agentType}: fork of ${sourceId} at turn ${options.turn}`.slice(0, 200),
  });
  return { agentId, placement: 'root', sourceAgentId: sourceId, turn: options.turn, ...(note ? { note } : {}) };
}

/** Rewinds an agent to a turn: in place while it runs; a new run of it (same id) once it has finished. */
export async function rewindAgent(
  client: WorkflowClient,
  agentId: string,
  options: RewindOptions,
): Promise<RewindOutcome> {
  const handle = client.getHandle(agentId);
  const description = await describeAgent(handle, agentId);
  const by = options.by ?? 'user';
  if (description.status.name === 'RUNNING') {
    const ack = await update(handle, () =>
      handle.executeUpdate(rewindUpdate, {
        args: [
          {
            turn: options.turn,
            ...(options.files ? { files: true } : {}),
            ...(options.prompt !== undefined ? { prompt: options.prompt } : {}),
            by,
          },
        ],
      }),
    );
    return { mode: 'in-place', ack };
  }
  const previous = await handle.query(resumeStateQuery);
  const boundary = boundaryOf(previous, options.turn);
  const branch: BranchOptions = {
    agentId,
    reason: 'rewind',
    nowMs: Date.now(),
    ...(options.prompt !== undefined ? { prompt: options.prompt } : {}),
    ...(options.files ? { files: true } : {}),
  };
  const refusal = branchRefusal(previous, boundary, branch);
  if (refusal) throw new Error(`Not rewound: ${refusal}`);
  if (options.files) await refuseChangedUnderneath(previous);
  const input = withSettingsWatch(branchInput(previous, boundary, branch));
  if (input.parentAgentId !== undefined) {
    const ancestor = await nearestRunningAncestor(client, agentId);
    if (ancestor) {
      const ack = await update(client.getHandle(ancestor), () =>
        client.getHandle(ancestor).executeUpdate(resumeDescendantUpdate, {
          args: [
            {
              agentId,
              prompt: options.prompt ?? '',
              rewind: { turn: options.turn, ...(options.files ? { files: true } : {}) },
              allowStopped: true,
              by,
            },
          ],
        }),
      );
      return { mode: 'new-run', agentId, turn: options.turn, startedBy: ack.startedBy };
    }
  }
  await client.start('agentWorkflow', {
    taskQueue: description.taskQueue,
    workflowId: agentId,
    args: [input.parentAgentId !== undefined ? { ...input, rootAgentId: agentId } : input],
    typedSearchAttributes: description.typedSearchAttributes,
    staticSummary: `${input.agentType}: rewound to turn ${options.turn}`.slice(0, 200),
  });
  return { mode: 'new-run', agentId, turn: options.turn };
}

/** `rewind --files` of a finished agent: refused, with the list, when files changed since its latest checkpoint. */
async function refuseChangedUnderneath(previous: ResumeState): Promise<void> {
  const latest = latestCheckpoint(previous.carried.turns ?? []);
  if (!latest) return;
  const root = previous.carried.worktree?.path ?? latest.root;
  // A workspace on another machine is checked there, by the new run before it restores anything.
  if (!fs.existsSync(root)) return;
  const changed = await changesSince(latest, root);
  if (changed.length === 0) return;
  throw new Error(changedUnderneathText(previous.input.agentId, changed, latest.turn));
}

function boundaryOf(previous: ResumeState, turn: number): TurnBoundary {
  const found = findBoundary(previous.carried.turns ?? [], turn, previous.input.agentId);
  if (typeof found === 'string') throw new Error(found);
  return found;
}

/** A fork placed as a new tree's root. */
function asRoot(input: AgentWorkflowInput): AgentWorkflowInput {
  return {
    ...input,
    parentAgentId: undefined,
    rootAgentId: input.agentId,
    depth: 0,
    background: undefined,
    inForegroundChain: undefined,
    parentToolUseId: undefined,
    scriptRunId: undefined,
  };
}

/** `--type`: the fork gets that type's prompt, rendered anew (the source's tools stay). */
async function withType(
  input: AgentWorkflowInput,
  type: string,
  homeDir: string | undefined,
): Promise<AgentWorkflowInput> {
  const { definitions } = await loadAgentDefinitions({ cwd: input.cwd, ...(homeDir ? { homeDir } : {}) });
  const definition = definitions[type];
  if (!definition)
    throw new Error(`No agent type "${type}" for ${input.cwd}. Types: ${Object.keys(definitions).sort().join(', ')}.`);
  return {
    ...input,
    agentType: definition.name,
    definitionPrompt: definition.prompt,
    definitionPromptRef: undefined,
    renderedSystemPrompt: undefined,
    carried: input.carried ? { ...input.carried, extraTools: undefined, spawnContext: undefined } : input.carried,
  };
}

async function describeAgent(handle: WorkflowHandle, agentId: string) {
  try {
    return await handle.describe();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError)
      throw new Error(`No agent "${agentId}". List agents with: subagents list`);
    throw error;
  }
}

async function isRunning(client: WorkflowClient, agentId: string): Promise<boolean> {
  try {
    return (await client.getHandle(agentId).describe()).status.name === 'RUNNING';
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/** The closest ancestor of a subagent whose workflow runs (its parent first, the root last), if any. */
export async function nearestRunningAncestor(client: WorkflowClient, agentId: string): Promise<string | undefined> {
  const parts = agentId.split('.');
  for (let length = parts.length - 1; length >= 1; length--) {
    const ancestorId = parts.slice(0, length).join('.');
    if (await isRunning(client, ancestorId)) return ancestorId;
  }
  return undefined;
}

/** An update's refusal as a plain Error with the workflow's words. */
async function update<T>(_handle: WorkflowHandle, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError)
      throw new Error((error.cause as Error | undefined)?.message ?? error.message);
    throw error;
  }
}
