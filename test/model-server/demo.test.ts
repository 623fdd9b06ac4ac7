import { rankedMatches } from '../../src/model-server/demo-explore';
import type Anthropic from '@anthropic-ai/sdk';
import { mkdtemp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ModelServer } from '../../src/model-server/server';
import { clientFor, startTestServer } from './helpers';

const files: Record<string, string> = {
  'README.md': '# Durable Demo Project\n\nA small project for the demo.\n',
  'docs/guide.md': '## Guide\n\nHow to use it.\n',
  'src/workflows/loop/agent-workflow.ts':
    "import { proxyActivities } from '@temporalio/workflow';\n\n/** The agent workflow: one query loop. */\nexport async function agentWorkflow(): Promise<string> {\n  return 'done';\n}\n",
  'src/cli/commands/start.ts':
    '/** The start command. */\nexport async function startCommand(): Promise<number> {\n  return 0;\n}\n',
  'src/util.ts': 'export const answer = 42;\n',
};

let root: string;
let server: ModelServer | undefined;

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'model-server-demo-'));
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, name)), { recursive: true });
    await writeFile(path.join(root, name), content);
  }
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function walk(directory: string, prefix = ''): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) =>
      entry.isDirectory()
        ? walk(path.join(directory, entry.name), `${prefix}${entry.name}/`)
        : Promise.resolve([`${prefix}${entry.name}`]),
    ),
  );
  return nested.flat().sort();
}

function globToRegExp(pattern: string): RegExp {
  let source = '';
  for (let index = 0; index < pattern.length; index++) {
    const character = pattern[index]!;
    if (pattern.startsWith('**/', index)) {
      source += '(?:.*/)?';
      index += 2;
    } else if (character === '*') source += '[^/]*';
    else source += character.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/** Tiny real implementations of the tools the demo uses. */
const tools: Record<string, (input: Record<string, unknown>) => Promise<string>> = {
  Glob: async (input) => {
    const matcher = globToRegExp(String(input.pattern));
    const matches = (await walk(root)).filter((file) => matcher.test(file));
    return matches.length > 0 ? matches.join('\n') : 'No files found';
  },
  Grep: async (input) => {
    const pattern = new RegExp(String(input.pattern), input['-i'] === true ? 'i' : '');
    const matches: string[] = [];
    for (const file of await walk(root))
      if (pattern.test(await readFile(path.join(root, file), 'utf8'))) matches.push(file);
    return matches.length > 0 ? `Found ${matches.length} files\n${matches.join('\n')}` : 'No files found';
  },
  Read: async (input) => {
    const lines = (await readFile(path.join(root, String(input.file_path)), 'utf8')).split('\n');
    const limit = typeof input.limit === 'number' ? input.limit : lines.length;
    return lines
      .slice(0, limit)
      .map((line, index) => `${String(index + 1).padStart(6)}\t${line}`)
      .join('\n');
  },
};

const definition = (name: string, properties: Record<string, unknown>): Anthropic.Tool => ({
  name,
  description: `${name} tool`,
  input_schema: { type: 'object', properties },
});
const toolDefinitions: Record<string, Anthropic.Tool> = {
  Glob: definition('Glob', { pattern: { type: 'string' }, path: { type: 'string' } }),
  Grep: definition('Grep', { pattern: { type: 'string' }, output_mode: { type: 'string' }, '-i': { type: 'boolean' } }),
  Read: definition('Read', { file_path: { type: 'string' }, limit: { type: 'integer' } }),
  Agent: definition('Agent', {
    description: { type: 'string' },
    prompt: { type: 'string' },
    subagent_type: { type: 'string' },
  }),
};

interface AgentRun {
  answer: string;
  turns: number;
  toolNames: string[];
}

/** A minimal query loop: call the model, run the tools it asks for, until end_turn (at most 12 turns). */
async function runAgent(agentType: string, agentId: string, prompt: string, toolNames: string[]): Promise<AgentRun> {
  const client = clientFor(server!, {
    headers: { 'x-subagents-agent-type': agentType, 'x-subagents-agent-id': agentId },
  });
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: prompt }];
  const used: string[] = [];
  for (let turn = 1; turn <= 12; turn++) {
    const message = await client.messages
      .stream({
        model: 'claude-test-tiny',
        max_tokens: 4096,
        system: `You are the ${agentType} agent.`,
        tools: toolNames.map((name) => toolDefinitions[name]!),
        messages,
      })
      .finalMessage();
    messages.push({ role: 'assistant', content: message.content });
    const toolUses = message.content.filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
    if (message.stop_reason === 'end_turn') {
      expect(toolUses).toEqual([]);
      return {
        answer: message.content
          .filter((block) => block.type === 'text')
          .map((block) => block.text)
          .join(''),
        turns: turn,
        toolNames: used,
      };
    }
    expect(message.stop_reason).toBe('tool_use');
    const results: Anthropic.ToolResultBlockParam[] = [];
    for (const [index, toolUse] of toolUses.entries()) {
      expect(toolNames).toContain(toolUse.name);
      used.push(toolUse.name);
      const input = toolUse.input as Record<string, unknown>;
      const output =
        toolUse.name === 'Agent'
          ? (
              await runAgent(String(input.subagent_type), `${agentId}/${turn}-${index}`, String(input.prompt), [
                'Glob',
                'Grep',
                'Read',
              ])
            ).answer
          : await tools[toolUse.name]!(input);
      results.push({ type: 'tool_result', tool_use_id: toolUse.id, content: output });
    }
    messages.push({ role: 'user', content: results });
  }
  throw new Error(`${agentType} agent did not finish within 12 turns`);
}

describe('demo behaviour', () => {
  it('explores the directory with real tools, delegates to Explore agents and answers from what it found', async () => {
    server = (await startTestServer({ behaviour: { kind: 'demo' } })).server;
    const run = await runAgent('general-purpose', 'root', 'Tell me about this project.', [
      'Glob',
      'Grep',
      'Read',
      'Agent',
    ]);
    expect(run.turns).toBeLessThanOrEqual(5);
    expect(run.toolNames).toEqual(['Glob', 'Glob', 'Agent', 'Agent', 'Read']);
    expect(run.answer).toContain('Markdown files: 2 (README.md, docs/guide.md)');
    expect(run.answer).toContain('TypeScript files under src/: 3');
    expect(run.answer).toContain('README.md starts with the heading "Durable Demo Project"');
    // The Explore agents' findings, quoting real lines of real files.
    expect(run.answer).toContain('src/workflows/loop/agent-workflow.ts');
    expect(run.answer).toContain("import { proxyActivities } from '@temporalio/workflow';");
    expect(run.answer).toContain('src/cli/commands/start.ts');
    const exploreRequests = server
      .requests()
      .filter((logged) => logged.headers['x-subagents-agent-type'] === 'Explore');
    expect(exploreRequests.length).toBe(6);
  });

  it('an Explore agent greps, reads the top match and quotes it', async () => {
    server = (await startTestServer({ behaviour: { kind: 'demo' } })).server;
    const run = await runAgent('Explore', 'explore-1', 'Find the CLI commands', ['Glob', 'Grep', 'Read']);
    expect(run.toolNames).toEqual(['Grep', 'Read']);
    expect(run.answer).toContain('Searched for "command": 1 matching file(s): src/cli/commands/start.ts.');
    expect(run.answer).toContain('> /** The start command. */');
  });

  it('works without an Agent tool and never names a tool it was not offered', async () => {
    server = (await startTestServer({ behaviour: { kind: 'demo' } })).server;
    const noAgent = await runAgent('general-purpose', 'solo', 'Summarise.', ['Glob', 'Read']);
    expect(noAgent.toolNames).toEqual(['Glob', 'Glob', 'Read']);
    expect(noAgent.answer).toContain('Durable Demo Project');
    const readOnly = await runAgent('general-purpose', 'reader', 'Summarise.', ['Read']);
    expect(readOnly.toolNames).toEqual([]);
    expect(readOnly.turns).toBe(1);
    const nothing = await runAgent('Explore', 'blind', 'Find the workflows', []);
    expect(nothing.answer).toContain('no search tool');
  });

  it('quotes a source file as the top match, never a lock file or generated output', () => {
    const found = [
      'package-lock.json',
      'docs/workflows.md',
      'dist/workflows/index.js',
      'test/fixtures/histories/a.json',
      'src/workflows/loop/agent-workflow.ts',
      'yarn.lock',
      'Cargo.lock',
    ];
    expect(rankedMatches(found)).toEqual(['src/workflows/loop/agent-workflow.ts', 'docs/workflows.md']);
    expect(rankedMatches(['package-lock.json'])).toEqual([]);
  });
});
