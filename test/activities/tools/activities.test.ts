import { MockActivityEnvironment } from '@temporalio/testing';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolActivities } from '../../../src/activities/tools/index';
import type { ToolCallResult } from '../../../src/shared/tools/tools';
import { createTestWorkspace, type TestWorkspace } from './helpers';
import { processesMatching } from '../../helpers/processes';

let workspace: TestWorkspace;
beforeEach(async () => {
  workspace = await createTestWorkspace();
});
afterEach(() => workspace.cleanup());

describe('createToolActivities', () => {
  it('exposes one activity per tool, named like the tool', () => {
    expect(Object.keys(createToolActivities())).toEqual(['Read', 'Glob', 'Grep', 'Write', 'Edit', 'Bash']);
  });

  it('runs the tools inside an activity context, with the configured results directory', async () => {
    const activities = createToolActivities({ resultsDir: workspace.resultsDir, ripgrep: false });
    const environment = new MockActivityEnvironment();
    const write = (await environment.run(
      activities.Write,
      workspace.call({ file_path: 'a.txt', content: 'hi\n' }),
    )) as ToolCallResult;
    expect(write.content).toBe('Created a.txt (1 line, 3 bytes).');
    const big = (await environment.run(
      activities.Bash,
      workspace.call({ command: 'seq 1 20000' }, { toolUseId: 'toolu_seq', context: { maxResultChars: 10_000 } }),
    )) as ToolCallResult;
    expect(big.replacement?.path).toBe(path.join(workspace.resultsDir, 'agent-1', 'toolu_seq.txt'));
  });

  it('heartbeats and turns activity cancellation into killing the command', async () => {
    const activities = createToolActivities({ resultsDir: workspace.resultsDir });
    const environment = new MockActivityEnvironment();
    let heartbeats = 0;
    environment.on('heartbeat', () => (heartbeats += 1));
    const startedFile = path.join(workspace.root, 'started');
    const running = environment.run(
      activities.Bash,
      workspace.call({ command: `sleep 30.2468 & touch ${startedFile}; sleep 30.2469` }),
    );
    while (
      !(await fs.stat(startedFile).then(
        () => true,
        () => false,
      ))
    )
      await new Promise((resolve) => setTimeout(resolve, 20));
    environment.cancel();
    const result = (await running) as ToolCallResult;
    expect(result.content).toMatch(/^Command was cancelled/);
    expect(heartbeats).toBeGreaterThanOrEqual(1);
    // The command's PID namespace went with it: no process of its tree is left on the host.
    expect(processesMatching('^sleep 30.246')).toEqual([]);
  });
});
