import { mkdtempSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ActivityFailure, ApplicationFailure, RetryState, TimeoutFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { rootAgentInput } from '../../src/client/client';
import { configFromEnv } from '../../src/config/config';
import { buildChildInput, buildRootInput } from '../../src/shared/agents/agent-input';
import { resumeInput } from '../../src/shared/agents/resume';
import {
  defaultWorkspaceWaitMs,
  maxWorkspaceWaitMs,
  parseWorkspaceWaitMs,
  isInsideDirectory,
  parseWorkerId,
  workspaceTaskQueue,
  workspaceWorker,
} from '../../src/shared/workspace/workspace-routing';
import { isWorkerWaitTimeout, routedOptions, workerGoneText } from '../../src/workflows/tools/workspace-activities';
import { fileToolOptions } from '../../src/workflows/runtime/activity-proxies';
import { expectYesNo } from '../helpers/unit-cases';
import { testRootSpec } from '../helpers/root-spec';

describe('worker ids', () => {
  it('accepts host-like names', () => {
    for (const id of ['worker-1', 'build.host_2', 'A', 'x'.repeat(63)]) expect(parseWorkerId(id)).toBe(id);
  });

  it.each([[''], [' '], ['a b'], ['../x'], ['-lead'], ['.hidden'], ['x'.repeat(64)], ['worker@1'], ['a/b'], ['é']])(
    'refuses %j with what is allowed',
    (id) => {
      expect(() => parseWorkerId(id, '--worker')).toThrow(/Invalid --worker .*use 1 to 63 letters, digits/);
    },
  );

  it.each([[null], [undefined], [42], [{}], [['worker-1']]])('refuses a non-string (%j)', (value) => {
    expect(() => parseWorkerId(value)).toThrow(/Invalid worker id/);
  });

  it('shortens a huge id in the message', () => {
    const message = (() => {
      try {
        parseWorkerId('y'.repeat(100_000));
      } catch (error) {
        return (error as Error).message;
      }
      return '';
    })();
    expect(message.length).toBeLessThan(300);
  });
});

describe('placement', () => {
  it("names the worker's own task queue after the shared one", () => {
    expect(workspaceTaskQueue('subagents', 'worker-2')).toBe('subagents@worker-2');
    expect(workspaceWorker('q', 'w1')).toEqual({ id: 'w1', taskQueue: 'q@w1', waitMs: defaultWorkspaceWaitMs });
    expect(workspaceWorker('q', 'w1', 2000).waitMs).toBe(2000);
  });

  it.each([[0], [999], [-5], [1.5], [Number.NaN], [Number.POSITIVE_INFINITY], [maxWorkspaceWaitMs + 1], ['60000']])(
    'refuses the wait %j',
    (value) => {
      expect(() => parseWorkspaceWaitMs(value)).toThrow(/whole milliseconds from 1000 to/);
    },
  );

  it('tells inside from outside without prefix tricks', () => {
    expectYesNo(isInsideDirectory, {
      yes: [
        ['/a/b', '/a/b'],
        ['/a/b', '/a/b/c/d'],
        ['/a/b/', '/a/b/c'],
        ['/', '/anything'],
      ],
      no: [
        ['/a/b', '/a/bc'],
        ['/a/b', '/a'],
      ],
    });
  });
});

describe('the placement travels with the tree', () => {
  it("is part of a root's input only when given, and every child inherits it", () => {
    expect(buildRootInput(testRootSpec)).not.toHaveProperty('workspaceWorker');
    const placed = buildRootInput({ ...testRootSpec, workspaceWorker: workspaceWorker('q', 'w1') });
    expect(placed.workspaceWorker).toEqual({ id: 'w1', taskQueue: 'q@w1', waitMs: defaultWorkspaceWaitMs });
    const child = buildChildInput(
      { input: placed, inForegroundChain: true, toolUseId: 't1' },
      { ...testRootSpec, agentId: 'agent-1.1', background: false },
    );
    expect(child.workspaceWorker).toEqual(placed.workspaceWorker);
    const unplacedChild = buildChildInput(
      { input: buildRootInput(testRootSpec), inForegroundChain: true, toolUseId: 't1' },
      { ...testRootSpec, agentId: 'agent-1.1', background: false },
    );
    expect(unplacedChild).not.toHaveProperty('workspaceWorker');
  });

  it('is kept by a resumed run', () => {
    const input = buildRootInput({ ...testRootSpec, workspaceWorker: workspaceWorker('q', 'w1') });
    const carried = {
      messages: [],
      usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      toolUses: 0,
      turn: 1,
      readFileState: {},
      contentReplacements: {},
      startedAtMs: 0,
      spawnCount: 0,
      descendantUsage: {
        input_tokens: 0,
        output_tokens: 0,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    };
    expect(resumeInput({ input, carried } as never, 'again').workspaceWorker).toEqual(input.workspaceWorker);
  });

  it("comes from the client options, on the client's task queue", async () => {
    const cwd = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'subagents-placement-')));
    const input = await rootAgentInput({ prompt: 'p', cwd, homeDir: cwd, worker: 'w2', workerWaitMs: 5000 }, 'agents');
    expect(input.workspaceWorker).toEqual({ id: 'w2', taskQueue: 'agents@w2', waitMs: 5000 });
    expect((await rootAgentInput({ prompt: 'p', cwd, homeDir: cwd })).workspaceWorker).toBeUndefined();
    await expect(rootAgentInput({ prompt: 'p', cwd, homeDir: cwd, workerWaitMs: 5000 })).rejects.toThrow(
      /workerWaitMs needs worker/,
    );
    await expect(rootAgentInput({ prompt: 'p', cwd, homeDir: cwd, worker: 'no spaces' })).rejects.toThrow(
      /Invalid worker id/,
    );
    await expect(rootAgentInput({ prompt: 'p', cwd, homeDir: cwd, worker: 'w2', workerWaitMs: 10 })).rejects.toThrow(
      /whole milliseconds/,
    );
  });

  it('is read by the worker from SUBAGENTS_WORKER_ID and SUBAGENTS_WORKSPACE_ROOT', () => {
    expect(configFromEnv({ ANTHROPIC_BASE_URL: 'http://x' }).workspace).toEqual({});
    expect(configFromEnv({ SUBAGENTS_WORKER_ID: 'w1', SUBAGENTS_WORKSPACE_ROOT: '/srv/ws' }).workspace).toEqual({
      workerId: 'w1',
      root: '/srv/ws',
    });
    expect(() => configFromEnv({ SUBAGENTS_WORKER_ID: 'bad id' })).toThrow(/Invalid SUBAGENTS_WORKER_ID/);
  });
});

describe('routed activity options', () => {
  it('leave unplaced agents exactly as before', () => {
    expect(routedOptions(fileToolOptions, undefined)).toBe(fileToolOptions);
  });

  it("send placed agents' calls to the worker's queue, waiting at most its wait", () => {
    expect(routedOptions(fileToolOptions, { id: 'w1', taskQueue: 'q@w1', waitMs: 3000 })).toEqual({
      ...fileToolOptions,
      taskQueue: 'q@w1',
      scheduleToStartTimeout: 3000,
    });
  });

  it('recognise only a schedule-to-start timeout as the worker being gone', () => {
    const activityFailure = (cause: Error) =>
      new ActivityFailure('failed', 'Read', '1', RetryState.NON_RETRYABLE_FAILURE, 'w', cause);
    expect(isWorkerWaitTimeout(activityFailure(new TimeoutFailure('t', undefined, 'SCHEDULE_TO_START')))).toBe(true);
    expect(isWorkerWaitTimeout(activityFailure(new TimeoutFailure('t', undefined, 'HEARTBEAT')))).toBe(false);
    expect(isWorkerWaitTimeout(activityFailure(ApplicationFailure.create({ message: 'x' })))).toBe(false);
    expect(isWorkerWaitTimeout(new TimeoutFailure('t', undefined, 'SCHEDULE_TO_START'))).toBe(false);
  });

  it('say which worker is gone and how to recover', () => {
    const text = workerGoneText({ id: 'build-7', taskQueue: 'q@build-7', waitMs: 300_000 }, 'Read');
    expect(text).toMatch(
      /^WorkspaceWorkerUnavailable: Read did not run: no worker "build-7" \(task queue q@build-7\).*300 s\. Start that worker again \(same SUBAGENTS_WORKER_ID/,
    );
  });
});
