import { MockActivityEnvironment } from '@temporalio/testing';
import { CancelledFailure } from '@temporalio/common';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createToolActivities } from '../../../src/activities/tools/index';
import { createReadBatchActivity } from '../../../src/activities/tools/read-batch';
import type { ReadBatchOutcome, ToolCallInput, ToolCallResult } from '../../../src/shared/tools/tools';
import { createTestWorkspace, type TestWorkspace } from './helpers';
import { freshForEachTest } from '../../helpers/unit-fixture';

let workspace: TestWorkspace;
freshForEachTest(createTestWorkspace, (created) => (workspace = created));

describe('readBatch (the Reads of one turn in one local activity)', () => {
  it('reads every file side by side and answers each in its own place, a refused path and a failing read included', async () => {
    await fs.writeFile(path.join(workspace.root, 'one.txt'), 'ONE\n');
    await fs.writeFile(path.join(workspace.root, 'two.txt'), 'TWO\n');
    const { Read } = createToolActivities({ resultsDir: workspace.resultsDir });
    const failing = (input: ToolCallInput): Promise<ToolCallResult> =>
      input.input.file_path === 'boom.txt' ? Promise.reject(new Error('EIO: disk on fire')) : Read(input);
    const { readBatch } = createReadBatchActivity(failing);
    const inputs = ['one.txt', '../outside.txt', 'boom.txt', 'two.txt'].map((file_path, index) =>
      workspace.call({ file_path }, { toolUseId: `toolu_${index}` }),
    );
    const outcomes = (await new MockActivityEnvironment().run(readBatch, inputs)) as ReadBatchOutcome[];
    expect(outcomes).toHaveLength(4);
    const [one, outside, boom, two] = outcomes;
    expect(one).toMatchObject({ result: { isError: false, content: expect.stringContaining('ONE') } });
    expect(one && 'result' in one ? one.result.readFiles?.[0]?.path : undefined).toBe(
      path.join(workspace.root, 'one.txt'),
    );
    expect(outside).toMatchObject({ result: { isError: true } });
    expect(boom).toEqual({ failure: 'EIO: disk on fire' });
    expect(two).toMatchObject({ result: { isError: false, content: expect.stringContaining('TWO') } });
  });

  it('is cancelled as a whole when its activity is', async () => {
    const never = (): Promise<ToolCallResult> => new Promise(() => undefined);
    const environment = new MockActivityEnvironment();
    const reading = environment.run(
      createReadBatchActivity((input) =>
        input.input.file_path === 'slow.txt'
          ? Promise.race([never(), cancelled(environment)])
          : Promise.resolve({ content: 'ok', isError: false }),
      ).readBatch,
      [workspace.call({ file_path: 'fast.txt' }), workspace.call({ file_path: 'slow.txt' })],
    );
    environment.cancel();
    await expect(reading).rejects.toBeInstanceOf(CancelledFailure);
  });
});

/** Rejects once the activity is cancelled, as the Read runner does (its checkpoints throw). */
function cancelled(environment: MockActivityEnvironment): Promise<never> {
  return new Promise((_, reject) =>
    environment.context.cancellationSignal.addEventListener('abort', () => reject(new CancelledFailure('cancelled'))),
  );
}
