// `subagents demo --tour`: starts the scripted tour tree and names the commands to try (as README's "Using it").
import type { SubagentsClient, StartAgentOptions } from '../../client/client';
import { tourNames } from '../../model-server/demo-tour';
import { CliError, ExitCode } from '../exit-codes';

/** The live tree the tour leaves running: its ids, and the lead's Bash call waiting for `approve`. */
export interface TourTree {
  rootId: string;
  workerId: string;
  requestId: string;
}

/** README's "Using it" lines, with the ids as placeholders; walkthrough.test.ts checks README says exactly these. */
export const tourCommandTemplates = [
  'npx subagents watch <rootId>                    # a live tree until it ends (Ctrl-C leaves); --plain or --json for scripts',
  'npx subagents ls --tree <rootId>',
  'npx subagents steer <workerId> "look at src/activities first"',
  "npx subagents approvals <rootId>                # the lead's Bash call, waiting for you",
  'npx subagents approve <rootId> <requestId>      # it runs now; --deny refuses it',
  "npx subagents board <rootId>                    # the tree's task board as columns; --watch follows it",
  'npx subagents transcript <workerId> --jsonl     # --tree for the whole subtree, --claude-dir DIR for ccusage',
  'npx subagents stop <workerId> --reason "enough" # the worker and its subtree; the lead then finishes',
] as const;

/** The tour's lines with its ids filled in. */
export function tourCommands(tree: TourTree): string[] {
  return tourCommandTemplates.map((line) =>
    line
      .replaceAll('<rootId>', tree.rootId)
      .replaceAll('<workerId>', tree.workerId)
      .replaceAll('<requestId>', tree.requestId),
  );
}

/** Starts the tour's lead (permission mode default) and resolves once its worker runs and its Bash call waits for approval. */
export async function startTour(
  client: SubagentsClient,
  options: Omit<StartAgentOptions, 'prompt' | 'name' | 'permissionMode'>,
  timeoutMs = 60_000,
): Promise<TourTree> {
  const handle = await client.startAgent({
    maxTurns: 20,
    ...options,
    prompt: 'Take the tour: put the work on the board, start a worker, then run one command.',
    name: tourNames.root,
    permissionMode: 'default',
  });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const tree = await handle.tree();
    const worker = tree.nodes.find((node) => node.name === tourNames.worker && node.status === 'running');
    const request = tree.pendingApprovals.find((pending) => pending.tool === 'Bash' && !pending.withdrawn);
    if (worker && request) return { rootId: handle.agentId, workerId: worker.agentId, requestId: request.requestId };
    if (tree.nodes.find((node) => node.agentId === handle.agentId)?.status === 'finished') {
      throw new CliError(
        `The tour's lead ${handle.agentId} finished before its tree was up: see \`subagents transcript ${handle.agentId}\`.`,
        ExitCode.agentUnsuccessful,
      );
    }
    if (Date.now() > deadline)
      throw new CliError(
        `The tour's tree was not up after ${timeoutMs / 1000} s: is the worker polling? See \`subagents watch ${handle.agentId}\`.`,
        ExitCode.unavailable,
      );
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
