// The scripted agent trees of the cluster suite and the helpers to run them: start on a worker,
// answer approvals like a person would, wait for the root's result.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { SubagentsClient, type AgentHandle } from '../../src/client/client';
import type { AgentResult } from '../../src/shared/agents/agent';
import type { Scenario } from '../../src/model-server/scenario-schema';
import { createRepo } from '../chaos/repo';
import { sleep, withTimeout } from '../chaos/util';
import type { ClusterEnv } from './env';

export type ScriptedAgent = Scenario['agents'][number];

export const rootDoneText = (rootId: string): string => `CLUSTER-ROOT-DONE ${rootId}`;

/**
 * A 3-level tree: the root reads, runs a Bash (approval), then starts a worktree child and a fork
 * side by side; the worktree child writes a file in its worktree and starts a leaf, whose Bash
 * (approval) records where it ran. `markers` is a file in the worker's workspace root.
 */
export function threeLevelTree(rootId: string, markers: string, delayMs = 0): ScriptedAgent[] {
  const slow = (turns: NonNullable<ScriptedAgent['turns']>) =>
    turns.map((turn) => (delayMs ? { ...turn, delayMs } : turn));
  return [
    {
      match: { agentId: rootId },
      turns: slow([
        {
          toolUses: [
            { name: 'Read', input: { file_path: 'shared.txt' } },
            { name: 'Glob', input: { pattern: '*.txt' } },
          ],
        },
        {
          toolUses: [
            {
              name: 'Bash',
              input: { command: `echo "root ${rootId} $(pwd)" >> '${markers}'`, description: 'record the root' },
            },
          ],
        },
        {
          toolUses: [
            {
              name: 'Agent',
              input: {
                description: 'worktree writer',
                prompt: `CLUSTER worktree branch of ${rootId}`,
                subagent_type: 'general-purpose',
                isolation: 'worktree',
              },
            },
            {
              name: 'Agent',
              input: {
                description: 'fork helper',
                prompt: `CLUSTER fork of ${rootId}: read shared.txt`,
                subagent_type: 'fork',
              },
            },
          ],
        },
        { text: rootDoneText(rootId) },
        // The fork runs in the background: when it ends after the root's answer (e.g. its model call was
        // on a killed worker and waited out its heartbeat timeout), its notification wakes the root once more.
        { text: rootDoneText(rootId) },
      ]),
    },
    {
      match: { agentId: `${rootId}.1` },
      turns: slow([
        {
          toolUses: [{ name: 'Write', input: { file_path: 'cluster-notes.txt', content: `written by ${rootId}.1\n` } }],
        },
        {
          toolUses: [
            {
              name: 'Agent',
              input: { description: 'leaf', prompt: `CLUSTER leaf of ${rootId}`, subagent_type: 'general-purpose' },
            },
          ],
        },
        { text: 'worktree branch done' },
      ]),
    },
    {
      match: { agentId: `${rootId}.1.1` },
      turns: slow([
        {
          toolUses: [
            {
              name: 'Bash',
              input: { command: `echo "leaf ${rootId}.1.1 $(pwd)" >> '${markers}'`, description: 'record the leaf' },
            },
          ],
        },
        { text: 'leaf done' },
      ]),
    },
    // The fork inherits the root's three assistant messages: its own turns come after them.
    {
      match: { agentId: `${rootId}.2` },
      turnOffset: 3,
      turns: slow([{ toolUses: [{ name: 'Read', input: { file_path: 'shared.txt' } }] }, { text: 'fork done' }]),
    },
  ];
}

/** A fresh git repository for one tree inside a worker's workspace root; returns the repo and a markers file beside it. */
export function workspaceFor(root: string, name: string): { repo: string; markers: string } {
  const dir = path.join(root, name);
  mkdirSync(dir, { recursive: true });
  return { repo: createRepo(dir), markers: path.join(dir, 'markers.log') };
}

export interface StartedTree {
  handle: AgentHandle;
  /** Approval requests answered so far (the approver runs until the tree ends). */
  approvals: string[];
  /** The root's result, approving every request meanwhile; a failed root throws. */
  result(timeoutMs: number): Promise<AgentResult>;
}

/** Starts a root on `worker` in `cwd`, approving what it asks. */
export async function startTree(
  env: ClusterEnv,
  options: {
    rootId: string;
    worker: string;
    cwd: string;
    permissionMode?: 'default' | 'bypassPermissions';
    workerWaitMs?: number;
    prompt?: string;
  },
): Promise<StartedTree> {
  const client = new SubagentsClient(env.temporal, env.info.taskQueue);
  const handle = await client.startAgent({
    agentId: options.rootId,
    prompt: options.prompt ?? `CLUSTER root ${options.rootId}`,
    cwd: options.cwd,
    homeDir: options.cwd,
    model: 'claude-test-tiny',
    permissionMode: options.permissionMode ?? 'default',
    worker: options.worker,
    ...(options.workerWaitMs ? { workerWaitMs: options.workerWaitMs } : {}),
    limits: { forking: true, backgroundApprovals: 'approve', autoBackgroundMs: 600_000 },
  });
  const approvals: string[] = [];
  let finished = false;
  const approver = (async () => {
    while (!finished) {
      const pending = await withTimeout(handle.approvals(), 10_000, 'approvals').catch(() => []);
      for (const request of pending) {
        if (approvals.includes(request.requestId)) continue;
        await withTimeout(
          handle.answerApproval(request.requestId, { approve: true, by: 'cluster suite' }),
          30_000,
          'an approval answer',
        )
          .then(() => approvals.push(request.requestId))
          .catch(() => undefined);
      }
      await sleep(300);
    }
  })();
  return {
    handle,
    approvals,
    async result(timeoutMs) {
      try {
        return await resultAcrossRestarts(handle, timeoutMs);
      } finally {
        finished = true;
        await approver;
      }
    },
  };
}

/** The root's result, retried while the server is away; a failed workflow throws its failure. */
export async function resultAcrossRestarts(handle: AgentHandle, timeoutMs: number): Promise<AgentResult> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await withTimeout(
        handle.result(),
        Math.max(1000, deadline - Date.now()),
        `the result of ${handle.agentId}`,
      );
    } catch (error) {
      if (error instanceof WorkflowFailedError || Date.now() > deadline) throw error;
      await sleep(1000);
    }
  }
}
