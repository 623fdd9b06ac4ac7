// @slow
import { describe, expect, inject, it } from 'vitest';
import { parseWatchArgs, watchCommand } from '../../src/cli/commands/watch';
import { CliError, ExitCode } from '../../src/cli/exit-codes';
import type { WatchEvent } from '../../src/cli/watch/watch-model';
import { watchTree } from '../../src/cli/watch/watch-loop';
import { useAgentTestEnv } from '../helpers/agent-env';
import { agentNamed, bash, spawn } from '../helpers/scripted-agents';

const env = useAgentTestEnv();

describe('subagents watch', () => {
  it('--json emits the events of a 3-level tree in order: each agent started under its parent, the deepest finished first, the result last', async () => {
    env.script(
      agentNamed('watch-root', [
        {
          text: 'Planning the survey now.',
          toolUses: [spawn('survey', 'Survey and delegate', { subagent_type: 'general-purpose', name: 'watch-mid' })],
          eventDelayMs: 300,
        },
        { text: 'ROOT done' },
      ]),
      agentNamed('watch-mid', [
        {
          toolUses: [spawn('read notes', 'Read notes.txt', { subagent_type: 'general-purpose', name: 'watch-leaf' })],
          delayMs: 1500,
        },
        { text: 'MID done', delayMs: 1500 },
      ]),
      agentNamed('watch-leaf', [
        { toolUses: [bash('echo leaf-working; sleep 2')], delayMs: 1000 },
        { text: 'LEAF done', delayMs: 1000 },
      ]),
    );
    await env.writeFiles({ 'notes.txt': 'hello\n' });
    const handle = await env.start({ prompt: 'three levels, watched', name: 'watch-root' });
    const lines: string[] = [];
    const result = await watchTree(env.client, handle.agentId, {
      mode: 'json',
      print: (line) => lines.push(line),
      intervalMs: 200,
    });
    expect(result.status).toBe('completed');
    const events = lines.map((line) => JSON.parse(line) as WatchEvent);
    const index = (predicate: (event: WatchEvent) => boolean): number => events.findIndex(predicate);
    const named = (event: WatchEvent, kind: WatchEvent['event'], name: string): boolean =>
      event.event === kind && 'name' in event && event.name === name;
    const rootStarted = index((event) => event.event === 'started' && 'depth' in event && event.depth === 0);
    const midStarted = index((event) => named(event, 'started', 'watch-mid'));
    const leafStarted = index((event) => named(event, 'started', 'watch-leaf'));
    const leafFinished = index((event) => named(event, 'finished', 'watch-leaf'));
    const midFinished = index((event) => named(event, 'finished', 'watch-mid'));
    const rootFinished = index((event) => event.event === 'finished' && 'depth' in event && event.depth === 0);
    expect(
      [rootStarted, midStarted, leafStarted, leafFinished, midFinished, rootFinished].every(
        (position) => position >= 0,
      ),
    ).toBe(true);
    expect(rootStarted).toBeLessThan(midStarted);
    expect(midStarted).toBeLessThan(leafStarted);
    expect(leafStarted).toBeLessThan(leafFinished);
    expect(leafFinished).toBeLessThan(midFinished);
    expect(midFinished).toBeLessThan(rootFinished);
    expect(events[events.length - 1]).toMatchObject({
      event: 'result',
      result: { status: 'completed', agentId: handle.agentId },
    });
    // Each agent sits under its parent, at its depth.
    const mid = events[midStarted] as WatchEvent & { agentId: string };
    expect(events[midStarted]).toMatchObject({ parentAgentId: handle.agentId, depth: 1, agentType: 'general-purpose' });
    expect(events[leafStarted]).toMatchObject({ parentAgentId: mid.agentId, depth: 2, agentType: 'general-purpose' });
    expect(events[leafFinished]).toMatchObject({ state: 'completed' });
    // Updates carry what the agents were doing: the leaf's command, with its output as the last line.
    expect(
      events.some(
        (event) =>
          event.event === 'updated' && 'name' in event && event.name === 'watch-leaf' && event.currentTool === 'Bash',
      ),
    ).toBe(true);
  });

  it('refuses bad arguments and an unknown agent with a clear error', async () => {
    expect(() => parseWatchArgs([], false)).toThrow(CliError);
    expect(() => parseWatchArgs(['a', 'b'], false)).toThrow(/exactly one/);
    expect(() => parseWatchArgs(['a', '--interval', '5'], false)).toThrow(/--interval/);
    expect(() => parseWatchArgs(['a', '--interval', 'fast'], false)).toThrow(/--interval/);
    expect(() => parseWatchArgs(['a', '--bogus'], false)).toThrow(CliError);
    expect(parseWatchArgs(['a'], false).mode).toBe('plain');
    expect(parseWatchArgs(['a'], true).mode).toBe('tree');
    expect(parseWatchArgs(['a', '--plain'], true).mode).toBe('plain');
    expect(parseWatchArgs(['a', '--json', '--plain'], true).mode).toBe('json');
    const previous = process.env.TEMPORAL_ADDRESS;
    process.env.TEMPORAL_ADDRESS = inject('temporalAddress');
    try {
      const error = await watchCommand(['agent-does-not-exist']).catch((failure: unknown) => failure);
      expect(error).toBeInstanceOf(CliError);
      expect((error as CliError).exitCode).toBe(ExitCode.notFound);
    } finally {
      if (previous === undefined) delete process.env.TEMPORAL_ADDRESS;
      else process.env.TEMPORAL_ADDRESS = previous;
    }
  });
});
