/** The settings look of a root's turn boundaries on real files, and what the workflow decides from it (docs/hooks.md). */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createSettingsLook,
  createSettingsReloadActivities,
  type SettingsReloadResult,
} from '../../src/activities/settings-reload';
import { decideSettingsReload, takesPushedSettings } from '../../src/workflows/loop/settings-reload';
import type { TreeSettings } from '../../src/shared/agents/tree-settings';

const scratch = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'settings-reload-')));
const home = path.join(scratch, 'home');
mkdirSync(home);
const { reloadSettings } = createSettingsReloadActivities(home);
const lookAtSettings = createSettingsLook(home);

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

describe('lookAtSettings (the look a model call carries)', () => {
  it('returns nothing while the stamps hash as the last look saw, and the load once a file appears', async () => {
    const dir = path.join(scratch, 'look-empty');
    mkdirSync(dir);
    const first = (await lookAtSettings({ cwd: dir }))!;
    expect(first.reloaded).toEqual({ settings: { projectDir: dir, files: [] }, invalid: [] });
    expect(first.hash).toMatch(/^[\w-]{16}$/);
    expect(await lookAtSettings({ cwd: dir, knownHash: first.hash! })).toBeUndefined();

    mkdirSync(path.join(dir, '.claude'));
    writeFileSync(path.join(dir, '.claude', 'settings.json'), hookSettings('echo created'));
    const created = (await lookAtSettings({ cwd: dir, knownHash: first.hash! }))!;
    expect(created.hash).not.toBe(first.hash);
    expect(created.stamps[path.join(dir, '.claude', 'settings.json')]).not.toBe('absent');
    expect(created.reloaded?.settings.hooks?.Stop?.[0]?.hooks[0]).toMatchObject({ command: 'echo created' });
    expect(await lookAtSettings({ cwd: dir, knownHash: created.hash! })).toBeUndefined();
  });

  it('sees a settings file created in an ancestor: the project moves there', async () => {
    const parent = path.join(scratch, 'look-parent');
    const dir = path.join(parent, 'sub');
    mkdirSync(dir, { recursive: true });
    const first = (await lookAtSettings({ cwd: dir }))!;
    mkdirSync(path.join(parent, '.claude'));
    writeFileSync(path.join(parent, '.claude', 'settings.local.json'), hookSettings('echo up'));
    const moved = (await lookAtSettings({ cwd: dir, knownHash: first.hash! }))!;
    expect(moved.stamps.project).toBe(parent);
    expect(moved.sources[path.join(parent, '.claude', 'settings.local.json')]).toBe('local_settings');
    expect(moved.reloaded?.settings.projectDir).toBe(parent);
  });
});

describe('hostile settings files', () => {
  const settingsFile = (name: string) => {
    const dir = path.join(scratch, name);
    mkdirSync(path.join(dir, '.claude'), { recursive: true });
    return { dir, file: path.join(dir, '.claude', 'settings.json') };
  };
  const refusedQuickly = async (dir: string, file: string, why: RegExp) => {
    const started = Date.now();
    const looked = await reloadSettings({ cwd: dir });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(looked.reloaded?.invalid).toEqual([expect.stringMatching(why)]);
    expect(looked.reloaded?.invalid[0]!.startsWith(`${file}: `)).toBe(true);
  };

  it('a fifo, or a symlink to one, is refused at once (never waits for a writer)', async () => {
    const { dir, file } = settingsFile('hostile-fifo');
    execFileSync('mkfifo', [file]);
    await refusedQuickly(dir, file, /cannot be read \(not a regular file\)/);
    const linked = settingsFile('hostile-fifo-link');
    const fifo = path.join(scratch, 'elsewhere.fifo');
    execFileSync('mkfifo', [fifo]);
    symlinkSync(fifo, linked.file);
    await refusedQuickly(linked.dir, linked.file, /not a regular file/);
  });

  it('a file over the cap is refused unread; a symlink to /etc/shadow is unreadable or not settings', async () => {
    const { dir, file } = settingsFile('hostile-big');
    writeFileSync(file, `{"hooks": {}, "padding": "${'x'.repeat(5 * 1024 * 1024)}"}`);
    await refusedQuickly(dir, file, /5242\d+ bytes, more than the 1048576 a settings file may have/);
    const shadow = settingsFile('hostile-shadow');
    symlinkSync('/etc/shadow', shadow.file);
    // As root the file reads but is no JSON; as anyone else it cannot be read: refused either way.
    await refusedQuickly(shadow.dir, shadow.file, /not valid JSON|cannot be read/);
    // The notice never quotes what it read: a symlinked secret stays out of the history and `subagents status`.
    const secret = settingsFile('hostile-secret');
    writeFileSync(path.join(scratch, 'secret.txt'), 'SECRET-TOKEN-1234 is here');
    symlinkSync(path.join(scratch, 'secret.txt'), secret.file);
    const looked = await reloadSettings({ cwd: secret.dir });
    expect(looked.reloaded?.invalid[0]).toMatch(/not valid JSON \(Unexpected token\)/);
    expect(looked.reloaded?.invalid.join('')).not.toMatch(/SECRET|TOKEN|'S'/);
  });

  it('a directory or /dev/zero in its place is refused', async () => {
    const { dir, file } = settingsFile('hostile-dir');
    mkdirSync(file);
    await refusedQuickly(dir, file, /not a regular file/);
    const zero = settingsFile('hostile-zero');
    symlinkSync('/dev/zero', zero.file);
    await refusedQuickly(zero.dir, zero.file, /not a regular file/);
  });
});

describe('takesPushedSettings', () => {
  const pushed = (version: unknown, extra: Record<string, unknown> = {}) => ({
    settings: { projectDir: '/p', files: [], version, ...extra },
  });

  it('takes well-formed settings newer than what the agent has', () => {
    expect(takesPushedSettings(undefined, pushed(1))).toBe(true);
    const full = pushed(1, {
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'exit 2', once: true }] }] },
      permissions: { deny: [{ tool: 'Bash', content: 'rm:*', text: 'Bash(rm:*)', file: '/p/.claude/settings.json' }] },
      sandbox: { filesystem: { allowWrite: ['/tmp/x'] }, network: { allowedDomains: ['example.com'] } },
    });
    expect(takesPushedSettings(undefined, full)).toBe(true);
    expect(takesPushedSettings({ ...settingsOf('a'), version: 1 }, pushed(2))).toBe(true);
  });

  it('refuses an older or same version (pushes may arrive out of order), and anything malformed', () => {
    expect(takesPushedSettings({ ...settingsOf('a'), version: 2 }, pushed(2))).toBe(false);
    expect(takesPushedSettings({ ...settingsOf('a'), version: 3 }, pushed(2))).toBe(false);
    for (const bad of [
      null,
      'settings',
      {},
      { settings: null },
      pushed(undefined),
      pushed(1.5),
      pushed('2'),
      pushed(1, { files: [3] }),
      pushed(1, { projectDir: 7 }),
      pushed(1, { hooks: 'rm -rf' }),
      pushed(1, { permissions: null }),
      // Shapes the old field-type check let through, which hook matching and rule checks would then trip on.
      pushed(1, { hooks: { PreToolUse: 5 } }),
      pushed(1, { hooks: { PreToolUse: [{ hooks: [{ type: 'command' }] }] } }),
      pushed(1, { hooks: { PreToolUse: [{ hooks: [{ type: 'exec', command: 'id' }] }] } }),
      pushed(1, { hooks: { NotAnEvent: [] } }),
      pushed(1, { permissions: { deny: ['Bash'] } }),
      pushed(1, { sandbox: { filesystem: { allowWrite: '/' } } }),
      pushed(1, { files: Array.from({ length: 17 }, () => '/x') }),
    ])
      expect(takesPushedSettings(undefined, bad)).toBe(false);
  });
});

describe('decideSettingsReload', () => {
  const stamps = { project: '/p', '/p/.claude/settings.json': '1:1:10', '/p/.claude/settings.local.json': 'absent' };

  it('nothing loaded, or the same settings loaded: unchanged', () => {
    expect(decideSettingsReload(settingsOf('a'), result(undefined, stamps), stamps)).toEqual({ type: 'unchanged' });
    // A first look of a run loads what is there; the same as in force is no change.
    expect(decideSettingsReload(settingsOf('a'), result(settingsOf('a'), stamps), undefined)).toEqual({
      type: 'unchanged',
    });
  });

  it('no settings in force: a load that configures nothing is no change, one that configures something is', () => {
    const empty = { projectDir: '/p', files: [] };
    expect(decideSettingsReload(undefined, result(empty, stamps), undefined)).toEqual({ type: 'unchanged' });
    const next = { ...stamps, '/p/.claude/settings.json': '2:2:40' };
    expect(decideSettingsReload(undefined, result(settingsOf('b'), next), stamps)).toMatchObject({
      type: 'changed',
      files: ['/p/.claude/settings.json'],
    });
    // The run's first look knows no stamps: the files read are the changed ones.
    expect(decideSettingsReload(undefined, result(settingsOf('b'), next), undefined)).toMatchObject({
      type: 'changed',
      files: ['/p/.claude/settings.json'],
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
