import type Anthropic from '@anthropic-ai/sdk';
import { parse, type Node } from 'acorn';
import Ajv from 'ajv';
import { mkdir, mkdtemp, readFile, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reviewScriptFile } from '../../src/model-server/demo-workflow-lead';
import { clientFor, serverPerTest } from './helpers';

// examples/workflows/review.js run against the demo model over real HTTP, agents using real tools on a real folder.
// The primitives below follow the script API's documented semantics (docs/workflows.md); the durable VM runs it for real.
const servers = serverPerTest();
const ajv = new Ajv({ allErrors: true });
let repo: string;

const files: Record<string, string> = {
  'src/a.ts': 'export const a = 1;\n',
  'src/b.ts': 'export const b = 2;\n',
  'src/c/helper.ts': 'export const helper = 3;\n',
  'test/a.test.ts': "import { a } from '../src/a';\n",
  'docs/guide.md': '# Guide\n',
};

beforeAll(async () => {
  repo = await mkdtemp(path.join(os.tmpdir(), 'review-script-'));
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(repo, name)), { recursive: true });
    await writeFile(path.join(repo, name), content);
  }
});
afterAll(async () => {
  await rm(repo, { recursive: true, force: true });
});

async function walk(directory: string, prefix = ''): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) =>
      entry.isDirectory()
        ? walk(path.join(directory, entry.name), `${prefix}${entry.name}/`)
        : [`${prefix}${entry.name}`],
    ),
  );
  return nested.flat().sort();
}

function globToRegExp(pattern: string): RegExp {
  let source = '';
  for (let index = 0; index < pattern.length; index++) {
    if (pattern.startsWith('**/', index)) {
      source += '(?:.*/)?';
      index += 2;
    } else if (pattern[index] === '*') source += '[^/]*';
    else source += pattern[index]!.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

const tools: Record<string, (input: Record<string, unknown>) => Promise<{ content: string; isError?: boolean }>> = {
  Glob: async (input) => {
    const matches = (await walk(repo)).filter((file) => globToRegExp(String(input.pattern)).test(file));
    return { content: matches.length > 0 ? matches.join('\n') : `No files found matching ${String(input.pattern)}` };
  },
  Read: async (input) => ({ content: await readFile(path.join(repo, String(input.file_path)), 'utf8') }),
};
const toolDefinition = (name: string, properties: Record<string, unknown>): Anthropic.Tool => ({
  name,
  description: `${name} tool`,
  input_schema: { type: 'object', properties },
});

interface AgentOptions {
  label?: string;
  agentType?: string;
  schema?: Record<string, unknown>;
}

/** One script `agent()` call: a query loop against the model server; the schema's object, else the final text. */
async function runAgent(index: number, prompt: string, options: AgentOptions = {}): Promise<unknown> {
  const client = clientFor(servers.current(), {
    headers: {
      'x-subagents-agent-id': `run.${index}`,
      'x-subagents-agent-type': options.agentType ?? 'general-purpose',
    },
  });
  const offered = [
    toolDefinition('Glob', { pattern: { type: 'string' } }),
    toolDefinition('Read', { file_path: { type: 'string' } }),
  ];
  const validate = options.schema ? ajv.compile(options.schema) : undefined;
  if (options.schema)
    offered.push({
      name: 'StructuredOutput',
      description: 'Submit the answer.',
      input_schema: options.schema as Anthropic.Tool.InputSchema,
    });
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: prompt }];
  let structured: unknown;
  for (let turn = 0; turn < 10; turn++) {
    const message = await client.messages.create({
      model: 'claude-test-tiny',
      max_tokens: 4096,
      tools: offered,
      messages,
    });
    messages.push({ role: 'assistant', content: message.content });
    const uses = message.content.filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
    if (message.stop_reason === 'end_turn') {
      if (validate) return structured ?? Promise.reject(new Error(`agent ${index} never submitted its object`));
      return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    }
    const results: Anthropic.ToolResultBlockParam[] = [];
    for (const use of uses) {
      const input = use.input as Record<string, unknown>;
      if (use.name === 'StructuredOutput') {
        const valid = validate!(input);
        if (valid) structured = input;
        results.push({
          type: 'tool_result',
          tool_use_id: use.id,
          content: valid ? 'Accepted.' : ajv.errorsText(validate!.errors),
          is_error: !valid,
        });
      } else {
        const output = await tools[use.name]!(input);
        results.push({ type: 'tool_result', tool_use_id: use.id, content: output.content });
      }
    }
    messages.push({ role: 'user', content: results });
  }
  throw new Error(`agent ${index} did not finish within 10 turns`);
}

/** Runs a script body with the primitives; its top-level `await` and `return` work inside an async function. */
async function runScript(body: string, args: unknown) {
  const phases: string[] = [];
  const logs: string[] = [];
  const calls: { index: number; prompt: string; options: AgentOptions; phase: string | undefined }[] = [];
  const agent = (prompt: string, options: AgentOptions = {}) => {
    const index = calls.length + 1;
    calls.push({ index, prompt, options, phase: phases.at(-1) });
    return runAgent(index, prompt, options);
  };
  const parallel = (thunks: Array<() => unknown>) =>
    Promise.all(
      thunks.map((thunk) =>
        Promise.resolve()
          .then(thunk)
          .catch(() => null),
      ),
    );
  const pipeline = (items: unknown[], ...stages: Array<(previous: unknown, item: unknown, index: number) => unknown>) =>
    Promise.all(
      items.map(async (item, index) => {
        let value = item;
        for (const stage of stages) {
          try {
            value = await stage(value, item, index);
          } catch {
            return null;
          }
        }
        return value;
      }),
    );
  const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (
    ...parameters: string[]
  ) => (...values: unknown[]) => Promise<unknown>;
  const run = new AsyncFunction('agent', 'parallel', 'pipeline', 'phase', 'log', 'args', body);
  const result = await run(
    agent,
    parallel,
    pipeline,
    (title: string) => phases.push(title),
    (line: string) => logs.push(line),
    args,
  );
  return { result, phases, logs, calls };
}

const parseOptions = {
  ecmaVersion: 'latest',
  sourceType: 'module',
  allowAwaitOutsideFunction: true,
  allowReturnOutsideFunction: true,
} as const;

/** The script's header as `checkScript` (src/shared/scripts/script-check.ts) requires it, and its body. */
async function loadScript(): Promise<{ meta: Record<string, unknown>; body: string; nodes: Node[] }> {
  const source = await readFile(reviewScriptFile, 'utf8');
  const program = parse(source, parseOptions);
  const header = program.body[0];
  expect(header?.type).toBe('ExportNamedDeclaration');
  // The header is a plain literal: evaluate it as JSON-like data by slicing out the object expression.
  const declaration = header?.type === 'ExportNamedDeclaration' ? header.declaration : undefined;
  const declarator = declaration?.type === 'VariableDeclaration' ? declaration.declarations[0] : undefined;
  expect(declaration?.type === 'VariableDeclaration' && declaration.kind).toBe('const');
  expect(declarator?.id.type === 'Identifier' && declarator.id.name).toBe('meta');
  const init = declarator?.init;
  expect(init?.type).toBe('ObjectExpression');
  const meta = new Function(`return (${source.slice(init!.start, init!.end)});`)() as Record<string, unknown>;
  const body =
    source.slice(0, header!.start) +
    source.slice(header!.start, header!.end).replace(/[^\n]/g, ' ') +
    source.slice(header!.end);
  const nodes: Node[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object') {
      if (typeof (value as Node).type === 'string') nodes.push(value as Node);
      Object.values(value).forEach(visit);
    }
  };
  visit(program.body.slice(1));
  return { meta, body, nodes };
}

describe('examples/workflows/review.js', () => {
  it('has the header Claude Code requires and neither imports nor require', async () => {
    const { meta, nodes } = await loadScript();
    expect(meta).toMatchObject({ name: 'review', description: expect.any(String), whenToUse: expect.any(String) });
    expect((meta.phases as { title: string }[]).map((phase) => phase.title)).toEqual(['Read', 'Check', 'Synthesize']);
    const kinds = new Set(nodes.map((node) => node.type));
    expect(kinds.has('ImportDeclaration') || kinds.has('ImportExpression')).toBe(false);
    expect(
      nodes.some(
        (node) =>
          node.type === 'Identifier' &&
          ['require', 'process', 'fetch'].includes((node as unknown as { name: string }).name),
      ),
    ).toBe(false);
  });

  it('is the saved "review" script of this repository (a link, so the demo runs it by name)', async () => {
    const saved = path.join(
      path.dirname(path.dirname(reviewScriptFile.pathname)),
      '..',
      '.claude',
      'workflows',
      'review.js',
    );
    expect(await realpath(saved)).toBe(await realpath(reviewScriptFile.pathname));
  });

  it('reads each folder, checks each finding adversarially and reports the confirmed ones', async () => {
    await servers.start({ behaviour: { kind: 'demo' } });
    const { body } = await loadScript();
    const run = await runScript(body, { folders: ['src', 'test', 'docs'] });
    expect(run.phases).toEqual(['Read', 'Check', 'Synthesize']);
    // src/a.ts has a test under test/: its checker refutes the reader; b and c/helper have none anywhere.
    expect(run.result).toEqual({
      report: [
        'Review report: 2 confirmed finding(s) in 1 folder(s).',
        '',
        'src/',
        '- src/b.ts has no test file named after it in src/. (No file named b.test.* exists anywhere in the repository.)',
        '- src/c/helper.ts has no test file named after it in src/. (No file named helper.test.* exists anywhere in the repository.)',
      ].join('\n'),
      confirmed: 2,
      refuted: 1,
    });
    expect(run.logs).toEqual([
      'Reading 3 folder(s): src, test, docs',
      '3 finding(s) to check',
      '2 confirmed, 1 refuted, 0 unchecked',
    ]);
    expect(run.calls.map((call) => [call.phase, call.options.label])).toEqual([
      ['Read', 'read src'],
      ['Read', 'read test'],
      ['Read', 'read docs'],
      ['Check', 'check 1'],
      ['Check', 'check 2'],
      ['Check', 'check 3'],
      ['Synthesize', 'synthesize'],
    ]);
    const requests = servers.current().requests();
    const checkerTools = requests.filter((logged) => logged.headers['x-subagents-agent-id'] === 'run.4');
    expect(checkerTools.length).toBe(3);
  });

  it('falls back to its default folders without args', async () => {
    await servers.start({ behaviour: { kind: 'demo' } });
    const { body } = await loadScript();
    const run = await runScript(body, undefined);
    expect(run.logs[0]).toBe('Reading 3 folder(s): src, test, docs');
  });
});
