// The transcript of an agent rewound to a boundary another run holds (docs/rewind.md): every message once, and a mark
// where it went back. Runs are modelled as turn-marks.test.ts does, with the workflow's own Conversation and the
// rewind's conversation step (conversation-rewind.ts); the boundary query of the run that holds a turn stands in for
// the `fetchTurnConversation` activity.
import { describe, expect, it } from 'vitest';
import type { MessageParam } from '../../../src/shared/model/messages';
import { conversationHashOf } from '../../../src/shared/rewind/turns';
import { formatTranscripts } from '../../../src/transcript/human-view';
import { stitchRuns, type RunLog } from '../../../src/transcript/stitch';
import type { AgentTranscript } from '../../../src/transcript/transcript-types';
import { Conversation } from '../../../src/workflows/context/conversation';
import {
  continueWithPrompt,
  returnConversationTo,
  type FetchedConversation,
} from '../../../src/workflows/rewind/conversation-rewind';
import { answer, label, prompt, t0, toolCall, toolResult } from './fixtures';

interface Boundary {
  turn: number;
  runId: string;
  epoch: number;
  logLength: number;
  messageCount: number;
  hash: string;
}

/** One run of an agent: its Conversation and turn boundaries, recorded and cut as turn-log.ts and rewinding.ts do. */
class Run {
  readonly conversation: Conversation;
  readonly turns: Boundary[];

  constructor(
    readonly runId: string,
    turns: readonly Boundary[] = [],
    carried: readonly MessageParam[] = [],
  ) {
    this.turns = [...turns];
    this.conversation = new Conversation(carried);
  }

  say(...messages: MessageParam[]): this {
    for (const message of messages) this.conversation.append(message);
    return this;
  }

  boundary(): this {
    const last = this.turns[this.turns.length - 1];
    this.turns.push({
      turn: last ? last.turn + 1 : 0,
      runId: this.runId,
      ...this.conversation.position,
      messageCount: this.conversation.messages.length,
      hash: this.conversation.hash,
    });
    return this;
  }

  turn(id: string): this {
    return this.say(toolCall(id), toolResult(id, `output of ${id}`)).boundary();
  }

  /** The `turnConversation` answer of this run for one of its own boundaries (turn-log.ts). */
  answer(turn: number): FetchedConversation {
    const found = this.turns.find((boundary) => boundary.turn === turn && boundary.runId === this.runId)!;
    const logIndices = this.conversation.projectionIndicesAt(found.epoch, found.logLength)!;
    const messages = this.conversation.projectionAt(found.epoch, found.logLength)!;
    expect(conversationHashOf(messages)).toBe(found.hash);
    return { boundary: { runId: this.runId }, messages, logIndices };
  }

  /** A rewind in place to `turn` (rewinding.ts): the conversation, then the boundaries after it dropped. */
  async rewindTo(turn: number, earlier: readonly Run[], options: { prompt?: string; fetches?: string[] } = {}) {
    const found = this.turns.find((boundary) => boundary.turn === turn)!;
    await returnConversationTo(this.conversation, found, this.runId, 'user', async () => {
      options.fetches?.push(found.runId);
      return earlier.find((run) => run.runId === found.runId)!.answer(turn);
    });
    expect(this.conversation.hash).toBe(found.hash);
    this.turns.splice(this.turns.indexOf(found) + 1);
    if (options.prompt !== undefined) continueWithPrompt(this.conversation, options.prompt);
    return this;
  }

  /** Continue-as-new: the next run carries the conversation and the boundaries. */
  next(runId: string): Run {
    return new Run(runId, this.turns, this.conversation.messages);
  }

  /** A finished agent rewound: a new run that starts from `turn`, fetched from the run that holds it (branch-opening.ts). */
  static rewound(runId: string, last: Run, earlier: readonly Run[], turn: number, newPrompt?: string): Run {
    const found = last.turns.find((boundary) => boundary.turn === turn)!;
    const run = new Run(runId, last.turns.slice(0, last.turns.indexOf(found) + 1));
    const fetched = earlier.find((candidate) => candidate.runId === found.runId)!.answer(turn);
    run.conversation.markRewind(turn);
    run.conversation.replaceWith(fetched.messages, { runId: found.runId, logIndices: fetched.logIndices! });
    if (newPrompt !== undefined) continueWithPrompt(run.conversation, newPrompt);
    return run;
  }

  /** All pages of the `transcript` query, with this run's turn marks. */
  log(): RunLog {
    const page = this.conversation.transcript(0);
    return {
      runId: this.runId,
      ...page,
      turnMarks: this.turns
        .filter((boundary) => boundary.runId === this.runId && boundary.logLength > 0)
        .map((boundary) => ({ turn: boundary.turn, lastIndex: boundary.logLength - 1 })),
    };
  }
}

/** Each mark as [turn, label of the message it follows]. */
const marks = (messages: readonly MessageParam[], at: readonly { turn: number; afterIndex: number }[]) =>
  at.map(({ turn, afterIndex }) => [turn, afterIndex < 0 ? '(start)' : label(messages[afterIndex]!)]);

const labels = (messages: readonly MessageParam[]) => messages.map(label);

/** Every message of the stitched transcript is a different one (JSON), so none is shown twice. */
function expectEachOnce(messages: readonly MessageParam[]): void {
  const seen = messages.map((message) => JSON.stringify(message));
  expect(seen.filter((text, index) => seen.indexOf(text) !== index)).toEqual([]);
}

/** The opening and turns t1, t2 in run-1, continued as new into run-2 with turns t3, t4. */
function twoRuns(): { first: Run; second: Run } {
  const first = new Run('run-1').say(prompt('Fix the test')).boundary().turn('t1').turn('t2');
  const second = first.next('run-2').turn('t3').turn('t4');
  return { first, second };
}

describe('a rewind in place to a boundary of an earlier run', () => {
  it('shows the fetched messages once, where the earlier run had them, and marks the rewind after the turn it left', async () => {
    const { first, second } = twoRuns();
    const fetches: string[] = [];
    await second.rewindTo(1, [first], { fetches });
    second.turn('t2b');
    expect(fetches).toEqual(['run-1']);
    const stitched = stitchRuns([first.log(), second.log()]);
    expect(labels(stitched.messages)).toEqual([
      'Fix the test',
      'use:t1',
      'result:t1',
      'use:t2',
      'result:t2',
      'use:t3',
      'result:t3',
      'use:t4',
      'result:t4',
      'use:t2b',
      'result:t2b',
    ]);
    expectEachOnce(stitched.messages);
    expect(marks(stitched.messages, stitched.rewinds)).toEqual([[1, 'result:t4']]);
    expect(stitched.rewinds[0]!.by).toBe('user');
    // Turns 2-4 of the branch it left have no mark: turn 2 now ends after the new branch.
    expect(marks(stitched.messages, stitched.turns)).toEqual([
      [0, 'Fix the test'],
      [1, 'result:t1'],
      [2, 'result:t2b'],
    ]);
  });

  it('with a prompt after tool results: the merged message is new, the copy is still not repeated', async () => {
    const { first, second } = twoRuns();
    await second.rewindTo(1, [first], { prompt: 'try another way' });
    second.say(toolCall('t2c'), toolResult('t2c')).boundary();
    const stitched = stitchRuns([first.log(), second.log()]);
    expectEachOnce(stitched.messages);
    expect(stitched.messages.filter((message) => label(message) === 'Fix the test')).toHaveLength(1);
    expect(labels(stitched.messages).slice(-3)).toEqual(['result:t1', 'use:t2c', 'result:t2c']);
    expect(JSON.stringify(stitched.messages.at(-3))).toContain('try another way');
    expect(marks(stitched.messages, stitched.rewinds)).toEqual([[1, 'result:t4']]);
  });

  it('joins a third run that carries the rewound conversation, copied messages included', async () => {
    const { first, second } = twoRuns();
    await second.rewindTo(1, [first]);
    second.turn('t2b');
    const third = second.next('run-3').turn('t3b');
    const stitched = stitchRuns([first.log(), second.log(), third.log()]);
    expectEachOnce(stitched.messages);
    expect(labels(stitched.messages).slice(-4)).toEqual(['use:t2b', 'result:t2b', 'use:t3b', 'result:t3b']);
    expect(marks(stitched.messages, stitched.turns)).toEqual([
      [0, 'Fix the test'],
      [1, 'result:t1'],
      [2, 'result:t2b'],
      [3, 'result:t3b'],
    ]);
  });

  it('a compaction after the rewind keeps its kept messages at the earlier run’s places', async () => {
    const { first, second } = twoRuns();
    await second.rewindTo(1, [first]);
    second.turn('t2b');
    // Summarise the opening; keep t1's call and result (copied) and t2b.
    second.conversation.compact(prompt('SUMMARY'), 1, {
      trigger: 'manual',
      preTokens: 100,
      postTokens: 20,
      summarisedMessages: 1,
      keptMessages: 4,
      turn: 2,
      atMs: 0,
    });
    const stitched = stitchRuns([first.log(), second.log()]);
    expectEachOnce(stitched.messages);
    const [compaction] = stitched.boundaries;
    expect(labels(compaction!.keptIndices.map((index) => stitched.messages[index]!))).toEqual([
      'use:t1',
      'result:t1',
      'use:t2b',
      'result:t2b',
    ]);
    expect(compaction!.keptIndices.slice(0, 2)).toEqual([1, 2]);
  });
});

describe('a rewind within one run to a boundary of an earlier epoch', () => {
  it('takes the messages from its own log by index: nothing is copied, so nothing is shown twice', async () => {
    const run = new Run('run-1').say(prompt('Fix the test')).boundary().turn('t1').turn('t2').turn('t3');
    const fetches: string[] = [];
    await run.rewindTo(2, [], { fetches });
    run.turn('t3b');
    const logLength = run.conversation.position.logLength;
    // Turn 1 was recorded before the first rewind (another epoch): still no fetch and no copy.
    await run.rewindTo(1, [], { fetches });
    expect(fetches).toEqual([]);
    expect(run.conversation.position.logLength).toBe(logLength);
    expect(run.conversation.transcript(0).copies).toBeUndefined();
    run.turn('t2c');
    const stitched = stitchRuns([run.log()]);
    expectEachOnce(stitched.messages);
    expect(labels(stitched.messages)).toEqual([
      'Fix the test',
      'use:t1',
      'result:t1',
      'use:t2',
      'result:t2',
      'use:t3',
      'result:t3',
      'use:t3b',
      'result:t3b',
      'use:t2c',
      'result:t2c',
    ]);
    expect(marks(stitched.messages, stitched.rewinds)).toEqual([
      [2, 'result:t3'],
      [1, 'result:t3b'],
    ]);
    expect(marks(stitched.messages, stitched.turns)).toEqual([
      [0, 'Fix the test'],
      [1, 'result:t1'],
      [2, 'result:t2c'],
    ]);
  });
});

describe("a finished agent's rewind in a new run", () => {
  it('keeps the turns it left, shows the boundary’s messages once, and marks the rewind after the last run', () => {
    const { first, second } = twoRuns();
    second.say(answer('done')).boundary();
    const third = Run.rewound('run-3', second, [first, second], 1).turn('t2b');
    const stitched = stitchRuns([first.log(), second.log(), third.log()]);
    expect(labels(stitched.messages)).toEqual([
      'Fix the test',
      'use:t1',
      'result:t1',
      'use:t2',
      'result:t2',
      'use:t3',
      'result:t3',
      'use:t4',
      'result:t4',
      'done',
      'use:t2b',
      'result:t2b',
    ]);
    expectEachOnce(stitched.messages);
    expect(marks(stitched.messages, stitched.rewinds)).toEqual([[1, 'done']]);
    expect(stitched.rewinds[0]!.by).toBeUndefined();
    expect(marks(stitched.messages, stitched.turns)).toEqual([
      [0, 'Fix the test'],
      [1, 'result:t1'],
      [2, 'result:t2b'],
    ]);
  });

  it('to a boundary of the last run itself, with a prompt after its answer', () => {
    const { first, second } = twoRuns();
    second.say(answer('done')).boundary();
    const third = Run.rewound('run-3', second, [first, second], 5, 'and now the docs');
    third.say(answer('docs done')).boundary();
    const stitched = stitchRuns([first.log(), second.log(), third.log()]);
    expectEachOnce(stitched.messages);
    expect(labels(stitched.messages).slice(-3)).toEqual(['done', 'and now the docs', 'docs done']);
    expect(marks(stitched.messages, stitched.rewinds)).toEqual([[5, 'done']]);
  });
});

describe('copies the stitcher cannot place', () => {
  it('are shown as the run’s own messages: a source run not read (a fork’s), indices out of range, a mismatch', async () => {
    const { first, second } = twoRuns();
    await second.rewindTo(1, [first]);
    const log = second.log();
    const copy = log.copies![0]!;
    const stitchedWith = (copies: RunLog['copies']) => stitchRuns([first.log(), { ...log, copies }]);
    const shown = (copies: RunLog['copies']) =>
      stitchedWith(copies).messages.filter((message) => label(message) === 'Fix the test').length;
    expect(shown([copy])).toBe(1);
    expect(shown([{ ...copy, runId: 'another-agents-run' }])).toBe(2);
    expect(shown([{ ...copy, logIndices: [-1, 99, Number.NaN] }])).toBe(2);
    expect(shown([{ ...copy, logIndices: 'no' as unknown as number[] }])).toBe(2);
    // A copy naming the wrong messages keeps what was really said.
    const swapped = stitchedWith([{ ...copy, logIndices: [2, 1, 0] }]);
    // Only t1's call is where it says (index 1): the opening and t1's result are shown again, as the run had them.
    expect(swapped.messages).toHaveLength(5 + 4 + 2);
    expect(labels(swapped.messages).slice(-2)).toEqual(['Fix the test', 'result:t1']);
  });

  it('a run from before copies were recorded (no logIndices) still gets its rewind mark', async () => {
    const { first, second } = twoRuns();
    await second.rewindTo(1, [first]);
    const { copies: _copies, ...older } = second.log();
    const stitched = stitchRuns([first.log(), older]);
    expect(marks(stitched.messages, stitched.rewinds)).toEqual([[1, 'result:t4']]);
  });
});

describe('Conversation bookkeeping of rewinds', () => {
  it('records copies only with one log index per message, and rewinds where they happened', () => {
    const conversation = new Conversation();
    conversation.append(prompt('a'));
    conversation.markRewind(0, 'user');
    conversation.replaceWith([prompt('a')], { runId: 'run-0', logIndices: [0, 1] });
    expect(conversation.transcript(0).copies).toBeUndefined();
    conversation.replaceWith([prompt('a')], { runId: 'run-0', logIndices: [4] });
    const page = conversation.transcript(0);
    expect(page.copies).toEqual([{ from: 2, runId: 'run-0', logIndices: [4] }]);
    expect(page.rewinds).toEqual([{ turn: 0, lastIndex: 0, by: 'user' }]);
  });

  it('returnTo refuses a position it cannot rebuild, changing nothing', () => {
    const conversation = new Conversation();
    conversation.append(prompt('a'));
    expect(conversation.returnTo(3, 1)).toBe(false);
    expect(conversation.returnTo(0, 5)).toBe(false);
    expect(conversation.position).toEqual({ epoch: 0, logLength: 1 });
    expect(conversation.messages).toEqual([prompt('a')]);
  });
});

describe('the human transcript of a rewound agent', () => {
  it('prints the rewind after the message it followed, and the boundary’s messages once', async () => {
    const { first, second } = twoRuns();
    await second.rewindTo(1, [first]);
    second.turn('t2b');
    const stitched = stitchRuns([first.log(), second.log()]);
    const transcript: AgentTranscript = {
      meta: {
        type: 'meta',
        agentId: 'agent-1',
        agentType: 'general-purpose',
        description: null,
        parentAgentId: null,
        parentToolUseId: null,
        depth: 0,
        model: 'claude-test-tiny',
        worktree: null,
        cwd: '/repo',
        gitBranch: 'main',
      },
      messages: stitched.messages.map((message, index) => ({ message, timestampMs: t0 + index * 1000 })),
      compactions: [],
      turns: stitched.turns,
      rewinds: stitched.rewinds,
      runIds: ['run-1', 'run-2'],
      childIds: [],
    };
    const lines = formatTranscripts([transcript]).split('\n');
    const rewound = lines.indexOf('── rewound to turn 1 by user: what follows goes on from the end of turn 1 above');
    expect(rewound).toBeGreaterThan(0);
    expect(lines[rewound - 1]).toBe('← Bash: output of t4');
    expect(lines[rewound + 2]).toBe('→ Bash {"command":"t2b"}  [t2b]');
    expect(lines.filter((line) => line === 'Fix the test')).toHaveLength(1);
    expect(lines.filter((line) => line.startsWith('── end of turn 1 '))).toHaveLength(1);
  });
});
