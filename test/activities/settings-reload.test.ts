/** The settings look of a root's turn boundaries on real files, and what the workflow decides from it (docs/hooks.md). */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSettingsReloadActivities, type SettingsReloadResult } from '../../src/activities/settings-reload';
import { decideSettingsReload } from '../../src/workflows/loop/settings-reload';
import type { TreeSettings } from '../../src/shared/agents/tree-settings';

const scratch = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'settings-reload-')));
const home = path.join(scratch, 'home');
mkdirSync(home);
const { reloadSettings } = createSettingsReloadActivities(home);

function projectWith(name: string, settings: string): string {
  const dir = path.join(scratch, name);
  mkdirSync(path.join(dir, '.claude'), { recursive: true });
  writeFileSync(path.join(dir, '.claude', 'settings.json'), settings);
  return dir;
}
const hookSettings = (command: string) =>
  JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command }] }] } });

describe('reloadSettings', () => {
  it('loads when it knows nothing, then only stamps while nothing changes, and loads again after a change', async () => {
    const dir = projectWith('changes', hookSettings('echo one'));
    const first = await reloadSettings({ cwd: dir });
    expect(first.reloaded?.settings.hooks?.Stop?.[0]?.hooks[0]).toMatchObject({ command: 'echo one' });
    expect(first.sources).toEqual({
      [path.join(home, '.claude', 'settings.json')]: 'user_settings',
      [path.join(dir, '.claude', 'settings.json')]: 'project_settings',
      [path.join(dir, '.claude', 'settings.local.json')]: 'local_settings',
    });
    expect(first.stamps[path.join(dir, '.claude', 'settings.local.json')]).toBe('absent');
    const same = await reloadSettings({ cwd: dir, known: first.stamps });
    expect(same).toEqual({ stamps: first.stamps, sources: first.sources });

    writeFileSync(path.join(dir, '.claude', 'settings.local.json'), hookSettings('echo two'));
    const changed = await reloadSettings({ cwd: dir, known: first.stamps });
    expect(changed.reloaded?.invalid).toEqual([]);
    expect(changed.reloaded?.settings.hooks?.Stop?.map((group) => group.hooks[0])).toMatchObject([
      { command: 'echo one' },
      { command: 'echo two' },
    ]);
  });

  it('names a file that exists but is not valid settings as invalid', async () => {
    const dir = projectWith('broken', hookSettings('echo one'));
    const known = (await reloadSettings({ cwd: dir })).stamps;
    writeFileSync(path.join(dir, '.claude', 'settings.json'), '{"hooks": ');
    const broken = await reloadSettings({ cwd: dir, known });
    expect(broken.reloaded?.invalid).toEqual([
      expect.stringMatching(new RegExp(`^${path.join(dir, '.claude', 'settings.json')}: not valid JSON`)),
    ]);
    // A deleted file is a change, not a broken one.
    rmSync(path.join(dir, '.claude', 'settings.json'));
    writeFileSync(path.join(dir, '.claude', 'settings.local.json'), '{}');
    const gone = await reloadSettings({ cwd: dir, known });
    expect(gone.reloaded?.invalid).toEqual([]);
  });
});

const settingsOf = (command: string, files: string[] = ['/p/.claude/settings.json']): TreeSettings => ({
  projectDir: '/p',
  files,
  hooks: { Stop: [{ hooks: [{ type: 'command', command }] }] },
});
const result = (settings: TreeSettings | undefined, stamps: Record<string, string>, invalid: string[] = []) =>
  ({
    stamps,
    sources: {},
    ...(settings ? { reloaded: { settings, invalid } } : {}),
  }) as SettingsReloadResult;

describe('decideSettingsReload', () => {
  const stamps = { project: '/p', '/p/.claude/settings.json': '1:1:10', '/p/.claude/settings.local.json': 'absent' };

  it('nothing loaded, or the same settings loaded: unchanged', () => {
    expect(decideSettingsReload(settingsOf('a'), result(undefined, stamps), stamps)).toEqual({ type: 'unchanged' });
    // A first look of a run loads what is there; the same as in force is no change.
    expect(decideSettingsReload(settingsOf('a'), result(settingsOf('a'), stamps), undefined)).toEqual({
      type: 'unchanged',
    });
  });

  it('a broken file refuses the whole re-read, naming it', () => {
    const decision = decideSettingsReload(
      settingsOf('a'),
      result(settingsOf('b'), stamps, ['/p/.claude/settings.json: not valid JSON']),
      undefined,
    );
    expect(decision).toEqual({
      type: 'invalid',
      notice: 'settings changed but were not re-read, the previous ones stay: /p/.claude/settings.json: not valid JSON',
    });
  });

  it('new settings: the files whose stamps changed, and the problems as notices', () => {
    const next = { ...stamps, '/p/.claude/settings.local.json': '2:2:5' };
    const decision = decideSettingsReload(
      settingsOf('a'),
      result({ ...settingsOf('b'), problems: ['/p/.claude/settings.local.json: hooks.Stop[1]: dropped'] }, next),
      stamps,
    );
    expect(decision).toMatchObject({
      type: 'changed',
      files: ['/p/.claude/settings.local.json'],
      notices: ['settings re-read: /p/.claude/settings.local.json: hooks.Stop[1]: dropped'],
    });
  });
});
