import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandEnvironment, safeEnvironmentNames } from '../../src/config/shell-options';
import { SecretFileError, secretNamesIn, withSecretFiles } from '../../src/config/secrets';

describe('secrets from files', () => {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'subagents-secrets-'));
  const keyFile = path.join(directory, 'key');
  writeFileSync(keyFile, 'sk-from-file\n');

  it('reads <NAME>_FILE into <NAME>, trimming the final newline', () => {
    expect(withSecretFiles({ ANTHROPIC_API_KEY_FILE: keyFile }).ANTHROPIC_API_KEY).toBe('sk-from-file');
    expect(withSecretFiles({ TEMPORAL_API_KEY_FILE: keyFile, OTHER: 'x' })).toMatchObject({
      TEMPORAL_API_KEY: 'sk-from-file',
      OTHER: 'x',
    });
  });

  it('refuses a missing file, and a secret given both ways', () => {
    expect(() => withSecretFiles({ SUBAGENTS_PAYLOAD_KEY_FILE: path.join(directory, 'nope') })).toThrow(
      SecretFileError,
    );
    expect(() => withSecretFiles({ SUBAGENTS_PAYLOAD_KEY_FILE: path.join(directory, 'nope') })).toThrow(
      /does not exist/,
    );
    expect(() => withSecretFiles({ ANTHROPIC_API_KEY: 'a', ANTHROPIC_API_KEY_FILE: keyFile })).toThrow(
      /keep only ANTHROPIC_API_KEY_FILE/,
    );
  });
});

describe('which variables are secrets', () => {
  it("takes the runtime's own, secret-looking names and SUBAGENTS_SECRET_ENV, but not what is passed to tools on purpose", () => {
    const env = {
      PATH: '/bin',
      ANTHROPIC_API_KEY: 'k',
      MY_SERVICE_TOKEN: 't',
      DB_PASSWORD: 'p',
      GITHUB_TOKEN: 'g',
      PLAIN_NAME: 'n',
      SUBAGENTS_SECRET_ENV: 'PLAIN_NAME',
      SUBAGENTS_BASH_ENV: 'GITHUB_TOKEN',
    };
    expect(secretNamesIn(env).sort()).toEqual(['ANTHROPIC_API_KEY', 'DB_PASSWORD', 'MY_SERVICE_TOKEN', 'PLAIN_NAME']);
  });
});

describe("a command's environment", () => {
  it('is an allowlist: the safe names, LC_*, and what SUBAGENTS_BASH_ENV passes; never the rest', () => {
    const safe = { PATH: '/usr/bin', HOME: '/home/w', LC_ALL: 'C' };
    const source = { ...safe, MY_SERVICE_TOKEN: 'secret', GITHUB_TOKEN: 'gh', SUBAGENTS_PAYLOAD_KEY: 'key' };
    const environment = commandEnvironment({ passThrough: ['GITHUB_TOKEN'] }, source);
    const pagers = { PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0' };
    expect(environment).toEqual({ ...safe, GITHUB_TOKEN: 'gh', ...pagers });
    expect(safeEnvironmentNames).not.toContain('SUBAGENTS_PAYLOAD_KEY');
  });

  it('gives another user their own HOME and name', () => {
    const environment = commandEnvironment(
      { user: { name: 'nobody', uid: 65534, gid: 65534, home: '/nonexistent' } },
      { HOME: '/root', USER: 'root' },
    );
    expect(environment).toMatchObject({ HOME: '/nonexistent', USER: 'nobody', LOGNAME: 'nobody' });
  });
});

describe('scrubbing a process environment', () => {
  it('removes secrets from process.env and from the block /proc/<pid>/environ shows, keeping the rest', () => {
    const script = path.join(import.meta.dirname, '..', 'fixtures', 'scripts', 'scrub-environment.ts');
    const output = execFileSync(process.execPath, ['--import', 'tsx', script], {
      env: {
        PATH: process.env.PATH,
        SUBAGENTS_PAYLOAD_KEY: 'PAYLOAD-KEY-VALUE',
        MY_SERVICE_TOKEN: 'SERVICE-TOKEN-VALUE',
        KEEP_ME: 'visible',
      },
      encoding: 'utf8',
    });
    const seen = JSON.parse(output) as {
      removed: string[];
      blockCleared: boolean;
      environ: string;
      processEnvKeys: string[];
    };
    expect(seen.removed.sort()).toEqual(['MY_SERVICE_TOKEN', 'SUBAGENTS_PAYLOAD_KEY']);
    expect(seen.blockCleared).toBe(true);
    expect(seen.environ).not.toContain('PAYLOAD-KEY-VALUE');
    expect(seen.environ).not.toContain('SERVICE-TOKEN-VALUE');
    expect(seen.environ).toContain('KEEP_ME=visible');
    expect(seen.processEnvKeys).not.toContain('MY_SERVICE_TOKEN');
  });
});
