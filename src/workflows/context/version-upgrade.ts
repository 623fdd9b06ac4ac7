import type { WorkflowDefinitionOptions } from '@temporalio/common';
import { continueAsNew, makeContinueAsNewFunc, workflowInfo } from '@temporalio/workflow';
import type { AgentResult, AgentWorkflowInput } from '../../shared/agents/agent';
import type { UpgradeNotice } from '../../shared/protocol/definitions';

type AgentWorkflowType = (input: AgentWorkflowInput) => Promise<AgentResult>;

/** The memo key marking a run as the hop onto the current version; its value is the run that asked for the hop. */
export const upgradeHopMemo = 'upgradeHopFrom';

/** Whether this run is the hop: continued from the run whose id its memo holds (a later run copies the memo, not the id). */
export function isUpgradeHop(): boolean {
  const info = workflowInfo();
  const from = info.memo?.[upgradeHopMemo];
  return typeof from === 'string' && from === info.continuedFromExecutionRunId;
}

/** Whether this run's worker is a version of a worker deployment (an unversioned worker refuses any behaviour). */
function onVersionedWorker(): boolean {
  return Boolean(workflowInfo().currentDeploymentVersion?.deploymentName);
}

/**
 * An agent run's versioning (docs/operations.md, "Upgrades"): pinned to the version it started on; the hop
 * run, which only continues as new, auto-upgrades so that the run after it starts on the current version.
 */
export function agentVersioning(): WorkflowDefinitionOptions {
  if (!onVersionedWorker()) return {};
  return { versioningBehavior: isUpgradeHop() ? 'AUTO_UPGRADE' : 'PINNED' };
}

/** Runs that never move (a task board): pinned on a versioned worker. */
export function pinnedVersioning(): WorkflowDefinitionOptions {
  return onVersionedWorker() ? { versioningBehavior: 'PINNED' } : {};
}

/** An upgrade asked of this agent (the `upgrade` signal): its next continue-as-new goes onto the current version. */
export class VersionUpgrade {
  private buildId?: string;

  /** Kept only on a versioned worker and for another build than this run's. */
  receive(notice: UpgradeNotice): void {
    const own = workflowInfo().currentDeploymentVersion;
    if (!own?.deploymentName || own.buildId === notice.buildId) return;
    this.buildId = notice.buildId;
  }

  /** The build the agent was told is current, when it should move. */
  get requested(): string | undefined {
    return this.buildId;
  }

  /** Continues as new; through the hop run when an upgrade was asked (a pinned run's successor inherits its pin). */
  continueAsNew(next: AgentWorkflowInput): Promise<never> {
    if (this.buildId === undefined) return continueAsNew<AgentWorkflowType>(next);
    return makeContinueAsNewFunc<AgentWorkflowType>({ memo: { [upgradeHopMemo]: workflowInfo().runId } })(next);
  }
}
