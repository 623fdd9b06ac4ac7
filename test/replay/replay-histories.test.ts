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

  // A change to workflow code that would break running agents fails here (DeterminismViolationError).
  it.each(files)('replays %s', async (file) => {
    // fromObject, not the SDK's historyFromJSON: npm installs two copies of protobufjs under
    // @temporalio/common and @temporalio/proto, and historyFromJSON's type check fails across them.
    const history = proto.temporal.api.history.v1.History.fromObject(
      JSON.parse(readFileSync(path.join(historiesDir, file), 'utf8')),
    );
    await Worker.runReplayHistory(
      { workflowBundle: { codePath: inject('workflowBundlePath') } },
      history,
      file.replace(/\.json$/, ''),
    );
  });
});
