import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bwrapArguments } from '../../src/sandbox/bwrap-arguments';
import { SandboxOptionsError, sandboxOptionsFromEnv } from '../../src/config/sandbox-options';
import {
  mergeSandboxSettings,
  parseSandboxSettings,
  readDenyRulesAsSandbox,
} from '../../src/project/settings/sandbox-settings';
import { withDefinitionDomains } from '../../src/shared/policy/sandbox';

describe('sandbox settings', () => {
  it("reads Claude Code's sandbox key and refuses to let a file turn the sandbox off", () => {
    const parsed = parseSandboxSettings({
      enabled: false,
      autoAllowBashIfSandboxed: true,
      filesystem: { allowWrite: ['~/.cache/pip'], denyRead: [] },
      network: { allowedDomains: ['Example.COM', '*.github.com'] },
      excludedCommands: ['docker'],
    });
    expect(parsed.settings).toEqual({
      autoAllowBashIfSandboxed: true,
      filesystem: { allowWrite: ['~/.cache/pip'] },
      network: { allowedDomains: ['example.com', '*.github.com'] },
    });
    expect(parsed.problems.join()).toMatch(/sandbox\.enabled: false is ignored.*SUBAGENTS_SANDBOX=off/);
  });

  it('uses nothing of a malformed sandbox key, and says what is wrong', () => {
    for (const value of [
      { network: { allowedDomains: ['http://evil.example/path'] } },
      { filesystem: { allowWrite: 'not-a-list' } },
      { autoAllowBashIfSandboxed: 'yes' },
      'on',
    ]) {
      const parsed = parseSandboxSettings(value);
      expect(parsed.settings).toBeUndefined();
      expect(parsed.problems).toHaveLength(1);
    }
  });

  it('joins the lists of every file; the last file that sets a flag wins', () => {
    const merged = mergeSandboxSettings([
      { autoAllowBashIfSandboxed: true, network: { allowedDomains: ['a.example'] } },
      undefined,
      {
        autoAllowBashIfSandboxed: false,
        network: { allowedDomains: ['b.example', 'a.example'], deniedDomains: ['c.example'] },
        filesystem: { denyRead: ['secrets/**'] },
      },
    ]);
    expect(merged).toEqual({
      autoAllowBashIfSandboxed: false,
      network: { allowedDomains: ['a.example', 'b.example'], deniedDomains: ['c.example'] },
      filesystem: { denyRead: ['secrets/**'] },
    });
    expect(mergeSandboxSettings([undefined, undefined])).toBeUndefined();
  });

  it('hides the paths of Read deny rules, as Claude Code does', () => {
    const rule = (content: string, root?: string) => ({
      tool: 'Read',
      content,
      text: `Read(${content})`,
      file: 'settings.json',
      ...(root ? { root } : {}),
    });
    expect(
      readDenyRulesAsSandbox(
        [
          rule('./.env'),
          rule('//etc/app/key.pem'),
          rule('/config/secret', '/repo'),
          { ...rule(''), tool: 'Bash', content: 'rm:*' },
        ],
        '/repo',
      ),
    ).toEqual({
      filesystem: { denyRead: ['/repo/.env', '/etc/app/key.pem', '/repo/config/secret'] },
    });
  });

  it("adds a definition's WebFetch(domain:) hosts to what its commands may reach", () => {
    expect(
      withDefinitionDomains({ network: { allowedDomains: ['a.example'] } }, [
        { tool: 'WebFetch', content: 'domain:docs.example' },
        { tool: 'Bash', content: 'git:*' },
      ]),
    ).toEqual({ network: { allowedDomains: ['a.example', 'docs.example'] } });
    const settings = { filesystem: { denyRead: ['x'] } };
    expect(withDefinitionDomains(settings, [{ tool: 'Read', content: 'src/**' }])).toBe(settings);
  });

  it('SUBAGENTS_SANDBOX is on by default, off only when said, and a typo is an error', () => {
    expect(sandboxOptionsFromEnv({}).mode).toBe('on');
    expect(sandboxOptionsFromEnv({ SUBAGENTS_SANDBOX: 'off' }).mode).toBe('off');
    expect(() => sandboxOptionsFromEnv({ SUBAGENTS_SANDBOX: 'of' })).toThrow(SandboxOptionsError);
    expect(
      sandboxOptionsFromEnv({
        SUBAGENTS_PAYLOAD_KEY_FILE: '/keys/payload',
        TEMPORAL_TLS_CLIENT_KEY_PATH: '/keys/tls.key',
      }).hiddenFiles,
    ).toEqual(['/keys/payload', '/keys/tls.key']);
  });
});

describe('bubblewrap arguments', () => {
  const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'bwrap-args-')));
  const home = path.join(base, 'home');
  mkdirSync(path.join(home, '.ssh'), { recursive: true });
  /** A request for a sandbox working in `root`, with `home` as the home directory. */
  const workspaceRequest = (root: string, profile: 'command' | 'service' = 'command', hostNetwork = false) => ({
    profile,
    workspaceRoot: root,
    cwd: root,
    homeDir: home,
    hostNetwork,
  });

  it('masks secrets after every writable bind, so a workspace at the home directory cannot uncover them', () => {
    const args = bwrapArguments(workspaceRequest(home));
    const workspaceBind = args.findIndex((arg, index) => arg === '--bind' && args[index + 1] === home);
    const sshMask = args.findIndex((arg, index) => arg === '--tmpfs' && args[index + 1] === path.join(home, '.ssh'));
    expect(workspaceBind).toBeGreaterThan(-1);
    expect(sshMask).toBeGreaterThan(workspaceBind);
    expect(args).toContain('--unshare-net');
    expect(args).toContain('--unshare-pid');
  });

  it('masks the home credentials a settings path would open: allowRead or allowWrite of the home', () => {
    const workspace = path.join(base, 'elsewhere');
    mkdirSync(workspace, { recursive: true });
    const request = workspaceRequest(workspace);
    for (const filesystem of [{ allowRead: ['~'] }, { allowWrite: ['~'] }, { allowRead: [path.join(home, '.ssh')] }]) {
      const args = bwrapArguments({ ...request, settings: { filesystem } });
      const opened = Math.max(
        ...args.map((arg, index) =>
          (arg === '--bind' || arg === '--ro-bind') && path.join(home, '.ssh').startsWith(args[index + 1]!)
            ? index
            : -1,
        ),
      );
      const sshMask = args.findIndex((arg, index) => arg === '--tmpfs' && args[index + 1] === path.join(home, '.ssh'));
      expect(opened, JSON.stringify(filesystem)).toBeGreaterThan(-1);
      expect(sshMask, JSON.stringify(filesystem)).toBeGreaterThan(opened);
    }
    // A workspace outside the home opens none of it: nothing to mask, no mount spent on it.
    expect(bwrapArguments(request)).not.toContain(path.join(home, '.ssh'));
  });

  it("lets a linked worktree write its repository's .git, but not its hooks or config", () => {
    const repoGit = path.join(base, 'repo', '.git');
    const worktreeGit = path.join(repoGit, 'worktrees', 'child');
    mkdirSync(path.join(repoGit, 'hooks'), { recursive: true });
    writeFileSync(path.join(repoGit, 'config'), '[core]\n');
    mkdirSync(worktreeGit, { recursive: true });
    writeFileSync(path.join(worktreeGit, 'commondir'), '../..\n');
    const worktree = path.join(base, 'child');
    mkdirSync(worktree);
    writeFileSync(path.join(worktree, '.git'), `gitdir: ${worktreeGit}\n`);
    const args = bwrapArguments(workspaceRequest(worktree)).join(' ');
    expect(args).toContain(`--bind ${repoGit} ${repoGit}`);
    expect(args).toContain(`--ro-bind ${path.join(repoGit, 'hooks')} ${path.join(repoGit, 'hooks')}`);
    expect(args).toContain(`--ro-bind ${path.join(repoGit, 'config')} ${path.join(repoGit, 'config')}`);
  });

  it('gives services the whole system read-only and the network, with the home credentials masked', () => {
    const args = bwrapArguments(workspaceRequest(base, 'service', true));
    expect(args.join(' ')).toContain('--ro-bind / /');
    expect(args).not.toContain('--unshare-net');
    expect(args.join(' ')).toContain(`--tmpfs ${path.join(home, '.ssh')}`);
  });
});
