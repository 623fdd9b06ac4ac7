/** `subagents transcript <agentId> [--tree] [--jsonl] [--out FILE]`: an agent's (or a tree's) transcript from its workflow history. */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { WorkflowNotFoundError } from '@temporalio/client';
import { NoWorkerError, readAgentTranscript, readTreeTranscripts } from '../../transcript/export';
import { formatTranscripts } from '../../transcript/human-view';
import { toJsonl } from '../../transcript/records';
import { CliError, ExitCode } from '../exit-codes';
import { connect } from '../session';

const usage = 'transcript <agentId> [--tree] [--jsonl] [--out FILE]';

/** Parsed arguments of `subagents transcript`. */
export interface TranscriptArgs {
  agentId: string;
  tree: boolean;
  jsonl: boolean;
  out?: string;
}

/** Parses the command line; throws CliError (exit 2) saying what to fix. */
export function parseTranscriptArgs(argv: string[]): TranscriptArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: { tree: { type: 'boolean', default: false }, jsonl: { type: 'boolean', default: false }, out: { type: 'string' } },
    });
  } catch (error) {
    throw new CliError(`${(error as Error).message}\nusage: subagents ${usage}`);
  }
  const [agentId, ...extra] = parsed.positionals;
  if (!agentId || extra.length > 0) throw new CliError(`Give exactly one agentId (see \`subagents ls --all\`).\nusage: subagents ${usage}`);
  return { agentId, tree: parsed.values.tree, jsonl: parsed.values.jsonl, ...(parsed.values.out ? { out: parsed.values.out } : {}) };
}


/** Prints (or writes to --out) the transcript; exit 3 when no worker answers, 4 for an unknown agent. */
export async function transcriptCommand(argv: string[]): Promise<number> {
  const args = parseTranscriptArgs(argv);
  const client = await connect();
  let text: string;
  let agents: number;
  try {
    const transcripts = args.tree ? await readTreeTranscripts(client.temporal, args.agentId) : [await readAgentTranscript(client.temporal, args.agentId)];
    agents = transcripts.length;
    text = args.jsonl ? toJsonl(transcripts) : `${formatTranscripts(transcripts)}\n`;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw new CliError(`No agent "${args.agentId}".`, ExitCode.notFound);
    if (error instanceof NoWorkerError) throw new CliError(error.message, ExitCode.unavailable);
    throw error;
  } finally {
    await client.close();
  }
  if (!args.out) {
    process.stdout.write(text);
    return ExitCode.ok;
  }
  await mkdir(path.dirname(path.resolve(args.out)), { recursive: true });
  await writeFile(args.out, text);
  console.error(`wrote the transcript of ${agents} agent(s) to ${args.out}`);
  return ExitCode.ok;
}
