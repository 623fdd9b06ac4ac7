import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { parseNameStatus } from '../../../src/checkpoints/compare';
import { GitCommandError } from '../../../src/checkpoints/git-command';
import { parseSections, runScript } from '../../../src/checkpoints/git-script';

const context = { cwd: os.tmpdir(), env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } };

describe('parseSections', () => {
  it('splits framed sections, empty ones and -z lists included', () => {
    const output = '\0\0tree\0\0abc\0\0since\0\0\0\0changes\0\0M\0a b\0D\0new\nline\0\0\0ask\0\0';
    const sections = parseSections(output);
    expect([...sections.keys()]).toEqual(['tree', 'since', 'changes', 'ask']);
    expect(sections.get('since')).toBe('');
    expect(parseNameStatus(sections.get('changes')!)).toEqual([
      { path: 'a b', status: 'modified' },
      { path: 'new\nline', status: 'deleted' },
    ]);
  });
});

describe('runScript', () => {
  it('passes arguments as positional parameters, never as script text', async () => {
    const sections = await runScript(context, 'test', `section echo; printf '%s' "$1"`, ['$(echo injected); `id`']);
    expect(sections.get('echo')).toBe('$(echo injected); `id`');
  });

  it('stops at the first failing command and rejects with its stderr', async () => {
    const failure = await runScript(context, 'test', `echo 'fatal: nope' >&2; false; section never`, []).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(GitCommandError);
    expect((failure as GitCommandError).stderr).toContain('fatal: nope');
  });

  it('finishes a script that exits early with what it printed', async () => {
    const sections = await runScript(context, 'test', `section done; exit 0; section never`, []);
    expect([...sections.keys()]).toEqual(['done']);
  });
});
