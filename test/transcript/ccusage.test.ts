import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { transcriptCommand } from '../../src/cli/commands/transcript';
import { CliError, ExitCode } from '../../src/cli/exit-codes';
import type { AgentResult } from '../../src/shared/agents/agent';
import { projectDirName } from '../../src/transcript/claude-layout';
import { transcriptSession } from '../../src/transcript/records';
import { createAgentTestEnv, type AgentTestEnv, scenario } from '../helpers/agent-env';
import { agentNamed, agentOfType } from '../helpers/scripted-agents';

const run = promisify(execFile);
// ccusage 18.0.11 is the last pure-JS release (later ones ship a native binary); a pinned devDependency.
const ccusage = path.resolve('node_modules', 'ccusage', 'dist', 'index.js');

let env: AgentTestEnv;
let result: AgentResult;
const configDir = mkdtempSync(path.join(os.tmpdir(), 'subagents-claude-config-'));

beforeAll(async () => {
  env = await createAgentTestEnv(
    scenario([
      agentNamed('cc-root', [
        {
          toolUses: [
            {
              name: 'Agent',
              input: {
                description: 'survey',
                prompt: 'Survey the notes and delegate',
                subagent_type: 'general-purpose',
                name: 'cc-mid',
              },
            },
          ],
        },
        { text: 'ROOT done: {{last_tool_result}}' },
      ]),
      agentNamed('cc-mid', [
        { toolUses: [{ name: 'Glob', input: { pattern: '*.txt' } }] },
        {
          toolUses: [
            { name: 'Agent', input: { description: 'read notes', prompt: 'Read notes.txt', subagent_type: 'Explore' } },
          ],
        },
        { text: 'MID done' },
      ]),
      agentOfType('Explore', [
        { toolUses: [{ name: 'Read', input: { file_path: 'notes.txt' } }] },
        { text: 'LEAF done' },
      ]),
    ]),
  );
  await env.writeFiles({ 'notes.txt': 'hello\n' });
  const handle = await env.start({ prompt: 'three levels please', name: 'cc-root' });
  result = await handle.result();
}, 240_000);
afterAll(async () => {
  await env?.close();
});

async function exportTree(args: string[]): Promise<number> {
  const previous = process.env.TEMPORAL_ADDRESS;
  process.env.TEMPORAL_ADDRESS = inject('temporalAddress');
  try {
    return await transcriptCommand(args);
  } finally {
    if (previous === undefined) delete process.env.TEMPORAL_ADDRESS;
    else process.env.TEMPORAL_ADDRESS = previous;
  }
}

describe("transcripts in Claude Code's layout", () => {
  it("lays out a session file and one file (+ .meta.json) per subagent, and ccusage reports exactly the tree's tokens", async () => {
    expect(result.status).toBe('completed');
    expect(await exportTree([result.agentId, '--tree', '--claude-dir', configDir])).toBe(ExitCode.ok);

    const { sessionId } = transcriptSession(result.agentId);
    const projectDir = path.join(configDir, 'projects', projectDirName(env.workspace));
    expect(existsSync(path.join(projectDir, `${sessionId}.jsonl`))).toBe(true);
    const subagentFiles = readdirSync(path.join(projectDir, sessionId, 'subagents')).sort();
    expect(subagentFiles.filter((file) => file.endsWith('.jsonl'))).toHaveLength(2);
    expect(subagentFiles.filter((file) => file.endsWith('.meta.json'))).toHaveLength(2);
    const sidecars = subagentFiles
      .filter((file) => file.endsWith('.meta.json'))
      .map(
        (file) =>
          JSON.parse(readFileSync(path.join(projectDir, sessionId, 'subagents', file), 'utf8')) as {
            agentType: string;
            spawnDepth: number;
          },
      );
    expect(sidecars.map((sidecar) => `${sidecar.agentType}@${sidecar.spawnDepth}`).sort()).toEqual([
      'Explore@2',
      'general-purpose@1',
    ]);

    // Every assistant record of the session says which call it was, as Claude Code's do.
    const rootRecords = readFileSync(path.join(projectDir, `${sessionId}.jsonl`), 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const record of rootRecords) {
      expect(record).toMatchObject({ sessionId, cwd: env.workspace, userType: 'external', isSidechain: false });
      expect(record.version).toMatch(/^\d+\.\d+\.\d+/);
      if (record.type === 'assistant') {
        expect(record.requestId).toEqual(expect.any(String));
        expect(record.message).toMatchObject({
          id: expect.stringMatching(/^msg_/),
          model: 'claude-test-tiny',
          usage: { input_tokens: expect.any(Number) },
        });
      }
    }

    const { stdout } = await run(process.execPath, [ccusage, 'daily', '--json', '--offline'], {
      env: { ...process.env, CLAUDE_CONFIG_DIR: configDir },
      timeout: 60_000,
    });
    const report = JSON.parse(stdout) as {
      totals: {
        inputTokens: number;
        outputTokens: number;
        cacheCreationTokens: number;
        cacheReadTokens: number;
        totalTokens: number;
      };
    };
    const tree = result.treeUsage!;
    expect(report.totals).toMatchObject({
      inputTokens: tree.inputTokens,
      outputTokens: tree.outputTokens,
      cacheCreationTokens: tree.cacheCreationInputTokens,
      cacheReadTokens: tree.cacheReadInputTokens,
    });
    expect(report.totals.totalTokens).toBeGreaterThan(0);
  });

  it('refuses --claude-dir with --out or --jsonl, or an empty directory', async () => {
    for (const args of [
      ['x', '--claude-dir', configDir, '--out', 'f'],
      ['x', '--claude-dir', configDir, '--jsonl'],
      ['x', '--claude-dir', ' '],
    ]) {
      await expect(exportTree(args)).rejects.toThrow(CliError);
    }
  });
});
