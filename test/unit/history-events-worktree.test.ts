/** A transcript finds the worktree an agent worked in, whether git made it or a WorktreeCreate hook did. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import proto from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { readRunHistory } from '../../src/transcript/history-events';

const historiesDir = path.join(__dirname, '..', 'fixtures', 'histories');
const decode = async (payloads: Parameters<Parameters<typeof readRunHistory>[1]>[0]) =>
  payloads?.[0] ? defaultPayloadConverter.fromPayload(payloads[0]) : undefined;

describe('readRunHistory worktrees', () => {
  it("keeps a WorktreeCreate hook's directory as the agent's worktree", async () => {
    const history = proto.temporal.api.history.v1.History.fromObject(
      JSON.parse(readFileSync(path.join(historiesDir, 'hook-worktree-child.json'), 'utf8')),
    );
    const facts = await readRunHistory(history, decode);
    expect(facts.worktrees).toHaveLength(1);
    expect(facts.worktrees[0]).toMatchObject({ madeBy: 'hook', branch: '' });
    expect((facts.worktrees[0] as { path: string }).path).toMatch(/^\//);
  });
});
