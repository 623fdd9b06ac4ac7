// subagentsPlugin({ agents }): checked at construction, merged into every agent's roster, prompts held by digest.
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { InvalidAgentDefinition } from '../../src/client/agent-sdk-definitions';
import { definitionPrompts, promptDigest } from '../../src/project/agent-definitions/prompt-store';
import type { SpawnContext } from '../../src/shared/agents/agent-definition';
import { subagentsPlugin } from '../../src/worker/plugin';

const anthropic = new Anthropic({ apiKey: 'test-key', baseURL: 'http://127.0.0.1:9', maxRetries: 0 });
const client = new Client({ namespace: 'default' }); // lazy: never connects here

type LoadSpawnContext = (input: { cwd: string; sdkAgents?: unknown }) => Promise<SpawnContext>;

describe('subagentsPlugin agents', () => {
  it('merges its SDK agents over the files, and lets the tree’s own (startAgent) win over them', async () => {
    const cwd = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'sdk-plugin-')));
    mkdirSync(path.join(cwd, '.claude', 'agents'), { recursive: true });
    writeFileSync(
      path.join(cwd, '.claude', 'agents', 'auditor.md'),
      '---\nname: auditor\ndescription: from the file\n---\nFILE PROMPT\n',
    );
    const homeDir = mkdtempSync(path.join(os.tmpdir(), 'sdk-plugin-home-'));
    const plugin = subagentsPlugin({
      anthropic,
      client,
      payloadCodecs: [],
      homeDir,
      agents: {
        auditor: { description: 'plugin auditor', prompt: 'PLUGIN AUDITOR PROMPT' },
        監査役: { description: 'plugin only', prompt: 'PLUGIN JP PROMPT', tools: ['Read'] },
      },
    });
    // Any worker of the plugin has its prompts by digest, whichever one loaded the parent's agent types.
    expect(definitionPrompts.get(promptDigest('PLUGIN JP PROMPT'))).toBe('PLUGIN JP PROMPT');
    const activities = plugin.configureWorker({ taskQueue: 'q' }).activities as { loadSpawnContext: LoadSpawnContext };
    const context = await activities.loadSpawnContext({ cwd });
    expect(context.loaded.definitions.auditor).toMatchObject({ prompt: 'PLUGIN AUDITOR PROMPT', source: 'sdk' });
    expect(context.loaded.definitions['監査役']).toMatchObject({ description: 'plugin only', tools: ['Read'] });
    expect(context.loaded.definitions['general-purpose']?.source).toBe('built-in');
    expect(context.loaded.reports).toContainEqual(
      expect.objectContaining({
        level: 'skipped',
        name: 'auditor',
        message: expect.stringContaining('options.agents'),
      }),
    );
    const tree = {
      auditor: { name: 'auditor', description: 'tree auditor', prompt: 'TREE PROMPT', source: 'sdk' as const },
    };
    const overridden = await activities.loadSpawnContext({ cwd, sdkAgents: tree });
    expect(overridden.loaded.definitions.auditor?.prompt).toBe('TREE PROMPT');
  });

  it('refuses bad agents when the plugin is made, naming the agent and field', () => {
    expect(() =>
      subagentsPlugin({ anthropic, client, payloadCodecs: [], agents: { auditor: { description: 'd' } as never } }),
    ).toThrow(InvalidAgentDefinition);
    expect(() =>
      subagentsPlugin({ anthropic, client, payloadCodecs: [], agents: { auditor: { description: 'd' } as never } }),
    ).toThrow('subagentsPlugin agents["auditor"].prompt: prompt must be a string.');
  });
});
