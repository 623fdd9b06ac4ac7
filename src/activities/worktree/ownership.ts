/** Which run created a worktree: a marker in the worktree's private git directory, never in its files. */
import { Context } from '@temporalio/activity';
import fs from 'node:fs/promises';
import path from 'node:path';
import { gitAt } from '../../worktree/git';

/** What the marker records. */
export interface WorktreeMarker {
  owner: string;
  agentId: string;
  baseCommit: string;
}

const markerFile = 'subagents-owner.json';

/** The creating run: a retry finds its own worktree, and a leftover of an earlier run is not reused. */
export function ownerToken(agentId: string): string {
  let execution: { workflowId: string; runId: string } | undefined;
  try {
    execution = Context.current().info.workflowExecution;
  } catch {
    // Called outside an activity (tests, scripts): the agent id alone identifies the owner.
  }
  return execution ? `${agentId} ${execution.workflowId} ${execution.runId}` : agentId;
}

async function markerPath(worktreePath: string): Promise<string> {
  const adminDir = (await gitAt(worktreePath).raw(['rev-parse', '--absolute-git-dir'])).trim();
  return path.join(adminDir, markerFile);
}

/** The marker of a worktree, or undefined when it has none. */
export async function readMarker(worktreePath: string): Promise<WorktreeMarker | undefined> {
  try {
    return JSON.parse(await fs.readFile(await markerPath(worktreePath), 'utf8')) as WorktreeMarker;
  } catch {
    return undefined;
  }
}

/** Writes the marker (git deletes it with the worktree's administrative files). */
export async function writeMarker(worktreePath: string, marker: WorktreeMarker): Promise<void> {
  await fs.writeFile(await markerPath(worktreePath), `${JSON.stringify(marker)}\n`);
}
