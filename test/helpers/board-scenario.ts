import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { BoardSnapshot } from '../../src/shared/board/board';
import type { Turn } from '../../src/model-server/server';

/** An agent definition that names Claude Code's task-list tools, as public agent files do. */
export const boardWorkerDefinition = `---
name: board-worker
description: Works the team's shared task board until every task is done
tools: TaskList, TaskGet, TaskUpdate, Bash
---
You are a worker of a team. Take tasks from the shared task board (TaskList), claim one at a time
(TaskUpdate status in_progress), do it, complete it, and go on until every task is done.
`;

/** Tasks 1-5 wait for nothing; each later task waits for two tasks of the layer before it. */
export function layeredDependencies(count: number): string[][] {
  return Array.from({ length: count }, (_, index) => {
    const id = index + 1;
    if (id <= 5) return [];
    const first = id - 5;
    const second = first % 5 === 0 ? id - 9 : id - 4;
    return [String(first), String(second)];
  });
}

/** A lead that creates the tasks in one turn, then starts `workers` background board workers. */
export function leadTurns(dependencies: string[][], workers: number): Turn[] {
  return [
    {
      text: 'Setting up the board.',
      toolUses: dependencies.map((blockedBy, index) => ({
        name: 'TaskCreate',
        input: {
          subject: `step ${index + 1}`,
          description: `do step ${index + 1}`,
          ...(blockedBy.length > 0 ? { blockedBy } : {}),
        },
      })),
    },
    {
      toolUses: Array.from({ length: workers }, (_, index) => ({
        name: 'Agent',
        input: {
          description: `board worker ${index + 1}`,
          prompt: 'Work the board until every task is done.',
          subagent_type: 'board-worker',
          run_in_background: true,
        },
      })),
    },
    ...Array.from({ length: workers + 4 }, (): Turn => ({ text: 'Noted.' })),
  ];
}

/** The Bash command a worker runs per task: it logs its start and end to work.log in its workspace. */
export const workCommand = (sleepSeconds: number): string =>
  `echo "start {{task}} {{agent_id}}" >> work.log && sleep ${sleepSeconds} && echo "done {{task}} {{agent_id}}" >> work.log`;

export interface WorkLogEntry {
  kind: 'start' | 'done';
  taskId: string;
  agentId: string;
}

export function readWorkLog(workspace: string): WorkLogEntry[] {
  return readFileSync(path.join(workspace, 'work.log'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => {
      const [kind, taskId, agentId] = line.split(' ');
      return { kind: kind as WorkLogEntry['kind'], taskId: taskId!, agentId: agentId! };
    });
}

/** What the work log and the board say about exactly-once completion and dependency order. */
export function checkBoardRun(log: WorkLogEntry[], snapshot: BoardSnapshot) {
  const doneLines = new Map<string, WorkLogEntry[]>();
  for (const entry of log.filter((candidate) => candidate.kind === 'done'))
    doneLines.set(entry.taskId, [...(doneLines.get(entry.taskId) ?? []), entry]);
  const completedOnce = snapshot.tasks.filter(
    (task) => task.status === 'completed' && doneLines.get(task.id)?.length === 1,
  ).length;
  const doubleDone = [...doneLines.values()].filter((entries) => entries.length > 1).length;
  // A task whose work started before one of its dependencies was done breaks the order.
  const orderViolations: string[] = [];
  log.forEach((entry, index) => {
    if (entry.kind !== 'start') return;
    const task = snapshot.tasks.find((candidate) => candidate.id === entry.taskId);
    for (const blocker of task?.blockedBy ?? []) {
      const doneAt = log.findIndex((candidate) => candidate.kind === 'done' && candidate.taskId === blocker);
      if (doneAt < 0 || doneAt > index) orderViolations.push(`#${entry.taskId} started before #${blocker} was done`);
    }
  });
  // The board's own record: a claim while the task was already claimed would be a double claim.
  let doubleClaims = 0;
  const claimed = new Set<string>();
  for (const event of snapshot.events) {
    if (event.kind === 'claimed') {
      if (claimed.has(event.taskId)) doubleClaims += 1;
      claimed.add(event.taskId);
    } else if (event.kind !== 'created' && event.kind !== 'edited' && event.kind !== 'assigned')
      claimed.delete(event.taskId);
  }
  return { completedOnce, doubleDone, doubleClaims, orderViolations };
}
