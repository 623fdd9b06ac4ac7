import { describe, expect, it } from 'vitest';
import { defaultDrainTimeoutSeconds, parseDeployArgs } from '../../src/cli/deploy-args';
import { CliError } from '../../src/cli/exit-codes';
import { treeLines } from '../../src/cli/commands/tree';
import { agentVersionOf, parseVersionKey, runningAgentsQuery, versionKey } from '../../src/client/deployments';
import type { TreeNode } from '../../src/shared/protocol/tree';

const env = { SUBAGENTS_DEPLOYMENT: 'prod' };

/** The message of the CliError (exit 2) parsing `argv` throws, or fails. */
function usageError(argv: string[], environment: NodeJS.ProcessEnv = env): string {
  try {
    parseDeployArgs(argv, environment);
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(2);
    return (error as CliError).message;
  }
  throw new Error(`no error for ${argv.join(' ')}`);
}

describe('deploy arguments', () => {
  it('parse each form, the deployment from --deployment before SUBAGENTS_DEPLOYMENT', () => {
    expect(parseDeployArgs(['status'], env)).toEqual({ action: 'status', deploymentName: 'prod', json: false });
    expect(parseDeployArgs(['status', '--deployment', 'canary', '--json'], env)).toEqual({
      action: 'status',
      deploymentName: 'canary',
      json: true,
    });
    expect(parseDeployArgs(['ramp', 'b2', '--percent', '25'], env)).toEqual({
      action: 'ramp',
      deploymentName: 'prod',
      buildId: 'b2',
      percent: 25,
      json: false,
    });
    expect(parseDeployArgs(['ramp', '--stop'], env)).toEqual({
      action: 'ramp-stop',
      deploymentName: 'prod',
      json: false,
    });
    expect(parseDeployArgs(['promote', 'b2', '--force'], env)).toMatchObject({
      action: 'promote',
      buildId: 'b2',
      force: true,
    });
    expect(parseDeployArgs(['promote', 'b2'], env)).toMatchObject({ force: false });
    expect(parseDeployArgs(['drain', 'b1'], env)).toMatchObject({
      action: 'drain',
      buildId: 'b1',
      wait: false,
      timeoutSeconds: defaultDrainTimeoutSeconds,
    });
    expect(parseDeployArgs(['drain', 'b1', '--wait', '--timeout', '90'], env)).toMatchObject({
      wait: true,
      timeoutSeconds: 90,
    });
  });

  it('refuse a ramp percentage outside 1..99, saying what to do at either end', () => {
    expect(usageError(['ramp', 'b2', '--percent', '0'])).toContain('deploy ramp --stop');
    expect(usageError(['ramp', 'b2', '--percent', '100'])).toContain('deploy promote BUILD');
    expect(usageError(['ramp', 'b2', '--percent', '12.5'])).toContain(
      '--percent 12.5: must be a whole number from 1 to 99',
    );
    expect(usageError(['ramp', 'b2', '--percent', 'ten'])).toContain('--percent ten: must be a whole number');
    expect(usageError(['ramp', 'b2'])).toContain('needs --percent N (1..99), or --stop');
    expect(usageError(['ramp', 'b2', '--stop'])).toContain('--stop takes no build id');
  });

  it('refuse a missing deployment, build id or command, and flags of another form', () => {
    expect(usageError(['status'], {})).toContain('Pass --deployment NAME or set SUBAGENTS_DEPLOYMENT');
    expect(usageError(['promote'])).toContain('Give the build id to promote');
    expect(usageError(['drain'])).toContain('Give the build id to drain');
    expect(usageError(['promote', 'b1', 'b2'])).toContain('takes one build id');
    expect(usageError(['rollback', 'b1'])).toContain('Unknown deploy command "rollback"');
    expect(usageError([])).toContain('usage: subagents deploy status');
    expect(usageError(['promote', 'b2', '--wait'])).toContain('--wait does not go with deploy promote');
    expect(usageError(['drain', 'b1', '--force'])).toContain('--force does not go with deploy drain');
    expect(usageError(['drain', 'b1', '--timeout', '5'])).toContain('give --wait too');
    expect(usageError(['drain', 'b1', '--wait', '--timeout', '0'])).toContain('--timeout 0: must be a positive');
  });
});

describe('deployment versions', () => {
  it('spell a version as the search attribute does, build ids with colons included', () => {
    expect(versionKey({ deploymentName: 'prod', buildId: '0.1.0+abc' })).toBe('prod:0.1.0+abc');
    expect(parseVersionKey('prod:a:b')).toEqual({ deploymentName: 'prod', buildId: 'a:b' });
    expect(parseVersionKey('prod')).toBeUndefined();
    expect(parseVersionKey(':a')).toBeUndefined();
    expect(parseVersionKey(undefined)).toBeUndefined();
  });

  it("read an agent's version from describe's versioning info, a list entry's, or nothing when unversioned", () => {
    const deploymentVersion = { deploymentName: 'prod', buildId: 'b2' };
    expect(agentVersionOf({ raw: { workflowExecutionInfo: { versioningInfo: { deploymentVersion } } } })).toEqual(
      deploymentVersion,
    );
    expect(agentVersionOf({ raw: { versioningInfo: { deploymentVersion } } })).toEqual(deploymentVersion);
    expect(agentVersionOf({ raw: { workflowExecutionInfo: { versioningInfo: null } } })).toBeUndefined();
    expect(agentVersionOf({ raw: {} })).toBeUndefined();
  });

  it('query running agents on a version, or on none within the given task queues', () => {
    expect(runningAgentsQuery({ deploymentName: 'prod', buildId: "it's" })).toBe(
      "WorkflowType = 'agentWorkflow' AND ExecutionStatus = 'Running' AND TemporalWorkerDeploymentVersion = 'prod:it\\'s'",
    );
    expect(runningAgentsQuery('none', ['q1', 'q2'])).toBe(
      "WorkflowType = 'agentWorkflow' AND ExecutionStatus = 'Running' AND TemporalWorkerDeploymentVersion IS NULL AND TaskQueue IN ('q1', 'q2')",
    );
  });
});

describe('ls --tree', () => {
  it("ends a versioned agent's line with its version, and says nothing of an unversioned one", () => {
    const node = (agentId: string): TreeNode => ({
      agentId,
      parentAgentId: 'root',
      agentType: 'reviewer',
      depth: 1,
      background: false,
      status: 'running',
      startedAtMs: 0,
    });
    const live = new Map([['child-1', 'turn 2']]);
    const versions = new Map([['child-1', 'prod:b2']]);
    expect(treeLines([node('child-1'), node('child-2')], live, 'root', false, undefined, versions)).toEqual([
      '  child-1  reviewer:   [foreground, running] turn 2 · version prod:b2',
      '  child-2  reviewer:   [foreground, running]',
    ]);
  });
});
