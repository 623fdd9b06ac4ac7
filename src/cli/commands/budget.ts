import { parseArgs } from 'node:util';
import { hasCaps, type BudgetSnapshot } from '../../shared/budget/budget';
import { parseCapAssignments } from '../budget-args';
import { budgetLines, capsText } from '../budget-view';
import { budgetUsage } from '../command-usage';
import { CliError, ExitCode } from '../exit-codes';
import { treeBudget } from '../agent-queries';
import { withAgentSession } from '../temporal-session';

/** Whether the caps of `agentId`'s subtree would hold: some account on its chain to the root started with caps (only then do its calls reserve). */
function chainHasCaps(snapshot: BudgetSnapshot, agentId: string): boolean {
  const byId = new Map(snapshot.accounts.map((account) => [account.agentId, account]));
  let account = byId.get(agentId);
  for (let steps = 0; account && steps < 64; steps++) {
    if (hasCaps(account.caps)) return true;
    account = account.parentAgentId !== undefined ? byId.get(account.parentAgentId) : undefined;
  }
  return false;
}

/** `subagents budget <agentId>`: the tree's ledger by agent; `--set` changes caps and prints those in force. */
export async function budgetCommand(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      set: { type: 'string', multiple: true },
      subtree: { type: 'string' },
      by: { type: 'string' },
    },
  });
  if (positionals.length > 1) throw new CliError(`budget takes one agentId: subagents ${budgetUsage}`);
  if (values.subtree !== undefined && !values.set?.length)
    throw new CliError('--subtree says whose caps --set changes; give --set NAME=VALUE too.');
  // Checked before connecting: a bad cap never reaches the tree.
  const caps = values.set?.length ? parseCapAssignments(values.set) : undefined;
  return withAgentSession(
    positionals[0],
    async ({ temporal }, agentId) => {
      const snapshot = await treeBudget(temporal, agentId);
      if (!caps) {
        console.log(values.json ? JSON.stringify(snapshot) : budgetLines(snapshot).join('\n'));
        return ExitCode.ok;
      }
      const target = values.subtree ?? snapshot.rootAgentId;
      if (!snapshot.accounts.some((account) => account.agentId === target)) {
        throw new CliError(
          `No agent "${target}" in the ledger of the tree ${snapshot.rootAgentId} (see: subagents budget ${snapshot.rootAgentId}).`,
          ExitCode.notFound,
        );
      }
      if (!chainHasCaps(snapshot, target)) {
        throw new CliError(
          `The tree ${snapshot.rootAgentId} started without caps${target === snapshot.rootAgentId ? '' : ` over ${target}`}: its model calls are not reserved, so caps set now would not hold. ` +
            'Start a tree with caps (subagents start --max-tokens N ...) to change them later.',
          ExitCode.agentUnsuccessful,
        );
      }
      // Only a change needs SubagentsClient (and what it loads); reading the ledger starts faster without it.
      const { BudgetChangeRefused, SubagentsClient } = await import('../../client/client');
      let inForce;
      try {
        inForce = await new SubagentsClient(temporal).getAgent(agentId).setBudget(caps, {
          by: values.by ?? process.env.USER ?? 'user',
          ...(values.subtree !== undefined ? { agentId: values.subtree } : {}),
        });
      } catch (error) {
        if (error instanceof BudgetChangeRefused) throw new CliError(error.message, ExitCode.agentUnsuccessful);
        throw error;
      }
      console.log(
        values.json
          ? JSON.stringify({ agentId: target, caps: inForce })
          : `caps of ${target === snapshot.rootAgentId ? `the tree ${target}` : `the subtree of ${target}`} now: ${capsText(inForce)}`,
      );
      return ExitCode.ok;
    },
    'change the budget of',
  );
}
