import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/shared/tools/define-tool';
import { workerToolsFor } from '../../src/activities/custom-tools/activities';
import { checkCustomToolNames } from '../../src/activities';
import {
  customToolAllowed,
  customToolFilterOf,
  customToolFilterOfList,
  parseToolTaskQueues,
} from '../../src/shared/tools/custom-tools';
import { parseWorkerArgs } from '../../src/cli/commands/worker';
import { toolWorkerGoneText } from '../../src/workflows/tools/tool-queue-text';

const weather = defineTool({
  name: 'lookup_weather',
  description: 'The weather in a city.',
  input: z.object({ city: z.string().min(1), days: z.number().int().min(1).max(7).optional() }),
  readOnly: true,
  run: ({ city }) => `sunny in ${city}`,
});

describe('defineTool', () => {
  it('sends the JSON Schema of the zod input and classifies the tool', () => {
    expect(weather.inputSchema).toMatchObject({
      type: 'object',
      properties: { city: { type: 'string', minLength: 1 } },
      required: ['city'],
    });
    expect(weather.inputSchema.$schema).toBeUndefined();
    expect({
      readOnly: weather.readOnly,
      needsApproval: weather.needsApproval,
      idempotent: weather.idempotent,
      timeoutMs: weather.timeoutMs,
    }).toEqual({
      readOnly: true,
      needsApproval: false,
      idempotent: true,
      timeoutMs: 600_000,
    });
    const writer = defineTool({
      name: 'deploy',
      description: 'Deploys.',
      input: z.object({}),
      run: () => 'ok',
      timeout: '2 minutes',
      taskQueue: 'sandbox',
    });
    expect({
      needsApproval: writer.needsApproval,
      idempotent: writer.idempotent,
      timeoutMs: writer.timeoutMs,
      taskQueue: writer.taskQueue,
    }).toEqual({
      needsApproval: true,
      idempotent: false,
      timeoutMs: 120_000,
      taskQueue: 'sandbox',
    });
  });

  it('validates input and names every bad field', () => {
    expect(weather.parse({ city: 'Paris' })).toEqual({ ok: true, value: { city: 'Paris' } });
    const bad = weather.parse({ city: '', days: 9 });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.problems.join('; ')).toMatch(/"city".*"days"/);
    expect(weather.parse(null).ok).toBe(false);
  });

  it('refuses unusable definitions with a message that says what to fix', () => {
    const base = { description: 'd', input: z.object({}), run: () => '' };
    expect(() => defineTool({ ...base, name: 'Bash' })).toThrow(/not a runtime tool/);
    expect(() => defineTool({ ...base, name: 'mcp__a__b' })).toThrow(/mcp__/);
    expect(() => defineTool({ ...base, name: 'has space' })).toThrow(/letters, digits/);
    expect(() => defineTool({ ...base, name: 'x'.repeat(65) })).toThrow(/1 to 64/);
    expect(() => defineTool({ ...base, name: 'ok', description: ' ' })).toThrow(/description/);
    expect(() => defineTool({ ...base, name: 'ok', input: z.string() })).toThrow(/object schema/);
    expect(() => defineTool({ ...base, name: 'ok', input: { type: 'object' } as never })).toThrow(/zod schema/);
    expect(() => defineTool({ ...base, name: 'ok', timeout: 10 })).toThrow(/1 s to 24 h/);
    expect(() => defineTool({ ...base, name: 'ok', timeout: 'soon' as never })).toThrow(/1 s to 24 h/);
    expect(() => defineTool({ ...base, name: 'ok', taskQueue: '' })).toThrow(/Invalid task queue/);
    expect(() => defineTool(null as never)).toThrow(/give an object/);
    expect(() => checkCustomToolNames([defineTool({ ...base, name: 'callModel' })], ['callModel'])).toThrow(
      /runtime's activities/,
    );
    expect(() => checkCustomToolNames([weather, weather], [])).toThrow(/unique/);
  });
});

describe('custom tool filter', () => {
  it('follows the definition: all when tools is omitted or *, the named ones otherwise, minus the denied', () => {
    expect(customToolFilterOf({})).toEqual({ allow: 'all', deny: [] });
    expect(
      customToolFilterOf({ tools: ['Read'], customTools: ['lookup_weather'], disallowedCustomTools: ['deploy'] }),
    ).toEqual({
      allow: ['lookup_weather'],
      deny: ['deploy'],
    });
    expect(customToolAllowed({ allow: 'all', deny: ['deploy'] }, 'deploy')).toBe(false);
    expect(customToolFilterOfList(['Read', 'lookup_weather', 'mcp__a__b'])).toEqual({
      allow: ['lookup_weather'],
      deny: [],
    });
  });

  it('gives an agent only the custom tools its filter allows, and the routing of built-in tools', () => {
    const deploy = defineTool({ name: 'deploy', description: 'Deploys.', input: z.object({}), run: () => 'ok' });
    expect(
      workerToolsFor([weather, deploy], undefined, { allow: ['deploy'], deny: [] })?.descriptors.map(
        (d) => d.definition.name,
      ),
    ).toEqual(['deploy']);
    expect(workerToolsFor([weather], undefined, undefined)).toBeUndefined();
    expect(workerToolsFor([], { Bash: 'sandbox' }, { allow: 'all', deny: [] })).toEqual({
      descriptors: [],
      taskQueues: { Bash: 'sandbox' },
    });
    const [descriptor] = workerToolsFor([weather], undefined, { allow: 'all', deny: [] })!.descriptors;
    expect(descriptor).toMatchObject({
      classification: { readOnly: true, needsApproval: false, retrySafe: true },
      runner: { kind: 'custom', maximumAttempts: 3 },
    });
    expect(workerToolsFor([deploy], undefined, { allow: 'all', deny: [] })!.descriptors[0]?.runner).toMatchObject({
      maximumAttempts: 1,
    });
  });
});

describe('tool task queues', () => {
  it('parses SUBAGENTS_TOOL_TASK_QUEUES and refuses what cannot be routed', () => {
    expect(parseToolTaskQueues('Bash=sandbox, Write=sandbox')).toEqual({ Bash: 'sandbox', Write: 'sandbox' });
    expect(parseToolTaskQueues('')).toEqual({});
    expect(() => parseToolTaskQueues('Agent=x')).toThrow(/cannot be routed/);
    expect(() => parseToolTaskQueues('Bash')).toThrow(/TOOL=QUEUE/);
    expect(() => parseToolTaskQueues('Bash=')).toThrow(/Invalid task queue/);
    expect(() => parseToolTaskQueues(`Bash=${'q'.repeat(300)}`)).toThrow(/Invalid task queue/);
  });

  it('parses subagents worker --tools --task-queue', () => {
    expect(parseWorkerArgs([], {})).toBeUndefined();
    expect(parseWorkerArgs(['--tools', 'Bash,Write,Bash', '--task-queue', 'sandbox'], {})).toEqual({
      tools: ['Bash', 'Write'],
      taskQueue: 'sandbox',
    });
    expect(() => parseWorkerArgs(['--tools', 'Bash'], {})).toThrow(/go together/);
    expect(() => parseWorkerArgs(['--tools', 'Agent', '--task-queue', 'q'], {})).toThrow(/cannot be routed/);
    expect(() => parseWorkerArgs(['--tools', ',', '--task-queue', 'q'], {})).toThrow(/at least one/);
    expect(() => parseWorkerArgs(['--tools', 'Bash', '--task-queue', 'subagents'], {})).toThrow(
      /agents' own task queue/,
    );
    expect(() => parseWorkerArgs(['--bogus'], {})).toThrow();
  });

  it('tells the agent which queue has no worker and how to start one', () => {
    expect(toolWorkerGoneText('Bash', 'sandbox')).toMatch(
      /^ToolWorkerUnavailable: Bash did not run: no worker of task queue "sandbox".*subagents worker --tools Bash --task-queue sandbox/,
    );
  });
});
