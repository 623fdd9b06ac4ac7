/** Hook transcripts (transcript_path) on real files: where they go, hostile names, and what a hook gets without a workflow. */
import { existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, describe, expect, it } from 'vitest';
import {
  HookTranscripts,
  hookTranscriptPath,
  hookTranscriptsHome,
} from '../../../src/activities/hooks/hook-transcript';
import type { HookRunInput } from '../../../src/shared/policy/hook-outcome';
import { transcriptSession } from '../../../src/transcript/records';

const scratch = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'hook-transcript-')));
const home = (name: string) => path.join(scratch, name, 'transcripts');

const hookInput = (payload: Record<string, unknown>): HookRunInput => ({
  event: 'PreToolUse',
  command: 'true',
  timeoutMs: 5_000,
  cwd: '/work/project',
  projectDir: '/work/project',
  payload: { hook_event_name: 'PreToolUse', ...payload },
});

// A client whose server is not there: every query fails at once.
const connection = Connection.lazy({ address: '127.0.0.1:1', connectTimeout: 200 });
const deadClient = new Client({ connection });
afterAll(async () => {
  await connection.close();
});

describe('where hook transcripts go', () => {
  it('under SUBAGENTS_HOME, else ~/.subagents; never ~/.claude', () => {
    expect(hookTranscriptsHome({ SUBAGENTS_HOME: '/srv/sa' }, '/home/u')).toBe('/srv/sa/transcripts');
    expect(hookTranscriptsHome({ SUBAGENTS_HOME: '' }, '/home/u')).toBe('/home/u/.subagents/transcripts');
    expect(hookTranscriptsHome({}, '/home/u')).toBe('/home/u/.subagents/transcripts');
  });

  it("in Claude Code's layout: the root's session file, a subagent's under <session>/subagents", () => {
    const { sessionId } = transcriptSession('root-1');
    const base = '/h/transcripts/projects/-work-my-project';
    expect(
      hookTranscriptPath('/h/transcripts', {
        rootAgentId: 'root-1',
        agentId: 'root-1',
        projectDir: '/work/my.project',
      }),
    ).toBe(`${base}/${sessionId}.jsonl`);
    expect(
      hookTranscriptPath('/h/transcripts', {
        rootAgentId: 'root-1',
        agentId: 'root-1.a',
        projectDir: '/work/my.project',
      }),
    ).toBe(`${base}/${sessionId}/subagents/agent-root-1.a.jsonl`);
  });

  it.each([
    ['parent directories', '../../../etc/passwd'],
    ['a lone ..', '..'],
    ['.. inside', 'a/../../b'],
    ['newlines and NUL', 'line\nbreak\r\0nul'],
    ['5,000 characters', 'x'.repeat(5_000)],
    ['non-ASCII and ..', 'レビュー担当/../..'],
  ])('a hostile agent id or project (%s) stays one short segment below the home', (_label, hostile) => {
    const root = '/h/transcripts';
    for (const target of [
      { rootAgentId: 'r', agentId: hostile, projectDir: '/p' },
      { rootAgentId: hostile, agentId: hostile, projectDir: hostile },
      { rootAgentId: hostile, agentId: `${hostile}.child`, projectDir: `/p/${hostile}` },
    ]) {
      const file = hookTranscriptPath(root, target);
      expect(file.startsWith(`${root}/projects/`)).toBe(true);
      expect(path.normalize(file)).toBe(file);
      expect(file).not.toMatch(/[\n\r\0]/);
      for (const segment of file.split('/')) expect(Buffer.byteLength(segment)).toBeLessThanOrEqual(255);
    }
  });

  it('long names that share a head still get files of their own', () => {
    const head = 'a'.repeat(400);
    const one = hookTranscriptPath('/h', { rootAgentId: 'r', agentId: `${head}1`, projectDir: '/p' });
    const two = hookTranscriptPath('/h', { rootAgentId: 'r', agentId: `${head}2`, projectDir: '/p' });
    expect(one).not.toBe(two);
  });
});

describe('a hook transcript without an answering workflow', () => {
  it('without a client: the file is created empty and its path given; what was written stays', async () => {
    const transcripts = new HookTranscripts(undefined, { home: home('no-client') });
    const target = { rootAgentId: 'root', agentId: 'root', runId: 'run', projectDir: '/work/project' };
    const file = await transcripts.update(target);
    expect(file).toBe(hookTranscriptPath(home('no-client'), target));
    expect(readFileSync(file!, 'utf8')).toBe('');
    writeFileSync(file!, '{"type":"user"}\n');
    expect(await transcripts.update(target)).toBe(file);
    expect(readFileSync(file!, 'utf8')).toBe('{"type":"user"}\n');
  });

  it('a query that fails leaves the file as last written, says why, and the hook still gets the path', async () => {
    const warnings: string[] = [];
    const transcripts = new HookTranscripts(deadClient, {
      home: home('dead'),
      queryTimeoutMs: 500,
      warn: (message) => warnings.push(message),
    });
    const target = { rootAgentId: 'root', agentId: 'root.sub', runId: 'run', projectDir: '/work/project' };
    const file = hookTranscriptPath(home('dead'), target);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, '{"old":true}\n');
    expect(await transcripts.update(target)).toBe(file);
    expect(readFileSync(file, 'utf8')).toBe('{"old":true}\n');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('hook transcript of root.sub');
    expect(warnings[0]).toContain('left as last written');
  });

  it('withTranscriptPath adds transcript_path for the activity’s workflow; the root is the payload’s session_id', async () => {
    const transcripts = new HookTranscripts(undefined, { home: home('with-path') });
    const input = hookInput({ session_id: 'tree-root', agent_id: 'tree-root.w' });
    const added = await transcripts.withTranscriptPath(input, { workflowId: 'tree-root.w', runId: 'r1' });
    expect(added.payload.transcript_path).toBe(
      hookTranscriptPath(home('with-path'), {
        rootAgentId: 'tree-root',
        agentId: 'tree-root.w',
        projectDir: '/work/project',
      }),
    );
    expect(existsSync(added.payload.transcript_path as string)).toBe(true);
    // The caller's input is not changed.
    expect(input.payload.transcript_path).toBeUndefined();
    // Outside a workflow (no execution) nothing is added.
    expect(await transcripts.withTranscriptPath(input, undefined)).toBe(input);
  });

  it('when no file can be made there, the hook runs without transcript_path', async () => {
    const blocked = path.join(scratch, 'blocked');
    writeFileSync(blocked, 'a file where the home directory should be');
    const warnings: string[] = [];
    const transcripts = new HookTranscripts(undefined, { home: blocked, warn: (message) => warnings.push(message) });
    const input = hookInput({ session_id: 'r' });
    const same = await transcripts.withTranscriptPath(input, { workflowId: 'r', runId: 'x' });
    expect(same.payload.transcript_path).toBeUndefined();
    expect(warnings.join('\n')).toContain('hook transcript of r');
  });

  it('hooks of one agent running side by side write its file one at a time', async () => {
    const transcripts = new HookTranscripts(undefined, { home: home('parallel') });
    const target = { rootAgentId: 'root', agentId: 'root', runId: 'run', projectDir: '/p' };
    const files = await Promise.all(Array.from({ length: 20 }, () => transcripts.update(target)));
    expect(new Set(files).size).toBe(1);
    expect(readFileSync(files[0]!, 'utf8')).toBe('');
  });
});
