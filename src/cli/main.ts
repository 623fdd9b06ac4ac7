import { agentCommands } from './commands/agents';
import { agentsListCommand } from './commands/agents-list';
import { boardCommand, boardUsage } from './commands/board';
import { budgetCommand, budgetUsage } from './commands/budget';
import { controlCommands } from './commands/control';
import { codecServerCommand } from './commands/codec-server';
import { transcriptCommand } from './commands/transcript';
import { watchCommand } from './commands/watch';
import { uiCommand } from './commands/ui';
import { PayloadKeyConfigError } from '../codec/errors';
import { worktreesCommand } from './commands/worktrees';
import { demoCommand } from './commands/demo';
import { devCommand, ensureCliCommand } from './commands/dev';
import { mcpCommand } from './commands/mcp';
import { modelServerCommand } from './commands/model-server';
import { workerCommand } from './commands/worker';
import { isGrpcServiceError, NamespaceNotFoundError, ServiceError, WorkflowNotFoundError } from '@temporalio/client';
import { describeTemporalTarget } from './temporal-target';
import { SecretFileError } from '../secrets';
import { ShellOptionsError } from '../activities/tools/shell-options';
import { WorkflowStacksError } from '../shared/workflow-stacks';
import { clusterCommand, clusterHelp } from './commands/cluster';
import { CliError, ExitCode } from './exit-codes';
import { closest, flagsOf } from './suggest';

type Command = (argv: string[]) => Promise<number>;

const commands: Record<string, { run: Command; help: string }> = {
  start: {
    run: agentCommands.start,
    help: 'start "prompt" [--type T] [--model M] [--cwd DIR] [--name N] [--max-turns N] [--permission-mode M] [--interactive [--idle-timeout S]] [--board NAME] [--stall-timeout S] [--stall-stop] [--max-tokens N] [--max-cost-usd X | --max-budget-usd X] [--max-tool-calls N] [--max-time 30m] [--max-agents N] [--on-budget stop|finish|ask] [--follow [--plain]] [--json]',
  },
  status: { run: agentCommands.status, help: 'status <agentId> [--json]' },
  ls: { run: agentCommands.ls, help: 'ls [--all] [--json] | ls --tree <rootId> [--json]' },
  interrupt: { run: controlCommands.interrupt, help: 'interrupt <agentId> [--reason R]   (cancels the current turn; the agent stays)' },
  steer: { run: controlCommands.steer, help: 'steer <agentId> "guidance"   (delivered at the next turn boundary)' },
  approvals: { run: controlCommands.approvals, help: 'approvals <rootId> [--json]' },
  approve: { run: controlCommands.approve, help: 'approve <rootId> <requestId> [--deny] [--always] [--reason R]' },
  'pause-spawning': { run: controlCommands['pause-spawning'], help: 'pause-spawning <rootId> [--resume]' },
  budget: { run: budgetCommand, help: `${budgetUsage}   (the tree's ledger by agent; --set raises or lowers caps of the running tree)` },
  board: { run: boardCommand, help: boardUsage.replaceAll(' | board ', '\n  subagents board ') },
  watch: { run: watchCommand, help: 'watch <rootId> [--plain] [--json] [--interval MS] [--dir DIR]   (a live tree of the running agents; --json: one event per change)' },
  transcript: { run: transcriptCommand, help: 'transcript <agentId> [--tree] [--jsonl] [--out FILE] [--claude-dir DIR]' },
  'codec-server': {
    run: (argv) => codecServerCommand(argv),
    help: 'codec-server [--port 8888] [--host 127.0.0.1] [--ui-origin http://127.0.0.1:8233]   (Temporal UI remote codec)',
  },
  stop: { run: agentCommands.stop, help: 'stop <agentId> [--reason R]   (the agent and its whole subtree)' },
  send: { run: agentCommands.send, help: 'send <agentId|name> "text" [--root ROOT_ID] [--follow]   (queues for a running agent; resumes a finished one)' },
  resume: {
    run: agentCommands.resume,
    help: 'resume <agentId> "prompt" [--force] [--follow] [--json]   (a new run of a finished agent, in its tree; --force resumes a stopped one)',
  },
  compact: { run: controlCommands.compact, help: 'compact <agentId> [--instructions TEXT] [--json]   (summarise its conversation at the next turn boundary)' },
  agents: { run: (argv) => agentsListCommand(argv), help: 'agents [--dir DIR] [--json]   (agent types: built-in, ~/.claude/agents, .claude/agents)' },
  mcp: { run: (argv) => mcpCommand(argv), help: 'mcp list [--dir DIR] [--json] | mcp tools <server> [--dir DIR] [--json] | mcp trust|untrust [--dir DIR] NAME...|--all   (configured MCP servers; reachable? trusted?)' },
  ui: { run: (argv) => uiCommand(argv), help: 'ui <agentId> [--run RUN_ID] [--namespace NS]   (prints the Temporal UI URL of the agent)' },
  worktrees: { run: worktreesCommand, help: 'worktrees [--dir DIR] [--prune] [--json]   (kept subagent worktrees)' },
  worker: { run: workerCommand, help: 'worker [--tools Bash,Write --task-queue QUEUE]   (runs a worker configured from the environment; with --tools, a tool worker)' },
  dev: { run: devCommand, help: 'dev [--port 7233] [--ui-port 8233] [--db FILE]   (starts or reuses the Temporal dev server)' },
  cluster: { run: clusterCommand, help: `${clusterHelp}   (PostgreSQL + Temporal server + workers on this machine)` },
  'ensure-cli': { run: ensureCliCommand, help: 'ensure-cli   (finds or builds the pinned Temporal CLI)' },
  'model-server': { run: modelServerCommand, help: 'model-server [--port N] [--script FILE | --demo | --echo]' },
  demo: { run: demoCommand, help: 'demo [--exit] [--prompt TEXT]   (dev server + worker + local model, one agent tree)' },
};

function usage(): string {
  return ['usage: subagents <command> [options]', '', ...Object.values(commands).map((command) => `  subagents ${command.help}`), '', 'See docs/cli.md.'].join('\n');
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
    return await command.run(rest);
  } catch (error) {
    if (error instanceof CliError) {
      console.error(`subagents ${name}: ${error.message}`);
      return error.exitCode;
    }
    if (error instanceof PayloadKeyConfigError || error instanceof SecretFileError || error instanceof ShellOptionsError || error instanceof WorkflowStacksError) {
      console.error(`subagents ${name}: ${error.message}`);
      return ExitCode.usage;
    }
    if (isArgumentError(error)) {
      const unknown = /^Unknown option '(--[^']+)'/.exec(error.message)?.[1];
      const near = unknown ? closest(unknown, flagsOf(command.help)) : undefined;
      // Node's own text goes on about positional arguments after '--': the option and the likely one say more.
      const message = unknown ? `Unknown option '${unknown}'.${near ? ` Did you mean ${near}?` : ''}` : error.message;
      console.error(`subagents ${name}: ${message}\nusage: subagents ${command.help}`);
      return ExitCode.usage;
    }
    if (error instanceof WorkflowNotFoundError) {
      // One wording for an unknown agent, whichever command met it.
      console.error(`subagents ${name}: ${error.workflowId ? `No agent "${error.workflowId}".` : error.message}`);
      return ExitCode.notFound;
    }
    if (error instanceof ServiceError || error instanceof NamespaceNotFoundError || isGrpcServiceError(error)) {
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
}

/** node:util parseArgs refusing an option or argument: a usage error. */
function isArgumentError(error: unknown): error is Error {
  const code = (error as { code?: unknown } | undefined)?.code;
  return error instanceof Error && typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
}
