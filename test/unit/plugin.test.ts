import Anthropic from '@anthropic-ai/sdk';
import { Client } from '@temporalio/client';
import type { WorkerOptions } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/shared/tools/define-tool';
import {
  parseWorkflowStacks,
  subagentsPlugin,
  workflowBundlerOptions,
  workflowsPath,
  workflowPreloadedModules,
  workflowQuickJsModule,
  workflowStackFramesModule,
  WorkflowStacksError,
} from '../../src/worker/plugin';

const anthropic = new Anthropic({ apiKey: 'test-key', baseURL: 'http://127.0.0.1:9', maxRetries: 0 });
const client = new Client({ namespace: 'default' }); // lazy: never connects in these tests
const echo = defineTool({
  name: 'echo_text',
  description: 'Echoes.',
  input: z.object({ text: z.string() }),
  run: ({ text }) => text,
});
const base: WorkerOptions = { taskQueue: 'q' };

describe('subagentsPlugin', () => {
  it('adds the workflows, every activity with the custom tools, and the heartbeat throttle to a worker', () => {
    const options = subagentsPlugin({ anthropic, client, tools: [echo], payloadCodecs: [], web: {} }).configureWorker({
      ...base,
      activities: { teamActivity: async () => 1 },
    });
    expect(options.workflowsPath).toBe(workflowsPath);
    expect(Object.keys(options.activities as object)).toEqual(
      expect.arrayContaining(['teamActivity', 'callModel', 'Bash', 'renderAgentStart', 'echo_text']),
    );
    expect(options.maxHeartbeatThrottleInterval).toBe('1 second');
    // A team's own workflows file stays in charge.
    expect(
      subagentsPlugin({ anthropic, client, payloadCodecs: [] }).configureWorker({
        ...base,
        workflowsPath: '/team/workflows.ts',
      }).workflowsPath,
    ).toBe('/team/workflows.ts');
    expect(
      subagentsPlugin({ anthropic, client, payloadCodecs: [] }).configureWorker({
        ...base,
        workflowBundle: { code: '' },
      }).workflowsPath,
    ).toBeUndefined();
  });

  it("bundles the workflows with zod evaluated on first use, after a team's own webpack hook; not for a ready bundle", () => {
    const plugin = subagentsPlugin({ anthropic, client, payloadCodecs: [] });
    const alias = (hook: ((config: object) => { resolve?: { alias?: unknown } }) | undefined) =>
      hook?.({ resolve: { alias: { team: '/team/x.ts' } } }).resolve?.alias;
    const ours = plugin.configureWorker(base).bundlerOptions?.webpackConfigHook;
    expect(alias(ours as never)).toEqual({ team: '/team/x.ts', zod$: expect.stringMatching(/zod-on-first-use\.cjs$/) });
    expect(alias(workflowBundlerOptions.webpackConfigHook as never)).toEqual(alias(ours as never));
    // A team's hook sees the configuration with ours applied and has the last word.
    const seen: unknown[] = [];
    const teamHook = (config: { resolve?: { alias?: unknown } }) => (seen.push(config.resolve?.alias), config);
    const composed = plugin.configureWorker({
      ...base,
      workflowsPath: '/team/workflows.ts',
      bundlerOptions: { webpackConfigHook: teamHook as never },
    }).bundlerOptions?.webpackConfigHook;
    composed?.({} as never);
    expect(seen).toEqual([{ zod$: expect.stringMatching(/zod-on-first-use/) }]);
    // QuickJS for script runs: its wasm inlined as base64, its loader's `new URL(…, import.meta.url)` left alone.
    const module = (ours as (config: object) => { module: { parser: object; rules: object[] } })({
      module: { rules: [{ test: /team/ }] },
    }).module;
    expect(module.parser).toEqual({ javascript: { url: false } });
    expect(module.rules).toEqual([{ test: /team/ }, expect.objectContaining({ type: 'asset/inline' })]);
    const wasmRule = module.rules[1] as { test: RegExp; generator: { dataUrl: (content: Buffer) => string } };
    expect(wasmRule.test.test('emscripten-module.wasm')).toBe(true);
    expect(wasmRule.generator.dataUrl(Buffer.from('wasm'))).toBe('d2FzbQ==');
    expect(plugin.configureWorker({ ...base, workflowBundle: { code: '' } }).bundlerOptions).toBeUndefined();
    expect(alias(plugin.configureBundler({ workflowsPath }).webpackConfigHook as never)).toMatchObject({
      zod$: expect.stringMatching(/zod-on-first-use/),
    });
  });

  it("preloads the stateless modules, QuickJS and the short-stack module when it bundles, beside a team's own preloads; full stacks leave the last out", () => {
    expect(workflowStackFramesModule).toMatch(/workflows\/runtime\/stack-frames\.(ts|js)$/);
    expect(workflowPreloadedModules).toMatch(/workflows\/runtime\/preloaded-modules\.(ts|js)$/);
    expect(workflowQuickJsModule).toMatch(/workflows\/scripts\/vm\/quickjs-module\.(ts|js)$/);
    expect(workflowBundlerOptions.preloadModules).toEqual([
      workflowStackFramesModule,
      workflowPreloadedModules,
      workflowQuickJsModule,
    ]);
    const short = subagentsPlugin({ anthropic, client, payloadCodecs: [] });
    expect(short.configureWorker(base).bundlerOptions?.preloadModules).toEqual([
      workflowStackFramesModule,
      workflowPreloadedModules,
      workflowQuickJsModule,
    ]);
    expect(
      short.configureWorker({
        ...base,
        bundlerOptions: { preloadModules: ['/team/shared.ts', workflowStackFramesModule] },
      }).bundlerOptions?.preloadModules,
    ).toEqual(['/team/shared.ts', workflowStackFramesModule, workflowPreloadedModules, workflowQuickJsModule]);
    expect(short.configureBundler({ workflowsPath }).preloadModules).toEqual([
      workflowStackFramesModule,
      workflowPreloadedModules,
      workflowQuickJsModule,
    ]);
    const full = subagentsPlugin({ anthropic, client, payloadCodecs: [], workflowStacks: 'full' });
    expect(full.configureWorker(base).bundlerOptions?.preloadModules).toEqual([
      workflowPreloadedModules,
      workflowQuickJsModule,
    ]);
    expect(
      full.configureWorker({ ...base, bundlerOptions: { preloadModules: ['/team/shared.ts'] } }).bundlerOptions
        ?.preloadModules,
    ).toEqual(['/team/shared.ts', workflowPreloadedModules, workflowQuickJsModule]);
    expect(full.configureBundler({ workflowsPath }).preloadModules).toEqual([
      workflowPreloadedModules,
      workflowQuickJsModule,
    ]);
  });

  it('reads SUBAGENTS_WORKFLOW_STACKS and refuses anything but short or full, saying what to give', () => {
    expect(parseWorkflowStacks(undefined)).toBe('short');
    expect(parseWorkflowStacks('')).toBe('short');
    expect(parseWorkflowStacks(' Short ')).toBe('short');
    expect(parseWorkflowStacks('FULL')).toBe('full');
    for (const bad of ['10', 'deep', 'true', 'full,short', '\u0000full']) {
      expect(() => parseWorkflowStacks(bad)).toThrow(/SUBAGENTS_WORKFLOW_STACKS=.*give "short".*or "full"/);
    }
    expect(() => subagentsPlugin({ anthropic, client, payloadCodecs: [], workflowStacks: 'deep' as never })).toThrow(
      WorkflowStacksError,
    );
    expect(() => subagentsPlugin({ anthropic, client, payloadCodecs: [], workflowStacks: 'deep' as never })).toThrow(
      /subagentsPlugin workflowStacks="deep"/,
    );
    const saved = process.env.SUBAGENTS_WORKFLOW_STACKS;
    try {
      process.env.SUBAGENTS_WORKFLOW_STACKS = 'full';
      expect(
        subagentsPlugin({ anthropic, client, payloadCodecs: [] }).configureWorker(base).bundlerOptions?.preloadModules,
      ).toEqual([workflowPreloadedModules, workflowQuickJsModule]);
      process.env.SUBAGENTS_WORKFLOW_STACKS = 'all of them';
      expect(() => subagentsPlugin({ anthropic, client, payloadCodecs: [] })).toThrow(
        /SUBAGENTS_WORKFLOW_STACKS="all of them"/,
      );
    } finally {
      if (saved === undefined) delete process.env.SUBAGENTS_WORKFLOW_STACKS;
      else process.env.SUBAGENTS_WORKFLOW_STACKS = saved;
    }
  });

  it('makes a tool worker: only the named tools, no workflows', () => {
    const options = subagentsPlugin({
      anthropic,
      client,
      tools: [echo],
      onlyTools: ['Bash', 'echo_text'],
      payloadCodecs: [],
    }).configureWorker(base);
    expect(Object.keys(options.activities as object).sort()).toEqual(['Bash', 'echo_text']);
    expect(options.workflowsPath).toBeUndefined();
  });

  it("refuses a tool worker for tools it cannot run, and custom tools named like the runtime's activities", () => {
    expect(() => subagentsPlugin({ anthropic, client, onlyTools: ['Agent'] })).toThrow(
      /Agent is not a tool this worker can run/,
    );
    expect(() => subagentsPlugin({ anthropic, client, onlyTools: ['not_defined'] })).toThrow(
      /not a tool this worker can run/,
    );
    expect(() => subagentsPlugin({ anthropic, client, onlyTools: [] })).toThrow(/name at least one tool/);
    const clash = defineTool({ name: 'callModel', description: 'd', input: z.object({}), run: () => '' });
    expect(() =>
      subagentsPlugin({ anthropic, client, tools: [clash], payloadCodecs: [] }).configureWorker(base),
    ).toThrow(/name of one of the runtime's activities/);
  });

  it('adds its payload codecs to a client and a worker', () => {
    const codec = { encode: async (payloads: never[]) => payloads, decode: async (payloads: never[]) => payloads };
    const plugin = subagentsPlugin({ anthropic, client, payloadCodecs: [codec] });
    expect(plugin.configureClient({}).dataConverter?.payloadCodecs).toEqual([codec]);
    expect(plugin.configureWorker(base).dataConverter?.payloadCodecs).toEqual([codec]);
  });
});
