// @slow
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { simpleGit } from 'simple-git';
import { describe, expect, it } from 'vitest';
import { builtinAgents } from '../../src/shared/agents/builtin-agents';
import { continuationPrompt } from '../../src/workflows/context/truncation';
import { useAgentTestEnv } from '../helpers/agent-env';
import { runCompleted } from '../helpers/agent-waits';
import { recordHistory } from '../helpers/histories';
import { agentNamed, agentOfType, agentPrompted, bash, spawn } from '../helpers/scripted-agents';
import { answeredRequestsOf, type ContentBlock, type RequestBody } from '../helpers/model-requests';

const env = useAgentTestEnv();

const requestsOf = (agentId: string) => answeredRequestsOf(env.modelServer, agentId);

/** JSON without cache_control (breakpoints move from request to request; the bytes under them must not). */
const withoutBreakpoints = (value: unknown): string =>
  JSON.stringify(value, (key, inner: unknown) => (key === 'cache_control' ? undefined : inner));

const blocksOf = (message: RequestBody['messages'][number]): ContentBlock[] =>
  typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;

function lastUserBlocks(body: RequestBody): ContentBlock[] {
  return blocksOf(body.messages[body.messages.length - 1]!);
}

const resultText = (block: ContentBlock | undefined): string =>
  typeof block?.content === 'string' ? block.content : JSON.stringify(block?.content ?? block?.text);

describe('what a real model sees', () => {
  it('tells a root the agent types it may start, identical in every request; a general-purpose child gets the same tools', async () => {
    const agentsDir = path.join(env.workspace, '.claude', 'agents');
    mkdirSync(agentsDir, { recursive: true });
    writeFileSync(
      path.join(agentsDir, 'code-reviewer.md'),
      '---\nname: code-reviewer\ndescription: Reviews a diff for bugs, naming and missing tests\ntools: Read, Grep, Agent(Explore)\nmodel: opus\n---\nYou review code.\n',
    );
    env.script(
      agentNamed('roster-root', [
        { toolUses: [{ name: 'Glob', input: { pattern: '*' } }] },
        {
          toolUses: [
            spawn('general task', 'GP-CHILD-TASK'),
            spawn('review', 'REVIEW-TASK', { subagent_type: 'code-reviewer' }),
          ],
        },
        { text: 'root done' },
      ]),
      agentPrompted('GP-CHILD-TASK', [{ text: 'gp child done' }]),
      agentOfType('code-reviewer', [{ text: 'reviewed' }]),
    );
    const { handle } = await runCompleted(env, { prompt: 'Look around and delegate.', name: 'roster-root' });

    const root = requestsOf(handle.agentId);
    expect(root).toHaveLength(3);
    const firstMessage = blocksOf(root[0]!.messages[0]!);
    expect(firstMessage.map((block) => block.type)).toEqual(['text', 'text']);
    const context = firstMessage[0]!.text!;
    expect(firstMessage[1]!.text).toBe('Look around and delegate.');
    expect(context).toContain(`# This agent\nagentId: ${handle.agentId}\nName: roster-root`);
    // Every allowed type reaches the model with its name, description, tools and model, sorted by name.
    const rosterLines = context.split('\n').filter((line) => line.startsWith('- ') && line.includes('(Tools: '));
    expect(rosterLines.map((line) => line.slice(2, line.indexOf(':')))).toEqual([
      'Explore',
      'Plan',
      'code-reviewer',
      'general-purpose',
    ]);
    expect(context).toContain(
      '- code-reviewer: Reviews a diff for bugs, naming and missing tests (Tools: Agent, Grep, Read; model: claude-opus-5)',
    );
    expect(context).toContain(
      `- Explore: ${builtinAgents.Explore!.description} (Tools: Bash (read-only commands), Glob, Grep, Read, WebFetch, WebSearch, TodoWrite; model: claude-haiku-4-5)`,
    );
    expect(context).toContain('- general-purpose: ' + builtinAgents['general-purpose']!.description);
    expect(context).toContain('Omitting subagent_type starts a general-purpose agent');
    // The roster is in no tool description, and the first message and system prompt never change.
    expect(JSON.stringify(root[0]!.tools)).not.toContain('code-reviewer');
    for (const request of root.slice(1)) {
      expect(withoutBreakpoints(request.messages[0])).toBe(withoutBreakpoints(root[0]!.messages[0]));
      expect(withoutBreakpoints(request.system)).toBe(withoutBreakpoints(root[0]!.system));
      expect(JSON.stringify(request.tools)).toBe(JSON.stringify(root[0]!.tools));
    }

    // The general-purpose child: the root's exact tools array; its own identity; a roster for depth 1.
    const child = requestsOf(`${handle.agentId}.1`)[0]!;
    expect(JSON.stringify(child.tools)).toBe(JSON.stringify(root[0]!.tools));
    const childContext = blocksOf(child.messages[0]!)[0]!.text!;
    expect(childContext).toContain(`agentId: ${handle.agentId}.1\nStarted by: ${handle.agentId}.`);
    expect(childContext).toContain('- code-reviewer: ');
    expect(JSON.stringify(child.system)).toContain('# Notes for subagents');
    // code-reviewer may start only Explore (Agent(Explore)).
    const reviewerContext = blocksOf(requestsOf(`${handle.agentId}.2`)[0]!.messages[0]!)[0]!.text!;
    expect(
      reviewerContext
        .split('\n')
        .filter((line) => line.includes('(Tools: '))
        .map((line) => line.slice(2, line.indexOf(':'))),
    ).toEqual(['Explore']);
  });

  it('never runs a tool call cut at max_tokens, continues a cut answer, and refuses unknown Agent fields', async () => {
    env.script(
      agentNamed('cut-root', [
        {
          toolUses: [spawn('resume it', 'go on', { resume: 'agent-old.1', max_turns: 3 })],
        },
        {
          text: 'Writing the file.',
          toolUses: [{ name: 'Write', input: { file_path: 'big.txt', content: 'the first half of' } }],
          stopReason: 'max_tokens',
        },
        { text: 'PART-ONE then ', stopReason: 'max_tokens' },
        { text: 'PART-TWO.' },
      ]),
    );
    const { handle, result } = await runCompleted(env, { prompt: 'cut turns', name: 'cut-root', maxOutputTokens: 64 });
    expect(result.finalText).toBe('PART-ONE then PART-TWO.');
    expect(result.stopReason).toBe('end_turn');

    const requests = requestsOf(handle.agentId);
    expect(requests).toHaveLength(4);
    // The Agent call with unknown fields started nothing and named them.
    const refusedAgent = lastUserBlocks(requests[1]!)[0]!;
    expect(refusedAgent.is_error).toBe(true);
    expect(resultText(refusedAgent)).toMatch(
      /^InvalidToolInput: the Agent tool has no field "resume" \(to continue a finished agent, use SendMessage/,
    );
    expect(resultText(refusedAgent)).toContain('"max_turns"');
    expect((await handle.status()).children).toEqual([]);
    // The cut Write was not executed: an error telling the model to split the work.
    expect(existsSync(path.join(env.workspace, 'big.txt'))).toBe(false);
    const refusedWrite = lastUserBlocks(requests[2]!)[0]!;
    expect(refusedWrite.is_error).toBe(true);
    expect(resultText(refusedWrite)).toContain('max_tokens 64');
    expect(resultText(refusedWrite)).toContain('Split the work into smaller steps');
    // The cut answer was continued, not reported as completed.
    expect(lastUserBlocks(requests[3]!).map((block) => block.text)).toEqual([continuationPrompt]);
    expect(result.toolUses).toBe(1);
    await recordHistory(env.temporal.client, handle.agentId, 'model-surface-cut-turns');
  });

  it('ends as truncated, not completed, when the answer stays cut after the continuations', async () => {
    env.script({
      match: { agentName: 'always-cut' },
      turns: ['a', 'b', 'c', 'd', 'e'].map((text) => ({ text, stopReason: 'max_tokens' })),
    });
    const result = await (await env.start({ prompt: 'never ends', name: 'always-cut' })).result();
    expect(result.status).toBe('truncated');
    expect(result.finalText).toBe('abcd');
    expect(result.stopReason).toBe('max_tokens');
    expect(result.turns).toBe(4);
  });

  it('lets Explore run read-only git commands without approval and refuses writing ones before they run', async () => {
    const git = simpleGit({ baseDir: env.workspace });
    await git.init(['--initial-branch=main']);
    await git.addConfig('user.name', 'Test User');
    await git.addConfig('user.email', 'test@example.com');
    await env.writeFiles({ 'notes.md': '# Notes\n' });
    await git.add('notes.md');
    await git.commit('FIRST-COMMIT-SUBJECT');
    env.script(
      agentNamed('explore-root', [
        {
          toolUses: [spawn('history', 'Inspect the history', { subagent_type: 'Explore' })],
        },
        { text: 'root done' },
      ]),
      agentOfType('Explore', [
        { toolUses: [bash('git log --oneline && ls')] },
        { toolUses: [bash('touch created.txt')] },
        { toolUses: [bash('git commit --allow-empty -m SNEAKY')] },
        { text: 'explored' },
      ]),
    );
    // Default permission mode: a Bash call that needed approval would wait for a person and the test would time out.
    const { handle } = await runCompleted(env, { prompt: 'explore', name: 'explore-root', permissionMode: 'default' });
    const explore = requestsOf(`${handle.agentId}.1`);
    const readResult = lastUserBlocks(explore[1]!)[0]!;
    expect(readResult.is_error).toBeUndefined();
    expect(resultText(readResult)).toContain('FIRST-COMMIT-SUBJECT');
    expect(resultText(readResult)).toContain('notes.md');
    for (const [index, pattern] of [
      [2, /not a read-only command/],
      [3, /not a read-only git command/],
    ] as const) {
      const refused = lastUserBlocks(explore[index]!)[0]!;
      expect(refused.is_error).toBe(true);
      expect(resultText(refused)).toMatch(/^CommandNotReadOnly: /);
      expect(resultText(refused)).toMatch(pattern);
    }
    expect(existsSync(path.join(env.workspace, 'created.txt'))).toBe(false);
    expect((await git.log()).all.map((commit) => commit.message)).toEqual(['FIRST-COMMIT-SUBJECT']);
    // Explore's slim prompt: no git status, guidance or CLAUDE.md.
    expect(JSON.stringify(explore[0]!.system)).not.toContain('# Git status');
    expect(JSON.stringify(explore[0]!.system)).not.toContain('# Using your tools');
  });
});
