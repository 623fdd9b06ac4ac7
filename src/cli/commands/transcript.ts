/** `subagents transcript <agentId> [--tree] [--jsonl] [--out FILE] [--claude-dir DIR]`: an agent's (or a tree's) transcript from its workflow history. */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { WorkflowNotFoundError } from '@temporalio/client';
import { NoWorkerError, readAgentTranscript, readTreeTranscripts } from '../../transcript/export';
import { formatTranscripts } from '../../transcript/human-view';
import { listingInRepository } from '../../project/ignore-files';
import { writeClaudeCodeLayout, type WrittenLayout } from '../../transcript/claude-layout';
import { toJsonl } from '../../transcript/records';
import type { AgentTranscript } from '../../transcript/transcript-types';
import { CliError, ExitCode } from '../exit-codes';
import { connect } from '../session';

const usage = 'transcript <agentId> [--tree] [--jsonl] [--out FILE] [--claude-dir DIR]';

/** Parsed arguments of `subagents transcript`. */
export interface TranscriptArgs {
  agentId: string;
  tree: boolean;
  jsonl: boolean;
  out?: string;
  /** Write Claude Code's layout (session file + one file per subagent) under this directory. */
  claudeDir?: string;
}

/** Parses the command line; throws CliError (exit 2) saying what to fix. */
export function parseTranscriptArgs(argv: string[]): TranscriptArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: {
        tree: { type: 'boolean', default: false },
        jsonl: { type: 'boolean', default: false },
        out: { type: 'string' },
        'claude-dir': { type: 'string' },
      },
    });
  } catch (error) {
    throw new CliError(`${(error as Error).message}\nusage: subagents ${usage}`);
  }
  const [agentId, ...extra] = parsed.positionals;
  if (!agentId || extra.length > 0)
    throw new CliError(`Give exactly one agentId (see \`subagents ls --all\`).\nusage: subagents ${usage}`);
  const claudeDir = parsed.values['claude-dir'];
  if (claudeDir !== undefined && (claudeDir.trim() === '' || parsed.values.out !== undefined || parsed.values.jsonl)) {
    throw new CliError(
      `--claude-dir DIR writes its own files: give a directory, without --out or --jsonl.\nusage: subagents ${usage}`,
    );
  }
  return {
    agentId,
    tree: parsed.values.tree,
    jsonl: parsed.values.jsonl,
    ...(parsed.values.out ? { out: parsed.values.out } : {}),
    ...(claudeDir ? { claudeDir } : {}),
  };
}

/** Prints (or writes to --out) the transcript; exit 3 when no worker answers, 4 for an unknown agent. */
export async function transcriptCommand(argv: string[]): Promise<number> {
  const args = parseTranscriptArgs(argv);
  const client = await connect();
  let transcripts: AgentTranscript[];
  try {
    transcripts = args.tree
      ? await readTreeTranscripts(client.temporal, args.agentId)
      : [await readAgentTranscript(client.temporal, args.agentId)];
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw new CliError(`No agent "${args.agentId}".`, ExitCode.notFound);
    if (error instanceof NoWorkerError) throw new CliError(error.message, ExitCode.unavailable);
    throw error;
  } finally {
    await client.close();
  }
  const agents = transcripts.length;
  if (args.claudeDir) {
    const written = await writeClaudeCodeLayout(args.claudeDir, transcripts);
    console.error(
      `wrote the transcripts of ${agents} agent(s) in Claude Code's layout: ${written.files.filter((file) => file.endsWith('.jsonl')).length} JSONL file(s) under ${path.join(args.claudeDir, 'projects')}`,
    );
    const warning = await visibilityWarning(written);
    if (warning) console.error(warning);
    return ExitCode.ok;
  }
  const text = args.jsonl ? toJsonl(transcripts) : `${formatTranscripts(transcripts)}\n`;
  if (!args.out) {
    process.stdout.write(text);
    return ExitCode.ok;
  }
  await mkdir(path.dirname(path.resolve(args.out)), { recursive: true });
  await writeFile(args.out, text);
  console.error(`wrote the transcript of ${agents} agent(s) to ${args.out}`);
  return ExitCode.ok;
}

/** A warning when the export landed, unmarked, where agents' Glob and Grep in that repository would find it. */
export async function visibilityWarning(written: WrittenLayout): Promise<string | undefined> {
  const first = written.files[0];
  if (written.marked !== undefined || first === undefined) return undefined;
  const listing = await listingInRepository(first);
  if (!listing?.listed) return undefined;
  return (
    `warning: ${path.dirname(first)} existed already and is not ignored in the repository ${listing.root}, so agents' Glob and Grep there will find these transcripts. ` +
    'Give a new directory (the command marks the directories it creates as ignored) or one outside the repository, such as ~/.claude.'
  );
}
