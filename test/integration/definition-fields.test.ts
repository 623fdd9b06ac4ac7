// @slow
/** The fields of an agent file that change what an agent does (docs/agent-definitions.md), on a real Temporal server. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { modelCallsOf, useAgentTestEnv } from '../helpers/agent-env';
import { runCompleted } from '../helpers/agent-waits';
import { agentNamed, agentOfType, bash, spawn } from '../helpers/scripted-agents';

/** This file's own home: it installs a plugin there. */
const homeDir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'definition-fields-home-')));
const env = useAgentTestEnv({ kind: 'echo' }, { homeDir });

function writeAgent(file: string, text: string): void {
  const full = path.join(env.workspace, '.claude', 'agents', file);
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(full, text);
}

/** Model request bodies of one agent, parsed. */
function requestsOf(agentId: string): Array<Record<string, unknown>> {
  return modelCallsOf(env.modelServer, agentId).map(
    (request) => JSON.parse(request.rawBody) as Record<string, unknown>,
  );
}

describe('definition fields on a real server', () => {
  it('effort reaches every model call of the agent as output_config.effort, and color its tree node and status', async () => {
    writeAgent(
      'painter.md',
      '---\nname: painter\ndescription: Paints\ntools: Read\neffort: low\ncolor: pink\n---\nYou paint.\n',
    );
    env.script(
      agentNamed('effort-root', [
        {
          toolUses: [spawn('paint', 'paint it', { subagent_type: 'painter' })],
        },
        { text: 'root done' },
      ]),
      agentOfType('painter', [
        { toolUses: [{ name: 'Read', input: { file_path: 'missing.txt' } }] },
        { text: 'painted' },
      ]),
    );
    const { handle } = await runCompleted(env, { prompt: 'paint', name: 'effort-root', model: 'claude-opus-4-6' });
    const child = `${handle.agentId}.1`;
    const childRequests = requestsOf(child);
    expect(childRequests).toHaveLength(2);
    for (const body of childRequests) expect(body.output_config).toEqual({ effort: 'low' });
    // The root's type has no effort: its calls carry none.
    for (const body of requestsOf(handle.agentId)) expect(body).not.toHaveProperty('output_config');
    expect(
      env.modelServer
        .requests()
        .filter((request) => request.headers['x-subagents-agent-id'] === child)
        .map((request) => request.effort),
    ).toEqual(['low', 'low']);

    const tree = await handle.tree();
    expect(tree.nodes.find((node) => node.agentId === child)).toMatchObject({ agentType: 'painter', color: 'pink' });
    const status = await env.client.getAgent(child).status();
    expect(status).toMatchObject({ agentType: 'painter', color: 'pink' });
  });

  it('a Bash(git diff:*) rule runs git diff and refuses git log before it reaches a shell; the refusal counts in status', async () => {
    execFileSync('git', ['init', '-q'], { cwd: env.workspace });
    writeAgent(
      'differ.md',
      '---\nname: differ\ndescription: Shows diffs\ntools: Bash(git diff:*)\n---\nYou show diffs.\n',
    );
    env.script(
      agentNamed('rules-root', [
        { toolUses: [spawn('diff', 'diff it', { subagent_type: 'differ' })] },
        { text: 'root done' },
      ]),
      agentOfType('differ', [
        {
          toolUses: [
            bash('git diff --stat'),
            bash('git log --oneline > rule-escaped.txt'),
            bash('git diff && touch rule-escaped.txt'),
          ],
        },
        { text: 'diffed' },
      ]),
    );
    const { handle } = await runCompleted(env, { prompt: 'diff', name: 'rules-root' });
    const child = `${handle.agentId}.1`;
    const [, second] = requestsOf(child);
    const results = (second!.messages as Array<{ content: unknown }>).at(-1)!.content as Array<{
      content: string;
      is_error?: boolean;
    }>;
    expect(results[0]!.is_error, results[0]!.content).toBeFalsy();
    expect(results[0]!.content).not.toContain('ToolRuleDenied');
    for (const refused of [results[1]!, results[2]!]) {
      expect(refused.is_error).toBe(true);
      expect(refused.content).toContain(
        'ToolRuleDenied: this agent may use Bash only as its rules allow (Bash(git diff:*))',
      );
    }
    // Nothing the refused commands would have done happened.
    expect(existsSync(path.join(env.workspace, 'rule-escaped.txt'))).toBe(false);
    const status = await env.client.getAgent(child).status();
    expect(status.permissionDenials).toEqual({ count: 2, byTool: { Bash: 2 } });
    expect((await handle.status()).permissionDenials).toEqual({ count: 0, byTool: {} });
  });

  it("spawns an installed plugin's agent by its namespaced name, <plugin>:<agent>", async () => {
    const installPath = path.join(homeDir, '.claude', 'plugins', 'cache', 'market', 'review-kit', '1.0.0');
    mkdirSync(path.join(installPath, 'agents'), { recursive: true });
    mkdirSync(path.join(installPath, '.claude-plugin'), { recursive: true });
    writeFileSync(
      path.join(installPath, '.claude-plugin', 'plugin.json'),
      JSON.stringify({ name: 'review-kit', version: '1.0.0' }),
    );
    writeFileSync(
      path.join(installPath, 'agents', 'reviewer.md'),
      '---\nname: reviewer\ndescription: Reviews code\ntools: Grep\n---\nYou are PLUGIN-REVIEWER.\n',
    );
    writeFileSync(
      path.join(homeDir, '.claude', 'plugins', 'installed_plugins.json'),
      JSON.stringify({
        version: 2,
        plugins: { 'review-kit@market': [{ scope: 'user', installPath, version: '1.0.0' }] },
      }),
    );
    env.script(
      agentNamed('plugin-root', [
        {
          toolUses: [spawn('review', 'review it', { subagent_type: 'review-kit:reviewer' })],
        },
        { text: 'root done' },
      ]),
      agentOfType('review-kit:reviewer', [{ text: 'reviewed by the plugin' }]),
    );
    const { handle } = await runCompleted(env, { prompt: 'review', name: 'plugin-root' });
    // The roster the root's model saw names the plugin agent.
    expect(JSON.stringify(requestsOf(handle.agentId)[0]!.messages)).toContain('review-kit:reviewer');
    const [child] = requestsOf(`${handle.agentId}.1`);
    expect(JSON.stringify(child!.system)).toContain('PLUGIN-REVIEWER');
    expect((child!.tools as Array<{ name: string }>).map((tool) => tool.name)).toEqual(['Grep']);
    const second = requestsOf(handle.agentId)[1]!;
    expect(JSON.stringify(second.messages)).toContain('reviewed by the plugin');
  });

  it("preloads the skills a definition names into the child's first message, with the skill's folder", async () => {
    const skillDir = path.join(env.workspace, '.claude', 'skills', 'changelog');
    mkdirSync(path.join(skillDir, 'templates'), { recursive: true });
    writeFileSync(
      path.join(skillDir, 'SKILL.md'),
      '---\nname: changelog\ndescription: Writes changelogs\n---\nCHANGELOG-SKILL: fill templates/entry.md for each change.\n',
    );
    writeFileSync(path.join(skillDir, 'templates', 'entry.md'), '- {{change}}\n');
    writeAgent(
      'scribe.md',
      '---\nname: scribe\ndescription: Writes changelogs\ntools: Read\nskills: changelog\n---\nYou write changelogs.\n',
    );
    env.script(
      agentNamed('skills-root', [
        {
          toolUses: [spawn('log', 'write the changelog', { subagent_type: 'scribe' })],
        },
        { text: 'root done' },
      ]),
      agentOfType('scribe', [
        { toolUses: [{ name: 'Read', input: { file_path: path.join(skillDir, 'templates', 'entry.md') } }] },
        { text: 'logged' },
      ]),
    );
    const { handle } = await runCompleted(env, { prompt: 'log', name: 'skills-root' });
    const [first, second] = requestsOf(`${handle.agentId}.1`);
    const opening = (first!.messages as Array<{ content: Array<{ text?: string }> }>)[0]!.content.map(
      (block) => block.text ?? '',
    );
    expect(opening).toHaveLength(3);
    expect(opening[1]).toContain('<skill name="changelog">');
    expect(opening[1]).toContain(`Base directory for this skill: ${skillDir}`);
    expect(opening[1]).toContain('CHANGELOG-SKILL: fill templates/entry.md');
    expect(opening[2]).toBe('write the changelog');
    // The files beside SKILL.md are readable.
    expect(JSON.stringify(second!.messages)).toContain('{{change}}');
    // The root's type has no skills: its first message has no skill block.
    expect(JSON.stringify(requestsOf(handle.agentId)[0]!.messages)).not.toContain('<skill name=');
  });

  it('memory: project gives the agent a memory directory whose MEMORY.md the next run of its type sees', async () => {
    writeAgent(
      'keeper.md',
      '---\nname: keeper\ndescription: Remembers\ntools: Grep\nmemory: project\n---\nYou remember.\n',
    );
    const memoryFile = path.join(env.workspace, '.claude', 'agent-memory', 'keeper', 'MEMORY.md');
    env.script(
      agentNamed('memory-first', [
        {
          toolUses: [
            {
              name: 'Write',
              input: { file_path: memoryFile, content: '# Lessons\n- LESSON-FROM-RUN-ONE: the build needs make.\n' },
            },
          ],
        },
        { text: 'remembered' },
      ]),
      agentNamed('memory-second', [{ text: 'recalled' }]),
    );
    const { handle: first } = await runCompleted(env, { prompt: 'learn', name: 'memory-first', type: 'keeper' });
    const [firstRequest] = requestsOf(first.agentId);
    // Write (and Read, Edit) come with memory; the prompt says where the memory is.
    expect((firstRequest!.tools as Array<{ name: string }>).map((tool) => tool.name)).toEqual([
      'Grep',
      'Read',
      'Edit',
      'Write',
    ]);
    expect(JSON.stringify(firstRequest!.system)).toContain(
      `persistent memory directory at ${path.dirname(memoryFile)}`,
    );
    expect(JSON.stringify(firstRequest!.system)).toContain('MEMORY.md is empty or does not exist yet.');
    expect(readFileSync(memoryFile, 'utf8')).toContain('LESSON-FROM-RUN-ONE');

    const { handle: second } = await runCompleted(env, { prompt: 'recall', name: 'memory-second', type: 'keeper' });
    expect(JSON.stringify(requestsOf(second.agentId)[0]!.system)).toContain(
      'LESSON-FROM-RUN-ONE: the build needs make.',
    );
  });

  it('memory: user lets the agent write its memory under home (outside the workspace), and only there; the next run sees it', async () => {
    writeAgent(
      'diarist.md',
      '---\nname: diarist\ndescription: Keeps a diary\ntools: Grep\nmemory: user\n---\nYou keep a diary.\n',
    );
    const memoryDir = path.join(homeDir, '.claude', 'agent-memory', 'diarist');
    const memoryFile = path.join(memoryDir, 'MEMORY.md');
    const elsewhere = path.join(homeDir, '.claude', 'not-memory.md');
    env.script(
      agentNamed('user-memory-first', [
        {
          toolUses: [
            {
              name: 'Write',
              input: { file_path: memoryFile, content: '# Diary\n- USER-LESSON: tests run with npm test.\n' },
            },
          ],
        },
        {
          toolUses: [
            { name: 'Write', input: { file_path: elsewhere, content: 'escape' } },
            { name: 'Read', input: { file_path: memoryFile } },
          ],
        },
        { text: 'noted' },
      ]),
      agentNamed('user-memory-second', [{ text: 'recalled' }]),
    );
    const { handle: first } = await runCompleted(env, {
      prompt: 'note it',
      name: 'user-memory-first',
      type: 'diarist',
      permissionMode: 'bypassPermissions',
    });
    expect(readFileSync(memoryFile, 'utf8')).toContain('USER-LESSON');
    // Home is not opened beyond the memory directory.
    expect(existsSync(elsewhere)).toBe(false);
    const third = JSON.stringify(requestsOf(first.agentId)[2]!.messages);
    expect(third).toContain('PathOutsideWorkspace');
    expect(third).toContain('USER-LESSON: tests run with npm test.');
    const { handle: second } = await runCompleted(env, {
      prompt: 'recall',
      name: 'user-memory-second',
      type: 'diarist',
    });
    expect(JSON.stringify(requestsOf(second.agentId)[0]!.system)).toContain('USER-LESSON: tests run with npm test.');
  });
});
