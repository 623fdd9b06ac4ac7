/** The Reads a model call starts (src/activities/pre-reads.ts), on real files with the real Read tool. */
import { getEventListeners } from 'node:events';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type Anthropic from '@anthropic-ai/sdk';
import { PreReads, type PreRead } from '../../src/activities/pre-reads';
import { toolRunners } from '../../src/activities/tools/index';
import type { ContentBlock } from '../../src/shared/model/messages';
import type { PreReadRequest } from '../../src/shared/model/model-call';
import type { ToolCallInput } from '../../src/shared/tools/tools';
import { createTestWorkspace, type TestWorkspace } from './tools/helpers';

let workspace: TestWorkspace;
let started: string[];
let read: PreRead;

beforeEach(async () => {
  workspace = await createTestWorkspace();
  started = [];
  read = (tool, input: ToolCallInput, signal: AbortSignal) => {
    started.push(String(input.input.file_path ?? input.input.pattern));
    if (input.input.file_path === 'boom.txt') return Promise.reject(new Error('EIO: disk on fire'));
    return toolRunners[tool](input, { ...workspace.env, signal });
  };
});
afterEach(() => workspace.cleanup());

/** What the workflow sends: the tool context and the tools it may run (all three unless told). */
const request = (tools: PreReadRequest['tools'] = ['Read', 'Glob', 'Grep']): PreReadRequest => ({
  context: workspace.call({}).context,
  tools,
});
const readCall = (id: string, file_path: unknown): Anthropic.Messages.ToolUseBlock =>
  ({ type: 'tool_use', id, name: 'Read', input: { file_path } }) as Anthropic.Messages.ToolUseBlock;
const toolCall = (id: string, name: string, input: unknown = {}): Anthropic.Messages.ToolUseBlock =>
  ({ type: 'tool_use', id, name, input }) as Anthropic.Messages.ToolUseBlock;
const text = (value: string): Anthropic.Messages.TextBlock =>
  ({ type: 'text', text: value, citations: null }) as Anthropic.Messages.TextBlock;
const asContent = (blocks: Anthropic.Messages.ContentBlock[]): ContentBlock[] => blocks as unknown as ContentBlock[];

/** A read that never ends, and the signals it was started with. */
function hangingReads(): { signals: AbortSignal[]; hanging: PreRead } {
  const signals: AbortSignal[] = [];
  const hanging: PreRead = (_tool, _input, signal) => {
    signals.push(signal);
    return new Promise(() => undefined);
  };
  return { signals, hanging };
}

describe('PreReads', () => {
  it('reads the leading Reads as they come, each with its own outcome (a failing one and a refused path included), and returns them by id', async () => {
    await workspace.write('one.txt', 'ONE\n');
    const preReads = new PreReads(read, request(), workspace.abort.signal);
    const blocks = [
      text('Reading.'),
      readCall('toolu_1', 'one.txt'),
      readCall('toolu_2', '../outside/x.txt'),
      readCall('toolu_3', 'boom.txt'),
    ];
    for (const block of blocks) preReads.offer(block);
    const outcomes = await preReads.settle(asContent(blocks));
    expect(Object.keys(outcomes ?? {})).toEqual(['toolu_1', 'toolu_2', 'toolu_3']);
    expect(outcomes!.toolu_1).toMatchObject({ result: { isError: false, content: expect.stringContaining('ONE') } });
    expect(
      outcomes!.toolu_1 && 'result' in outcomes!.toolu_1 ? outcomes!.toolu_1.result.readFiles?.[0]?.path : undefined,
    ).toBe(path.join(workspace.root, 'one.txt'));
    expect(outcomes!.toolu_2).toMatchObject({ result: { isError: true } });
    expect(outcomes!.toolu_3).toEqual({ failure: expect.stringContaining('disk on fire') });
  });

  it('runs leading Glob and Grep calls too, each with its own result, but only the tools the workflow named', async () => {
    await workspace.write('src/one.ts', 'export const NEEDLE = 1;\n');
    const blocks = [
      toolCall('toolu_1', 'Glob', { pattern: '**/*.ts' }),
      toolCall('toolu_2', 'Grep', { pattern: 'NEEDLE', output_mode: 'content' }),
      readCall('toolu_3', 'src/one.ts'),
    ];
    const all = new PreReads(read, request(), workspace.abort.signal);
    for (const block of blocks) all.offer(block);
    const outcomes = (await all.settle(asContent(blocks)))!;
    expect(Object.keys(outcomes)).toEqual(['toolu_1', 'toolu_2', 'toolu_3']);
    expect(outcomes.toolu_1).toMatchObject({
      result: { isError: false, content: expect.stringContaining('src/one.ts') },
    });
    expect(outcomes.toolu_2).toMatchObject({ result: { isError: false, content: expect.stringContaining('NEEDLE') } });

    // A workflow that may pre-run only Read (a rule speaks about Glob's kind, or a hook): the Glob ends the leading run.
    started = [];
    const readsOnly = new PreReads(read, request(['Read']), workspace.abort.signal);
    for (const block of blocks) readsOnly.offer(block);
    expect(started).toEqual([]);
    expect(await readsOnly.settle(asContent(blocks))).toBeUndefined();
  });

  it('stops at the first other tool call: a Read after a Write may need what it wrote', async () => {
    await workspace.write('one.txt', 'ONE\n');
    const preReads = new PreReads(read, request(), workspace.abort.signal);
    const blocks = [
      readCall('toolu_1', 'one.txt'),
      toolCall('toolu_2', 'Write', { file_path: 'one.txt', content: 'NEW' }),
      readCall('toolu_3', 'one.txt'),
    ];
    for (const block of blocks) preReads.offer(block);
    expect(started).toEqual(['one.txt']);
    expect(Object.keys((await preReads.settle(asContent(blocks))) ?? {})).toEqual(['toolu_1']);
  });

  it('starts nothing for an input that is not an object, and no more than one window of calls', async () => {
    const malformed = new PreReads(read, request(), workspace.abort.signal);
    const odd = toolCall('toolu_0', 'Read', 'one.txt');
    malformed.offer(odd);
    malformed.offer(readCall('toolu_1', 'one.txt'));
    expect(started).toEqual([]);
    expect(await malformed.settle(asContent([odd]))).toBeUndefined();

    const many = new PreReads(read, request(), workspace.abort.signal);
    const blocks = Array.from({ length: 12 }, (_unused, index) => readCall(`toolu_${index}`, `f${index}.txt`));
    for (const block of blocks) many.offer(block);
    expect(started).toHaveLength(10);
    expect(Object.keys((await many.settle(asContent(blocks))) ?? {})).toHaveLength(10);
  });

  it('keeps outcomes while their JSON fits the budget, in order; later ones run after the call', async () => {
    await workspace.write('small.txt', 'SMALL\n');
    await workspace.write('big.txt', `${'x'.repeat(900)}\n`);
    const preReads = new PreReads(read, request(), workspace.abort.signal, { maxChars: 600, maxWaitMs: 10_000 });
    const blocks = [readCall('toolu_1', 'small.txt'), readCall('toolu_2', 'big.txt'), readCall('toolu_3', 'small.txt')];
    for (const block of blocks) preReads.offer(block);
    expect(Object.keys((await preReads.settle(asContent(blocks))) ?? {})).toEqual(['toolu_1']);
  });

  it('waits for the reads at most maxWaitMs once the answer is done: a slow one is aborted and runs after the call', async () => {
    await workspace.write('one.txt', 'ONE\n');
    let slowSignal: AbortSignal | undefined;
    const slow: PreRead = (tool, input, signal) => {
      if (input.input.pattern !== 'SLOW') return read(tool, input, signal);
      slowSignal = signal;
      return new Promise((_resolve, reject) =>
        signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
      );
    };
    const preReads = new PreReads(slow, request(), workspace.abort.signal, { maxChars: 200_000, maxWaitMs: 1_000 });
    const blocks = [
      readCall('toolu_1', 'one.txt'),
      toolCall('toolu_2', 'Grep', { pattern: 'SLOW' }),
      readCall('toolu_3', 'one.txt'),
    ];
    for (const block of blocks) preReads.offer(block);
    expect(Object.keys((await preReads.settle(asContent(blocks))) ?? {})).toEqual(['toolu_1']);
    expect(slowSignal?.aborted).toBe(true);
  });

  it('aborts its reads with the model call, and stops them when the call fails', async () => {
    const { signals, hanging } = hangingReads();
    const model = new AbortController();
    const cancelled = new PreReads(hanging, request(), model.signal);
    cancelled.offer(readCall('toolu_1', 'one.txt'));
    model.abort(new Error('interrupted'));
    const failed = new PreReads(hanging, request(), new AbortController().signal);
    failed.offer(readCall('toolu_2', 'one.txt'));
    failed.stop();
    expect(signals.map((signal) => signal.aborted)).toEqual([true, true]);
  });

  it("holds on to the model call's signal only while a read runs, starts none once stopped, and none live on an aborted call", async () => {
    const { signals, hanging } = hangingReads();
    const model = new AbortController();
    const none = new PreReads(hanging, request(), model.signal);
    none.offer(text('no reads'));
    expect(getEventListeners(model.signal, 'abort')).toHaveLength(0);
    expect(await none.settle(asContent([text('no reads')]))).toBeUndefined();

    const one = new PreReads(hanging, request(), model.signal);
    one.offer(readCall('toolu_1', 'one.txt'));
    expect(getEventListeners(model.signal, 'abort')).toHaveLength(1);
    one.stop();
    expect(getEventListeners(model.signal, 'abort')).toHaveLength(0);
    one.offer(readCall('toolu_2', 'two.txt'));
    expect(signals).toHaveLength(1);
    expect(signals[0]!.aborted).toBe(true);

    const aborted = new AbortController();
    aborted.abort(new Error('interrupted'));
    const late = new PreReads(hanging, request(), aborted.signal);
    late.offer(readCall('toolu_3', 'three.txt'));
    expect(signals[1]!.aborted).toBe(true);
  });

  it('returns only Reads the final answer holds, and nothing when it holds none', async () => {
    await workspace.write('one.txt', 'ONE\n');
    const preReads = new PreReads(read, request(), workspace.abort.signal);
    preReads.offer(readCall('toolu_1', 'one.txt'));
    expect(await preReads.settle(asContent([text('changed my mind')]))).toBeUndefined();
    expect(await new PreReads(read, request(), workspace.abort.signal).settle([])).toBeUndefined();
  });
});
