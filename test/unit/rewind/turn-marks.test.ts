import { describe, expect, it } from 'vitest';
import type { MessageParam } from '../../../src/shared/model/messages';
import { formatTranscripts } from '../../../src/transcript/human-view';
import { stitchRuns, type RunLog } from '../../../src/transcript/stitch';
import type { AgentTranscript } from '../../../src/transcript/transcript-types';
import { Conversation } from '../../../src/workflows/context/conversation';
import { answer, label, prompt, t0, toolCall, toolResult } from './fixtures';

/**
 * One run of an agent as its workflow keeps it: the Conversation and the turn boundaries, recorded and cut back
 * the way turn-log.ts does (its `marksInRun` needs a workflow's runId; this stands in for it with a plain string).
 */
class Run {
  readonly conversation: Conversation;
  constructor(
    readonly runId: string,
    readonly turns: { turn: number; runId: string; logLength: number; messageCount: number }[] = [],
    carried: readonly MessageParam[] = [],
  ) {
    this.conversation = new Conversation(carried);
  }

  say(...messages: MessageParam[]): this {
    for (const message of messages) this.conversation.append(message);
    return this;
  }

  /** The boundary the conversation is at now. */
  boundary(): this {
    const last = this.turns[this.turns.length - 1];
    this.turns.push({
      turn: last ? last.turn + 1 : 0,
      runId: this.runId,
      logLength: this.conversation.position.logLength,
      messageCount: this.conversation.messages.length,
    });
    return this;
  }

  /** A rewind in place to a boundary of this run's current epoch (rewinding.ts): conversation and boundaries cut back. */
  rewindTo(turn: number): this {
    const found = this.turns.find((boundary) => boundary.turn === turn)!;
    this.conversation.truncateTo(found.messageCount);
    this.turns.splice(this.turns.indexOf(found) + 1);
    return this;
  }

  /** Continue-as-new: the next run carries the conversation and the boundaries. */
  next(runId: string): Run {
    return new Run(runId, [...this.turns], this.conversation.messages);
  }

  /** All pages of the `transcript` query, with this run's marks. */
  log(): RunLog {
    const page = this.conversation.transcript(0);
    return {
      messages: page.messages,
      carriedCount: page.carriedCount,
      boundaries: page.boundaries,
      current: page.current,
      turnMarks: this.turns
        .filter((boundary) => boundary.runId === this.runId && boundary.logLength > 0)
        .map((boundary) => ({ turn: boundary.turn, lastIndex: boundary.logLength - 1 })),
    };
  }
}

/** Each turn mark as the label of the message it follows. */
const endings = (messages: readonly MessageParam[], turns: readonly { turn: number; afterIndex: number }[]) =>
  turns.map(({ turn, afterIndex }) => [turn, label(messages[afterIndex]!)]);

const turnOf = (run: Run, id: string) => run.say(toolCall(id), toolResult(id, `output of ${id}`)).boundary();

describe('turn marks in one run', () => {
  it('follow each boundary: the opening after the prompt, each tool turn after its results', () => {
    const run = new Run('run-1').say(prompt('Fix the test')).boundary();
    turnOf(run, 't1');
    turnOf(run, 't2');
    run.say(answer('done')).boundary();
    const stitched = stitchRuns([run.log()]);
    expect(stitched.turns).toEqual([
      { turn: 0, afterIndex: 0 },
      { turn: 1, afterIndex: 2 },
      { turn: 2, afterIndex: 4 },
      { turn: 3, afterIndex: 5 },
    ]);
  });

  it('are absent for a run that recorded none (a run from before turn marks)', () => {
    const run = new Run('run-1').say(prompt('Fix the test'), answer('done'));
    const { turnMarks: _marks, ...older } = run.log();
    expect(stitchRuns([older]).turns).toEqual([]);
  });
});

describe('turn marks across continue-as-new', () => {
  it("map the second run's marks past the carried messages, and keep the first run's", () => {
    const first = new Run('run-1').say(prompt('Fix the test')).boundary();
    turnOf(first, 't1');
    turnOf(first, 't2');
    const second = first.next('run-2');
    turnOf(second, 't3');
    second.say(answer('done')).boundary();
    const secondLog = second.log();
    expect(secondLog.carriedCount).toBe(5);
    // The second run's own marks only: its boundaries 0-2 are the first run's.
    expect(secondLog.turnMarks).toEqual([
      { turn: 3, lastIndex: 6 },
      { turn: 4, lastIndex: 7 },
    ]);
    const stitched = stitchRuns([first.log(), secondLog]);
    expect(stitched.messages).toHaveLength(8);
    expect(endings(stitched.messages, stitched.turns)).toEqual([
      [0, 'Fix the test'],
      [1, 'result:t1'],
      [2, 'result:t2'],
      [3, 'result:t3'],
      [4, 'done'],
    ]);
  });

  it('after three runs, every turn ends after its own message', () => {
    const first = new Run('run-1').say(prompt('Fix the test')).boundary();
    turnOf(first, 't1');
    const second = turnOf(first.next('run-2'), 't2');
    const third = turnOf(second.next('run-3'), 't3');
    const stitched = stitchRuns([first.log(), second.log(), third.log()]);
    expect(endings(stitched.messages, stitched.turns)).toEqual([
      [0, 'Fix the test'],
      [1, 'result:t1'],
      [2, 'result:t2'],
      [3, 'result:t3'],
    ]);
  });
});

describe('turn marks after a rewind (truncateTo)', () => {
  it("drop the abandoned turns' marks and put the new turns after the abandoned messages, which stay", () => {
    const run = new Run('run-1').say(prompt('Fix the test')).boundary();
    turnOf(run, 't1');
    turnOf(run, 't2');
    turnOf(run, 't3');
    run.rewindTo(1);
    turnOf(run, 't2b');
    const stitched = stitchRuns([run.log()]);
    expect(stitched.messages.map(label)).toEqual([
      'Fix the test',
      'use:t1',
      'result:t1',
      'use:t2',
      'result:t2',
      'use:t3',
      'result:t3',
      'use:t2b',
      'result:t2b',
    ]);
    expect(endings(stitched.messages, stitched.turns)).toEqual([
      [0, 'Fix the test'],
      [1, 'result:t1'],
      [2, 'result:t2b'],
    ]);
  });

  it('rewound to the opening, the new turn 1 ends after the new branch', () => {
    const run = new Run('run-1').say(prompt('Fix the test')).boundary();
    turnOf(run, 't1');
    run.rewindTo(0);
    turnOf(run, 't1b');
    const stitched = stitchRuns([run.log()]);
    expect(endings(stitched.messages, stitched.turns)).toEqual([
      [0, 'Fix the test'],
      [1, 'result:t1b'],
    ]);
  });

  it('a rewind before a continue-as-new: the next run carries the branch, not the abandoned turns', () => {
    const first = new Run('run-1').say(prompt('Fix the test')).boundary();
    turnOf(first, 't1');
    turnOf(first, 't2');
    first.rewindTo(1);
    turnOf(first, 't2b');
    const second = turnOf(first.next('run-2'), 't3');
    const stitched = stitchRuns([first.log(), second.log()]);
    expect(stitched.messages.map(label)).toEqual([
      'Fix the test',
      'use:t1',
      'result:t1',
      'use:t2',
      'result:t2',
      'use:t2b',
      'result:t2b',
      'use:t3',
      'result:t3',
    ]);
    expect(endings(stitched.messages, stitched.turns)).toEqual([
      [0, 'Fix the test'],
      [1, 'result:t1'],
      [2, 'result:t2b'],
      [3, 'result:t3'],
    ]);
  });

  it('a rewind in the second run to a turn it recorded itself', () => {
    const first = new Run('run-1').say(prompt('Fix the test')).boundary();
    turnOf(first, 't1');
    const second = first.next('run-2');
    turnOf(second, 't2');
    turnOf(second, 't3');
    second.rewindTo(2);
    turnOf(second, 't3b');
    const stitched = stitchRuns([first.log(), second.log()]);
    expect(endings(stitched.messages, stitched.turns)).toEqual([
      [0, 'Fix the test'],
      [1, 'result:t1'],
      [2, 'result:t2'],
      [3, 'result:t3b'],
    ]);
    expect(stitched.messages.map(label).slice(-4)).toEqual(['use:t3', 'result:t3', 'use:t3b', 'result:t3b']);
  });
});

describe('the human transcript', () => {
  function transcriptOf(messages: readonly MessageParam[], turns: AgentTranscript['turns']): AgentTranscript {
    return {
      meta: {
        type: 'meta',
        agentId: 'agent-1.2',
        agentType: 'general-purpose',
        description: null,
        parentAgentId: 'agent-1',
        parentToolUseId: 'toolu_1',
        depth: 1,
        model: 'claude-test-tiny',
        worktree: null,
        cwd: '/repo',
        gitBranch: 'main',
      },
      messages: messages.map((message, index) => ({ message, timestampMs: t0 + index * 1000 })),
      compactions: [],
      ...(turns ? { turns } : {}),
      runIds: ['run-1'],
      childIds: [],
    };
  }

  it('prints `── end of turn N` right after the message that ends it, with the commands that use it', () => {
    const run = new Run('run-1').say(prompt('Fix the test')).boundary();
    turnOf(run, 't1');
    turnOf(run, 't2');
    run.rewindTo(1);
    turnOf(run, 't2b');
    const stitched = stitchRuns([run.log()]);
    const lines = formatTranscripts([transcriptOf(stitched.messages, stitched.turns)]).split('\n');
    const ends = lines.filter((line) => line.startsWith('── end of turn'));
    expect(ends).toEqual([
      '── end of turn 0 (subagents fork|rewind agent-1.2 --turn 0)',
      '── end of turn 1 (subagents fork|rewind agent-1.2 --turn 1)',
      '── end of turn 2 (subagents fork|rewind agent-1.2 --turn 2)',
    ]);
    // Each mark follows the last line of its message: the prompt, t1's result, the new branch's result.
    expect(lines[lines.indexOf(ends[0]!) - 1]).toBe('Fix the test');
    expect(lines[lines.indexOf(ends[1]!) - 1]).toBe('← Bash: output of t1');
    expect(lines[lines.indexOf(ends[2]!) - 1]).toBe('← Bash: output of t2b');
    // The abandoned turn 2 is shown, without a mark.
    const abandoned = lines.indexOf('← Bash: output of t2');
    expect(abandoned).toBeGreaterThan(0);
    expect(lines[abandoned + 1]).not.toMatch(/end of turn/);
  });

  it('prints two marks after one message when two turns end there, and none without marks', () => {
    const messages = [prompt('Fix the test'), answer('done')];
    const both = formatTranscripts([
      transcriptOf(messages, [
        { turn: 1, afterIndex: 1 },
        { turn: 2, afterIndex: 1 },
      ]),
    ]).split('\n');
    expect(both.slice(-2)).toEqual([
      '── end of turn 1 (subagents fork|rewind agent-1.2 --turn 1)',
      '── end of turn 2 (subagents fork|rewind agent-1.2 --turn 2)',
    ]);
    expect(formatTranscripts([transcriptOf(messages, undefined)])).not.toContain('end of turn');
  });
});
