import fs from 'node:fs/promises';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadAgentDefinitions } from '../../../src/project/agent-definitions/load';
import {
  DefinitionPrompts,
  promptDigest,
  resolveDefinitionPrompt,
  withoutPrompts,
} from '../../../src/project/agent-definitions/prompt-store';
import { builtinAgents } from '../../../src/shared/agents/builtin-agents';
import { definitionPromptOf } from '../../../src/workflows/tree/spawn';
import { createDefinitionTree, type DefinitionTree, definitionFile } from './helpers';

let tree: DefinitionTree;
beforeEach(async () => {
  tree = await createDefinitionTree();
});
afterEach(() => tree.cleanup());

async function loadedContext() {
  const [file] = await tree.write({
    'project/.claude/agents/reviewer.md': definitionFile(
      'name: reviewer\ndescription: Reviews code\ntools: Read',
      'You are REVIEWER.',
    ),
  });
  const loaded = await loadAgentDefinitions({ cwd: path.join(tree.root, 'project'), homeDir: tree.home });
  return { file: file!, context: { loaded, mcpServers: {} } };
}

describe('withoutPrompts: the record an agent keeps of its agent types', () => {
  it('keeps every field but the prompts, which become digests the worker can answer', async () => {
    const { context } = await loadedContext();
    const prompts = new DefinitionPrompts();
    const record = withoutPrompts(context, prompts);
    expect(Object.keys(record.loaded.definitions)).toEqual(Object.keys(context.loaded.definitions));
    for (const [name, definition] of Object.entries(context.loaded.definitions)) {
      expect(record.loaded.definitions[name]).toEqual({ ...definition, prompt: '' });
      expect(record.promptDigests![name]).toBe(promptDigest(definition.prompt));
      expect(prompts.get(record.promptDigests![name]!)).toBe(definition.prompt);
    }
    expect(record.loaded.reports).toEqual(context.loaded.reports);
    expect(JSON.stringify(record)).not.toContain('You are REVIEWER.');
    // The loaded context itself is not changed.
    expect(context.loaded.definitions.reviewer!.prompt).toBe('You are REVIEWER.');
  });

  it('gives a child its digest and file, or the prompt itself when the record holds prompts (recorded before)', async () => {
    const { file, context } = await loadedContext();
    const record = withoutPrompts(context, new DefinitionPrompts());
    expect(definitionPromptOf(record.loaded.definitions.reviewer!, record)).toEqual({
      definitionPrompt: '',
      definitionPromptRef: { digest: record.promptDigests!.reviewer, file },
    });
    expect(definitionPromptOf(record.loaded.definitions.Explore!, record)).toEqual({
      definitionPrompt: '',
      definitionPromptRef: { digest: promptDigest(builtinAgents.Explore!.prompt) },
    });
    expect(definitionPromptOf(context.loaded.definitions.reviewer!, context)).toEqual({
      definitionPrompt: 'You are REVIEWER.',
    });
  });
});

describe('resolveDefinitionPrompt: a child gets its prompt by digest', () => {
  it("from the worker's memory, even after the file changed", async () => {
    const { file, context } = await loadedContext();
    const prompts = new DefinitionPrompts();
    const record = withoutPrompts(context, prompts);
    await fs.writeFile(file, definitionFile('name: reviewer\ndescription: Reviews code', 'You are EDITED.'));
    expect(
      await resolveDefinitionPrompt({ digest: record.promptDigests!.reviewer!, file }, 'reviewer', tree.home, prompts),
    ).toEqual({ prompt: 'You are REVIEWER.', changed: false });
  });

  it('on another worker (nothing in memory): from the file, or the built-in, checked against the digest', async () => {
    const { file, context } = await loadedContext();
    const record = withoutPrompts(context, new DefinitionPrompts());
    const elsewhere = new DefinitionPrompts();
    expect(
      await resolveDefinitionPrompt(
        { digest: record.promptDigests!.reviewer!, file },
        'reviewer',
        tree.home,
        elsewhere,
      ),
    ).toEqual({ prompt: 'You are REVIEWER.', changed: false });
    // Now kept there too.
    expect(elsewhere.get(record.promptDigests!.reviewer!)).toBe('You are REVIEWER.');
    expect(
      await resolveDefinitionPrompt({ digest: record.promptDigests!.Plan! }, 'Plan', tree.home, elsewhere),
    ).toEqual({ prompt: builtinAgents.Plan!.prompt, changed: false });
  });

  it('the current prompt, said changed, when the file changed and no worker kept the text', async () => {
    const { file, context } = await loadedContext();
    const record = withoutPrompts(context, new DefinitionPrompts());
    await fs.writeFile(file, definitionFile('name: reviewer\ndescription: Reviews code', 'You are EDITED.'));
    expect(
      await resolveDefinitionPrompt(
        { digest: record.promptDigests!.reviewer!, file },
        'reviewer',
        tree.home,
        new DefinitionPrompts(),
      ),
    ).toEqual({ prompt: 'You are EDITED.', changed: true });
  });

  it('a non-retryable AgentTypeGone that says what to do when the type is gone', async () => {
    const { file, context } = await loadedContext();
    const record = withoutPrompts(context, new DefinitionPrompts());
    await fs.rm(file);
    const gone = resolveDefinitionPrompt(
      { digest: record.promptDigests!.reviewer!, file },
      'reviewer',
      tree.home,
      new DefinitionPrompts(),
    );
    await expect(gone).rejects.toBeInstanceOf(ApplicationFailure);
    await expect(gone).rejects.toMatchObject({
      type: 'AgentTypeGone',
      nonRetryable: true,
      message: expect.stringMatching(
        /^AgentTypeGone: agent type "reviewer" was defined in .*reviewer\.md.*Restore the file, or start the agent again/,
      ),
    });
    await fs.writeFile(file, '---\nname: [unclosed\n---\nbody\n');
    await expect(
      resolveDefinitionPrompt({ digest: 'f'.repeat(32), file }, 'reviewer', tree.home, new DefinitionPrompts()),
    ).rejects.toMatchObject({ type: 'AgentTypeGone' });
    // A built-in this worker does not have (a name like a prototype key included).
    for (const name of ['retired-builtin', 'constructor', '__proto__']) {
      await expect(
        resolveDefinitionPrompt({ digest: 'f'.repeat(32) }, name, tree.home, new DefinitionPrompts()),
      ).rejects.toMatchObject({ type: 'AgentTypeGone' });
    }
  });
});

describe('resolveDefinitionPrompt: a hostile reference', () => {
  it('refuses a malformed digest or a file that is not an absolute .md path, before reading anything', async () => {
    const prompts = new DefinitionPrompts();
    const digest = prompts.remember('You are kept.');
    const refs: unknown[] = [
      null,
      {},
      { digest: 'abc' },
      { digest: digest.toUpperCase() },
      { digest: 42 },
      { digest, file: '/etc/passwd' },
      { digest, file: 'relative/agent.md' },
      { digest, file: '/tmp/a\0.md' },
      { digest, file: 7 },
    ];
    for (const ref of refs) {
      await expect(resolveDefinitionPrompt(ref as never, 'reviewer', tree.home, prompts)).rejects.toMatchObject({
        type: 'AgentTypeGone',
        nonRetryable: true,
        message: expect.stringMatching(/^AgentTypeGone: agent type "reviewer": definitionPromptRef/),
      });
    }
    expect(await resolveDefinitionPrompt({ digest, file: '/nowhere/kept.md' }, 'reviewer', tree.home, prompts)).toEqual(
      { prompt: 'You are kept.', changed: false },
    );
  });
});

describe('DefinitionPrompts', () => {
  it('drops the prompts used longest ago beyond its size, never the one just kept', () => {
    const prompts = new DefinitionPrompts(25);
    const a = prompts.remember('a'.repeat(10));
    const b = prompts.remember('b'.repeat(10));
    prompts.get(a); // a used last: b goes first
    const c = prompts.remember('c'.repeat(10));
    expect([prompts.get(a), prompts.get(b), prompts.get(c)]).toEqual(['a'.repeat(10), undefined, 'c'.repeat(10)]);
    const big = prompts.remember('d'.repeat(40));
    expect(prompts.get(big)).toBe('d'.repeat(40));
    expect(prompts.size).toBe(1);
    expect(prompts.remember('d'.repeat(40))).toBe(big);
  });
});
