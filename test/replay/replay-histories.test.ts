// @slow
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import proto from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { historiesDir } from '../helpers/histories';

const files = readdirSync(historiesDir)
  .filter((file) => file.endsWith('.json'))
  .sort();

describe('replay of recorded histories', () => {
  it('has a corpus to replay', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  // A change to workflow code that would break runs of the same build fails here, saying what to do.
  it.each(files)('replays %s', async (file) => {
    await replay(file, historyOf(file));
  });

  it('says what to do when a history does not replay', async () => {
    const file = 'loop-multi-turn.json';
    const history = historyOf(file);
    // The first activity the run scheduled, renamed: the code now schedules another than the history holds.
    const scheduled = history.events.find((event) => event.activityTaskScheduledEventAttributes)!;
    scheduled.activityTaskScheduledEventAttributes!.activityType!.name = 'anotherActivity';
    const failure = await replay(file, history).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(Error);
    const text = (failure as Error).message;
    for (const part of ['breaks replay of runs', 'docs/operations.md, "Upgrades', 'hasPatch()', 'histories:record'])
      expect(text).toContain(part);
  });
});

describe('replay of recorded script runs', () => {
  // The script is part of the run's input: a run whose script now makes other calls than its history holds must not replay.
  it('fails when the script would make other agent() calls than the recorded run made', async () => {
    const file = 'script-run-primitives.json';
    const history = historyOf(file);
    const started = history.events[0]!.workflowExecutionStartedEventAttributes!;
    const payload = started.input!.payloads![0]!;
    const input = JSON.parse(new TextDecoder().decode(payload.data!)) as { script: { args: { items: string[] } } };
    input.script.args.items.push('gamma');
    payload.data = new TextEncoder().encode(JSON.stringify(input));
    const failure = await replay(file, history).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toContain('no longer replays');
  });
});

/** A recorded history, as the SDK's replay takes it. */
function historyOf(file: string): proto.temporal.api.history.v1.History {
  // fromObject, not the SDK's historyFromJSON: npm installs two copies of protobufjs under
  // @temporalio/common and @temporalio/proto, and historyFromJSON's type check fails across them.
  return proto.temporal.api.history.v1.History.fromObject(
    JSON.parse(readFileSync(path.join(historiesDir, file), 'utf8')),
  );
}

/** Replays one history against the current bundle; a failure says what it means and the two ways out. */
async function replay(file: string, history: proto.temporal.api.history.v1.History): Promise<void> {
  try {
    await Worker.runReplayHistory(
      { workflowBundle: { codePath: inject('workflowBundlePath') } },
      history,
      file.replace(/\.json$/, ''),
    );
  } catch (error) {
    throw new Error(replayFailureText(file, error), { cause: error });
  }
}

/** What a failed replay means, and what to do (docs/operations.md, "Upgrades"; docs/testing.md). */
function replayFailureText(file: string, error: unknown): string {
  const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return [
    `${file} no longer replays against the current workflow code: ${reason}`,
    'This change breaks replay of runs already going on the same build (a worker with the same build id, or an unversioned one).',
    'Versioned workers pin each running agent to the build it started on, so deploying it as a new build is safe',
    '(docs/operations.md, "Upgrades: worker versions"). Then either:',
    '- the change must reach runs already going on the same build: branch it with hasPatch() (src/workflows/runtime/patches.ts), or',
    '- it need not: re-record the corpus (`npm run histories:record`, or RECORD_HISTORIES=1 on the test that records this history).',
  ].join('\n');
}
