import { describe, expect, it } from 'vitest';
import { parseVersionArgs } from '../../src/cli/commands/worker';
import { defaultBuildId, parseBuildId, parseDeploymentName, versionRequestFromEnv } from '../../src/worker/versioning';

describe('a worker version', () => {
  it('derives the build id from the package version and the bundle, the same for the same code', () => {
    const id = defaultBuildId('0.1.0', 'bundle A');
    expect(id).toMatch(/^0\.1\.0-[0-9a-f]{12}$/);
    expect(defaultBuildId('0.1.0', 'bundle A')).toBe(id);
    expect(defaultBuildId('0.1.0', 'bundle B')).not.toBe(id);
    expect(defaultBuildId('0.2.0', 'bundle A')).not.toBe(id);
    expect(parseBuildId(id, 'test')).toBe(id);
  });

  it('refuses names and ids Temporal would refuse or read another way, saying what to give', () => {
    for (const name of ['', 'has space', 'dot.ted', 'colon:ed', '-leading', 'x'.repeat(101), 'naïve'])
      expect(() => parseDeploymentName(name, '--deployment')).toThrow(/--deployment: .* is not a deployment name/);
    for (const id of ['', 'a b', 'a:b', '.hidden', 'x'.repeat(101), 'new\nline'])
      expect(() => parseBuildId(id, '--build-id')).toThrow(/--build-id: [^]* is not a build id/);
    expect(parseDeploymentName('prod_eu-1', 'x')).toBe('prod_eu-1');
  });

  it('reads --deployment and --build-id beside the other worker flags', () => {
    expect(parseVersionArgs([])).toEqual({});
    expect(parseVersionArgs(['--deployment', 'prod'])).toEqual({ deploymentName: 'prod' });
    expect(parseVersionArgs(['--deployment', 'prod', '--build-id', '1.2.3'])).toEqual({
      deploymentName: 'prod',
      buildId: '1.2.3',
    });
    expect(() => parseVersionArgs(['--deployment', 'bad name'])).toThrow(/not a deployment name/);
  });

  it('reads SUBAGENTS_DEPLOYMENT and SUBAGENTS_BUILD_ID, and refuses a build id without a deployment', () => {
    expect(versionRequestFromEnv({})).toEqual({});
    expect(versionRequestFromEnv({ SUBAGENTS_DEPLOYMENT: ' prod ' })).toEqual({ deploymentName: 'prod' });
    expect(versionRequestFromEnv({ SUBAGENTS_DEPLOYMENT: 'prod', SUBAGENTS_BUILD_ID: 'b7' })).toEqual({
      deploymentName: 'prod',
      buildId: 'b7',
    });
    expect(() => versionRequestFromEnv({ SUBAGENTS_BUILD_ID: 'b7' })).toThrow(/without SUBAGENTS_DEPLOYMENT/);
    expect(() => versionRequestFromEnv({ SUBAGENTS_DEPLOYMENT: 'a.b' })).toThrow(/SUBAGENTS_DEPLOYMENT: /);
  });
});
