import { boardUsage, budgetUsage, clusterUsage, deployUsage, runUsage, workflowsUsage } from './command-usage';
import { CliError, ExitCode } from './exit-codes';
import { closest, flagsOf } from './suggest';

type Command = (argv: string[]) => Promise<number>;

// Command modules load only when run, so `--help`, usage errors and did-you-mean answer from this table alone.
const agents = async () => (await import('./commands/agents')).agentCommands;
const control = async () => (await import('./commands/control')).controlCommands;
const inspect = async () => (await import('./commands/inspect')).inspectCommands;
const rewindCmds = async () => (await import('./commands/rewind')).rewindCommands;

const commands: Record<string, { load: () => Promise<Command>; help: string }> = {
  start: {
    load: async () => (await agents()).start,
    help: 'start "prompt" [--type T] [--model M] [--cwd DIR] [--name N] [--max-turns N] [--permission-mode M] [--interactive [--idle-timeout S]] [--board NAME] [--stall-timeout S] [--stall-stop] [--max-tokens N] [--max-cost-usd X | --max-budget-usd X] [--max-tool-calls N] [--max-time 30m] [--max-agents N] [--on-budget stop|finish|ask] [--follow [--plain]] [--json]',
  },
  run: {
    load: async () => (await import('./commands/script-runs')).scriptRunCommands.run,
    help: `${runUsage}   (checks and starts an orchestration script; a bare NAME is .claude/workflows/NAME.js)`,
  },
  workflows: {
    load: async () => (await import('./commands/workflows')).workflowsCommand,
    help: `${workflowsUsage}   (script runs: phases, agents done/total, tokens, time; with RUNID its agents, logs and result)`,
  },
  status: { load: async () => (await inspect()).status, help: 'status <agentId> [--json]' },
  ls: { load: async () => (await inspect()).ls, help: 'ls [--all] [--json] | ls --tree <rootId> [--json]' },
  interrupt: {
    load: async () => (await control()).interrupt,
    help: 'interrupt <agentId> [--reason R]   (cancels the current turn; the agent stays)',
  },
  steer: {
    load: async () => (await control()).steer,
    help: 'steer <agentId> "guidance"   (delivered at the next turn boundary)',
  },
  fork: {
    load: async () => (await rewindCmds()).fork,
    help: 'fork <agentId> --turn N [--prompt TEXT] [--type T] [--cwd DIR | --worktree] [--root] [--follow] [--json]   (a new agent from the first N turns; the source runs on)',
  },
  rewind: {
    load: async () => (await rewindCmds()).rewind,
    help: 'rewind <agentId> --turn N [--files] [--prompt TEXT] [--json]   (the agent goes back to turn N; --files restores its workspace)',
  },
  diff: {
    load: async () => (await rewindCmds()).diff,
    help: 'diff <agentA> <agentB> [--json]   (where two branches diverge: turns, tool calls, files)',
  },
  turns: {
    load: async () => (await rewindCmds()).turns,
    help: 'turns <agentId> [--json]   (its turn boundaries and file checkpoints)',
  },
  approvals: { load: async () => (await control()).approvals, help: 'approvals <rootId> [--json]' },
  approve: {
    load: async () => (await control()).approve,
    help: 'approve <rootId> <requestId> [--deny] [--always] [--reason R] [--input JSON]',
  },
  'pause-spawning': {
    load: async () => (await control())['pause-spawning'],
    help: 'pause-spawning <rootId> [--resume]',
  },
  budget: {
    load: async () => (await import('./commands/budget')).budgetCommand,
    help: `${budgetUsage}   (the tree's ledger by agent; --set raises or lowers caps of the running tree)`,
  },
  board: {
    load: async () => (await import('./commands/board')).boardCommand,
    help: boardUsage.replaceAll(' | board ', '\n  subagents board '),
  },
  watch: {
    load: async () => (await import('./commands/watch')).watchCommand,
    help: "watch <rootId|runId> [--plain] [--json] [--interval MS] [--dir DIR]   (a live tree of the running agents, or a script run's phases and agents; --json: one event per change)",
  },
  transcript: {
    load: async () => (await import('./commands/transcript')).transcriptCommand,
    help: 'transcript <agentId> [--tree] [--jsonl] [--out FILE] [--claude-dir DIR]',
  },
  'codec-server': {
    load: async () => (await import('./commands/codec-server')).codecServerCommand,
    help: 'codec-server [--port 8888] [--host 127.0.0.1] [--ui-origin http://127.0.0.1:8233]   (Temporal UI remote codec)',
  },
  stop: {
    load: async () => (await agents()).stop,
    help: 'stop <agentId> [--reason R]   (the agent and its whole subtree)',
  },
  send: {
    load: async () => (await agents()).send,
    help: 'send <agentId|name> "text" [--root ROOT_ID] [--follow]   (queues for a running agent; resumes a finished one)',
  },
  resume: {
    load: async () => (await agents()).resume,
    help: 'resume <agentId> "prompt" [--force] [--follow] [--json]   (a new run of a finished agent, in its tree; --force resumes a stopped one)',
  },
  compact: {
    load: async () => (await control()).compact,
    help: 'compact <agentId> [--instructions TEXT] [--json]   (summarise its conversation at the next turn boundary)',
  },
  agents: {
    load: async () => (await import('./commands/agents-list')).agentsListCommand,
    help: 'agents [--dir DIR] [--json]   (agent types: built-in, ~/.claude/agents, .claude/agents)',
  },
  mcp: {
    load: async () => (await import('./commands/mcp')).mcpCommand,
    help: 'mcp list [--dir DIR] [--json] | mcp tools <server> [--dir DIR] [--json] | mcp trust|untrust [--dir DIR] NAME...|--all   (configured MCP servers; reachable? trusted?)',
  },
  ui: {
    load: async () => (await import('./commands/ui')).uiCommand,
    help: 'ui <agentId> [--run RUN_ID] [--namespace NS]   (prints the Temporal UI URL of the agent)',
  },
  checkpoints: {
    load: async () => (await import('./commands/checkpoints')).checkpointsCommand,
    help: 'checkpoints [--dir DIR] [--drop AGENT_ID]... [--prune [--older-than DAYS]] [--json]   (workspace checkpoints kept in a repository)',
  },
  worktrees: {
    load: async () => (await import('./commands/worktrees')).worktreesCommand,
    help: 'worktrees [--dir DIR] [--prune] [--json]   (kept subagent worktrees)',
  },
  worker: {
    load: async () => (await import('./commands/worker')).workerCommand,
    help: 'worker [--tools Bash,Write --task-queue QUEUE]   (runs a worker configured from the environment; with --tools, a tool worker)',
  },
  deploy: {
    load: async () => (await import('./commands/deploy')).deployCommand,
    help: `${deployUsage.replaceAll(' | deploy ', '\n  subagents deploy ')}   (worker versions: what new agents start on, rolling out, draining)`,
  },
  dev: {
    load: async () => (await import('./commands/dev')).devCommand,
    help: 'dev [--port 7233] [--ui-port 8233] [--db FILE]   (starts or reuses the Temporal dev server)',
  },
  cluster: {
    load: async () => (await import('./commands/cluster')).clusterCommand,
    help: `${clusterUsage}   (PostgreSQL + Temporal server + workers on this machine)`,
  },
  'ensure-cli': {
    load: async () => (await import('./commands/dev')).ensureCliCommand,
    help: 'ensure-cli   (finds or builds the pinned Temporal CLI)',
  },
  'model-server': {
    load: async () => (await import('./commands/model-server')).modelServerCommand,
    help: 'model-server [--port N] [--script FILE | --demo | --echo]',
  },
  demo: {
    load: async () => (await import('./commands/demo')).demoCommand,
    help: 'demo [--exit] [--tour] [--prompt TEXT] [--port N] [--ui-port N] [--model-port N]   (dev server + worker + scripted local model, one agent tree; --tour: a tree that stays up to try the commands on; busy default ports are replaced by free ones)',
  },
};

function usage(): string {
  return [
    'usage: subagents <command> [options]',
    '',
    ...Object.values(commands).map((command) => `  subagents ${command.help}`),
    '',
    'See docs/cli.md.',
  ].join('\n');
}

/** Runs one CLI command and returns its exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(usage());
    return name ? ExitCode.ok : ExitCode.usage;
  }
  const command = commands[name];
  if (!command) {
    const near = closest(name, Object.keys(commands));
    console.error(`Unknown command "${name}".${near ? ` Did you mean "${near}"?` : ''}\n\n${usage()}`);
    return ExitCode.usage;
  }
  const beforeSeparator = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
  if (beforeSeparator.includes('--help') || beforeSeparator.includes('-h')) {
    console.log(`usage: subagents ${command.help}\n\nSee docs/cli.md.`);
    return ExitCode.ok;
  }
  try {
    const run = await command.load();
    return await run(rest);
  } catch (error) {
    return await reportFailure(name, command.help, error);
  }
}

/** Prints what went wrong in one line (a usage error, an unknown agent, an unreachable server) and returns the exit code. */
async function reportFailure(name: string, help: string, error: unknown): Promise<number> {
  if (error instanceof CliError) {
    console.error(`subagents ${name}: ${error.message}`);
    return error.exitCode;
  }
  if (isArgumentError(error)) {
    const unknown = /^Unknown option '(--[^']+)'/.exec(error.message)?.[1];
    const near = unknown ? closest(unknown, flagsOf(help)) : undefined;
    // Node's own text goes on about positional arguments after '--': the option and the likely one say more.
    const message = unknown ? `Unknown option '${unknown}'.${near ? ` Did you mean ${near}?` : ''}` : error.message;
    console.error(`subagents ${name}: ${message}\nusage: subagents ${help}`);
    return ExitCode.usage;
  }
  // Loaded only on a failure, so that a command's start does not pay for them (the command that threw has most of them loaded).
  const [
    { PayloadKeyConfigError },
    { SecretFileError },
    { ShellOptionsError },
    { WorkflowStacksError },
    temporal,
    { describeTemporalTarget },
  ] = await Promise.all([
    import('../codec/errors'),
    import('../config/secrets'),
    import('../config/shell-options'),
    import('../shared/protocol/workflow-stacks'),
    import('@temporalio/client'),
    import('./temporal-target'),
  ]);
  if (
    error instanceof PayloadKeyConfigError ||
    error instanceof SecretFileError ||
    error instanceof ShellOptionsError ||
    error instanceof WorkflowStacksError
  ) {
    console.error(`subagents ${name}: ${error.message}`);
    return ExitCode.usage;
  }
  if (error instanceof temporal.WorkflowNotFoundError) {
    // One wording for an unknown agent, whichever command met it.
    console.error(`subagents ${name}: ${error.workflowId ? `No agent "${error.workflowId}".` : error.message}`);
    return ExitCode.notFound;
  }
  if (
    error instanceof temporal.ServiceError ||
    error instanceof temporal.NamespaceNotFoundError ||
    temporal.isGrpcServiceError(error)
  ) {
    // One line: what failed, where, and what to check — not a stack trace.
    console.error(
      `subagents ${name}: Temporal at ${describeTemporalTarget()} failed the call: ${error.message.split('\n')[0]}. ` +
        'Check that the server runs (subagents dev), TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE, and that a worker polls the task queue (subagents worker).',
    );
    return ExitCode.unavailable;
  }
  console.error(`subagents ${name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return 1;
}

/** node:util parseArgs refusing an option or argument: a usage error. */
function isArgumentError(error: unknown): error is Error {
  const code = (error as { code?: unknown } | undefined)?.code;
  return error instanceof Error && typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
}
