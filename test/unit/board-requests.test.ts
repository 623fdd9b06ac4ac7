import { describe, expect, it } from 'vitest';
import { boardNameProblem, heartbeatIntervalMs, namedBoardId, treeBoardId } from '../../src/shared/board/board';
import { boardLimits } from '../../src/shared/board/board-limits';
import {
  normalizeTaskId,
  parseCreateTask,
  parseReleaseTask,
  parseTaskListFilter,
  parseUpdateTask,
} from '../../src/shared/board/board-requests';

const actor = { kind: 'agent', id: 'agent-1.2', name: 'alice', rootAgentId: 'agent-1' };
const problems = (parsed: { ok: boolean; problems?: string[] }) => (parsed.ok ? [] : parsed.problems!);

describe('board requests (hostile input)', () => {
  it.each([null, undefined, 42, 'text', [], [actor]])('refuses %j as a request, without throwing', (raw) => {
    expect(problems(parseCreateTask(raw))).toEqual(['the request must be a JSON object']);
    expect(problems(parseUpdateTask(raw))).toEqual(['the request must be a JSON object']);
    expect(problems(parseReleaseTask(raw))).toEqual(['the request must be a JSON object']);
    expect(problems(parseTaskListFilter(raw))).toEqual(['the request must be a JSON object']);
  });

  it('names every bad field of a create', () => {
    const found = problems(
      parseCreateTask({ actor: { kind: 'robot' }, subject: 7, description: null, blockedBy: 'x', extra: 1 }),
    );
    expect(found).toEqual([
      'unknown field(s) "extra" (allowed: actor, requestId, subject, description, activeForm, metadata, blockedBy)',
      'actor: "kind" must be one of agent, person',
      'actor: "id" is required',
      '"subject" must be a string',
      '"description" is required',
      '"blockedBy" must be a list of task ids, e.g. ["1", "2"]',
    ]);
  });

  it('refuses oversized fields with the limit, and too many dependencies', () => {
    const huge = 'x'.repeat(boardLimits.maxDescriptionChars + 1);
    expect(problems(parseCreateTask({ actor, subject: 'ok', description: huge }))).toEqual([
      `"description" has ${huge.length} characters; the limit is ${boardLimits.maxDescriptionChars}`,
    ]);
    const many = Array.from({ length: boardLimits.maxDependencies + 1 }, (_, index) => String(index + 1));
    expect(problems(parseUpdateTask({ actor, taskId: '1', addBlockedBy: many }))).toEqual([
      `"addBlockedBy" lists ${many.length} tasks; the limit is ${boardLimits.maxDependencies}`,
    ]);
    expect(problems(parseUpdateTask({ actor, taskId: '1', metadata: { big: 'y'.repeat(2_000) } }))[0]).toMatch(
      /"metadata" is \d+ characters of JSON; the limit is 1000/,
    );
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(problems(parseUpdateTask({ actor, taskId: '1', metadata: cyclic }))).toEqual([
      '"metadata" must be plain JSON',
    ]);
  });

  it('accepts task ids as 3, "3" and "#3", and nothing else', () => {
    expect([3, '3', '#3', ' 3 '].map(normalizeTaskId)).toEqual(['3', '3', '3', '3']);
    expect([0, -1, 1.5, '03', 'three', '../1', {}, null, '9'.repeat(12)].map(normalizeTaskId)).toEqual(
      Array(9).fill(undefined),
    );
    const parsed = parseUpdateTask({ actor, taskId: '#4', status: 'in_progress', addBlockedBy: [1, '#2', '2'] });
    expect(parsed).toEqual({
      ok: true,
      value: { actor, taskId: '4', status: 'in_progress', addBlockedBy: ['1', '2'] },
    });
    expect(problems(parseUpdateTask({ actor, taskId: '4', status: 'done' }))).toEqual([
      '"status" must be one of pending, in_progress, blocked, completed, deleted',
    ]);
  });

  it('derives board ids and checks board names', () => {
    expect(treeBoardId('agent-7f3a')).toBe('board:tree:agent-7f3a');
    expect(namedBoardId('release-team')).toBe('board:name:release-team');
    expect(boardNameProblem('release-team')).toBeUndefined();
    for (const bad of ['', 'has space', '../x', '-lead', 'a:b', 'x'.repeat(65)])
      expect(boardNameProblem(bad)).toMatch(/is not a board name/);
    expect(heartbeatIntervalMs(60_000)).toBe(20_000);
  });
});
