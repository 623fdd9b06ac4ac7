import { parseArgs } from 'node:util';
import { agentVersion, versionKey } from '../../client/deployments';
import { agentStatus, treeBudget } from '../agent-queries';
import { budgetOfCappedTree, statusBudgetJson, statusBudgetLines } from '../budget-status';
import { ExitCode } from '../exit-codes';
import { formatResult, formatStatus } from '../format';
import { connectTemporal, withAgentSession } from '../temporal-session';
import { lsTree } from './tree';

// The read-only agent commands, on a plain Temporal client: they load no agent definitions, yaml or zod (bench:cli).

async function status(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false } },
  });
  return withAgentSession(positionals[0], async ({ temporal }, agentId) => {
    // A capped tree's ledger (asked of its root) adds the spending against the caps; other trees print as before.
    const [snapshot, budget, version] = await Promise.all([
      agentStatus(temporal, agentId),
      budgetOfCappedTree(() => treeBudget(temporal, agentId)),
      agentVersion(temporal, agentId),
    ]);
    if (values.json) {
      console.log(
        JSON.stringify({
          ...snapshot,
          ...(budget ? { budget: statusBudgetJson(budget, agentId) } : {}),
          ...(version ? { deploymentVersion: version } : {}),
        }),
      );
      return ExitCode.ok;
    }
    const budgetLines = budget ? statusBudgetLines(budget, agentId, !snapshot.result, Date.now()) : [];
    // The worker version it runs on (docs/operations.md, "Upgrades"); nothing for an agent on unversioned workers.
    const versionLines = version ? [`version ${versionKey(version)}`] : [];
    console.log(
      snapshot.result
        ? formatResult(snapshot.result, [...versionLines, ...budgetLines])
        : [formatStatus(snapshot), ...versionLines, ...budgetLines].join('\n'),
    );
    return ExitCode.ok;
  });
}

async function ls(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      json: { type: 'boolean', default: false },
      all: { type: 'boolean', default: false },
      tree: { type: 'string' },
    },
  });
  if (values.tree) return lsTree(values.tree, values.json);
  const session = await connectTemporal();
  try {
    const query = `WorkflowType = 'agentWorkflow'${values.all ? '' : " AND ExecutionStatus = 'Running'"}`;
    const rows: Record<string, unknown>[] = [];
    for await (const execution of session.temporal.workflow.list({ query })) {
      const attributes = execution.typedSearchAttributes;
      rows.push({
        agentId: execution.workflowId,
        status: execution.status.name,
        agentType: attributes.getAll().find((pair) => pair.key.name === 'AgentType')?.value,
        parentAgentId: attributes.getAll().find((pair) => pair.key.name === 'ParentAgentId')?.value,
        startTime: execution.startTime.toISOString(),
      });
      if (rows.length >= 200) break;
    }
    if (values.json) console.log(JSON.stringify(rows));
    else if (rows.length === 0)
      console.log(values.all ? 'No agents.' : 'No running agents (use --all for finished ones).');
    else
      for (const row of rows) console.log(`${row.agentId}\t${row.agentType ?? '?'}\t${row.status}\t${row.startTime}`);
    return ExitCode.ok;
  } finally {
    await session.close();
  }
}

/** `status` and `ls`: what runs and how it is doing. */
export const inspectCommands = { status, ls };
