// Usage lines the command modules use in their errors too; here so `--help` reads them without loading those modules.

/** `subagents board` usage, one line per form joined by " | ". */
export const boardUsage =
  'board <rootId|name> [--json] [--watch] | board add <rootId|name> "subject" [--description D] [--blocked-by 1,2] | ' +
  'board move <rootId|name> <taskId> <pending|in_progress|blocked|completed|deleted> [--owner NAME] [--note TEXT] | board release <rootId|name> <taskId> [--reason R]';

/** `subagents budget` usage. */
export const budgetUsage = 'budget <agentId> [--json] [--set NAME=VALUE ...] [--subtree AGENT_ID] [--by WHO]';

/** `subagents cluster` usage. */
export const clusterUsage =
  'cluster up [--workers N] [--model-url URL] | cluster down [--purge] | cluster status [--json]';

/** `subagents deploy` usage. */
export const deployUsage =
  'deploy status [--deployment NAME] [--json] | deploy ramp BUILD --percent N | deploy ramp --stop | ' +
  'deploy promote BUILD [--force] | deploy drain BUILD [--wait] [--timeout SECONDS]';

/** `subagents run` usage. */
export const runUsage =
  'run SCRIPT.js|NAME [--args JSON] [--follow [--plain]] [--json] [--name NAME] [--max-concurrent N] [--max-tokens N] [--resume-from RUNID] [--id ID] [--cwd DIR] [--model M]';

/** `subagents workflows` usage. */
export const workflowsUsage = 'workflows [RUNID] [--running] [--limit N] [--json]';
