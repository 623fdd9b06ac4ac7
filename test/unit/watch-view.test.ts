import { describe, expect, it } from 'vitest';
import { plainLine, renderTree } from '../../src/cli/watch/render';
import { buildFrame, frameEvents, nodesToRead, type PollReading } from '../../src/cli/watch/watch-model';
import type { AgentStatusSnapshot } from '../../src/shared/agents/agent';

const usage = { inputTokens: 1000, outputTokens: 200, cacheCreationInputTokens: 0, cacheReadInputTokens: 300 };
const status = (overrides: Partial<AgentStatusSnapshot>): AgentStatusSnapshot =>
  ({
    agentId: 'root',
    agentType: 'general-purpose',
    model: 'm',
    state: 'running_tools',
    turn: 2,
    maxTurns: 50,
    currentTools: ['Agent'],
    usage,
    toolUses: 1,
    startedAtMs: 0,
    messageCount: 3,
    treeUsage: usage,
    children: [],
    acceptsSteering: true,
    pendingApprovals: 0,
    rejectedInputs: { count: 0 },
    ...overrides,
  }) as AgentStatusSnapshot;

function reading(childState: Partial<AgentStatusSnapshot>, finished = false): PollReading {
  return {
    tree: {
      rootAgentId: 'root',
      spawningPaused: false,
      tokensUsed: 0,
      pendingApprovals: [],
      nodes: [
        {
          agentId: 'root.1',
          parentAgentId: 'root',
          agentType: 'reviewer',
          name: 'rev',
          depth: 1,
          background: false,
          status: finished ? 'finished' : 'running',
          startedAtMs: 1000,
          ...(finished ? { finishedAtMs: 9000 } : {}),
        },
      ],
    },
    rootStatus: status({}),
    statuses: new Map([
      ['root.1', status({ agentId: 'root.1', agentType: 'reviewer', currentTools: ['Bash'], ...childState })],
    ]),
    live: new Map([
      [
        'root',
        [
          {
            activityId: '1',
            activityType: 'callModel',
            attempt: 1,
            details: {
              kind: 'model',
              turn: 2,
              text: 'Thinking about it.\nNow delegating the review',
              textChars: 40,
              events: 9,
            },
          },
        ],
      ],
      [
        'root.1',
        [
          {
            activityId: '2',
            activityType: 'runBash',
            attempt: 1,
            details: { kind: 'tool', tool: 'Bash', lines: ['ok 1', 'ok 2'] },
          },
        ],
      ],
    ]),
  };
}

describe('watch view', () => {
  it("draws the tree with each agent's state, tool, tokens, elapsed and live line, the root's text below, colours by definition", () => {
    const frame = buildFrame(reading({}));
    const options = { nowMs: 61_000, styled: false };
    const text = renderTree(frame, options);
    expect(text.split('\n')).toEqual([
      'root  general-purpose  [running_tools: Agent] turn 2 · 1.5k tok · 1m01s',
      '└ root.1  reviewer "rev"  [running_tools: Bash] turn 2 · 1.5k tok · 1m00s',
      '    › ok 2',
      '',
      '── root is writing ──',
      'Thinking about it.',
      'Now delegating the review',
    ]);
    const styled = renderTree(frame, { ...options, styled: true, colours: new Map([['reviewer', 'purple']]) });
    expect(styled).toContain('\u001b[35m└ root.1');
    expect(plainLine(frame.nodes[1]!, options)).toBe(
      '00:01:01   root.1  reviewer "rev"  [running_tools: Bash] turn 2 · 1.5k tok · 1m00s › ok 2',
    );
  });

  it('marks a stalled agent and emits events only for changes', () => {
    const first = buildFrame(reading({}));
    expect(frameEvents(undefined, first).map((event) => event.event)).toEqual(['started', 'started']);
    expect(frameEvents(first, buildFrame(reading({}), first))).toEqual([]);
    const stalled = buildFrame(
      reading({
        stalled: { sinceMs: 0, afterMs: 5000, state: 'running_tools', activity: 'running Bash', action: 'report' },
      }),
      first,
    );
    expect(renderTree(stalled, { nowMs: 5000, styled: false })).toContain('[STALLED running_tools: Bash]');
    expect(frameEvents(first, stalled)).toMatchObject([{ event: 'updated', agentId: 'root.1', stalled: true }]);
    const done = buildFrame(reading({ result: { status: 'completed', usage } as never }, true), stalled);
    expect(frameEvents(stalled, done)).toMatchObject([
      { event: 'finished', agentId: 'root.1', state: 'completed', finishedAtMs: 9000 },
    ]);
  });

  it('a finished agent whose status has no result yet (or no answer) shows its result read from the server', () => {
    const first = buildFrame(reading({}));
    const unanswered = { ...reading({}, true), statuses: new Map() };
    expect(buildFrame(unanswered, first).nodes[1]).toMatchObject({ state: 'finished' });
    const withResult = { ...unanswered, results: new Map([['root.1', { status: 'max_turns', usage } as never]]) };
    const done = buildFrame(withResult, first);
    expect(done.nodes[1]).toMatchObject({ state: 'max_turns', tokens: 1500 });
    expect(frameEvents(first, done)).toMatchObject([{ event: 'finished', agentId: 'root.1', state: 'max_turns' }]);
    // A status answered before the result was set: the server's result wins over the status's state.
    const early = {
      ...reading({ state: 'finishing' as never }, true),
      results: new Map([['root.1', { status: 'completed', usage } as never]]),
    };
    expect(buildFrame(early, first).nodes[1]).toMatchObject({ state: 'completed' });
  });

  it('reads an agent that was seen running and has now finished (its ending is read once), not one whose ending was shown', () => {
    const running = buildFrame(reading({}));
    const nowFinished = reading({}, true).tree;
    expect(nodesToRead(nowFinished, running).map((node) => node.agentId)).toEqual(['root.1']);
    expect(nodesToRead(nowFinished, undefined).map((node) => node.agentId)).toEqual(['root.1']);
    const shown = buildFrame({ ...reading({ result: { status: 'completed', usage } as never }, true) }, running);
    expect(shown.nodes[1]).toMatchObject({ state: 'completed' });
    expect(nodesToRead(nowFinished, shown)).toEqual([]);
  });

  it("a tree already finished when watched: one line per agent (its ending), and the root's elapsed time is its run's", () => {
    const result = { status: 'completed', usage, durationMs: 12_000 } as never;
    const ended = {
      ...reading({ result: { status: 'completed', usage } as never }, true),
      rootStatus: status({ state: 'finished' as never, result }),
    };
    const frame = buildFrame(ended);
    const events = frameEvents(undefined, frame);
    expect(events.map((event) => event.event)).toEqual(['finished', 'finished', 'result']);
    // Watched an hour later: 12 s, not an hour.
    expect(renderTree(frame, { nowMs: 3_600_000, styled: false }).split('\n')[0]).toMatch(/ · 12s$/);
  });
});
