// `transcript_path` of hook input (docs/hooks.md): each agent's transcript as a Claude Code JSONL file, kept current cheaply.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { log } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { transcriptQuery } from '../../shared/protocol/definitions';
import type { RunTranscriptSlice } from '../../shared/protocol/run-transcript';
import type { HookRunInput } from '../../shared/policy/hook-outcome';
import { projectDirName } from '../../transcript/claude-layout';
import { readAgentTranscript } from '../../transcript/export';
import { messageRecords, transcriptSession } from '../../transcript/records';
import { transcriptUuid } from '../../transcript/uuid';

/** Where the hook transcripts live: `${SUBAGENTS_HOME:-~/.subagents}/transcripts` — never the user's ~/.claude, which ccusage counts. */
export function hookTranscriptsHome(env: NodeJS.ProcessEnv = process.env, homeDir = os.homedir()): string {
  const home = env.SUBAGENTS_HOME && env.SUBAGENTS_HOME !== '' ? env.SUBAGENTS_HOME : path.join(homeDir, '.subagents');
  return path.join(path.resolve(home), 'transcripts');
}

/** Whose transcript a hook gets: the agent running it, in its run, in its tree. */
export interface HookTranscriptTarget {
  /** The tree's root (the session). */
  rootAgentId: string;
  /** The agent whose hook runs (its workflow id). */
  agentId: string;
  /** Its current run: a new run (continue-as-new, resume) makes the written prefix unknown. */
  runId: string;
  /** The project whose settings configured the hooks: names the layout's project directory. */
  projectDir: string;
}

const maxSegmentChars = 200;

// A file name stays one short segment: long names keep a readable head and a digest of the whole.
function capped(segment: string): string {
  if (segment.length <= maxSegmentChars) return segment;
  const digest = createHash('sha256').update(segment).digest('hex').slice(0, 16);
  return `${segment.slice(0, maxSegmentChars - 17)}-${digest}`;
}

// As the exporter names subagent files (claude-layout.ts): only letters, digits, '.', '_' and '-'.
const fileSafe = (agentId: string): string => agentId.replace(/[^a-zA-Z0-9._-]/g, '_');

/** The file in Claude Code's layout under `home`: `projects/<project>/<session>.jsonl`, a subagent's under `<session>/subagents/`. */
export function hookTranscriptPath(home: string, target: Omit<HookTranscriptTarget, 'runId'>): string {
  const { sessionId } = transcriptSession(target.rootAgentId);
  const project = path.join(path.resolve(home), 'projects', capped(projectDirName(path.resolve(target.projectDir))));
  const file =
    target.agentId === target.rootAgentId
      ? path.join(project, `${sessionId}.jsonl`)
      : path.join(project, sessionId, 'subagents', `agent-${capped(fileSafe(target.agentId))}.jsonl`);
  // Every segment is sanitised above; this says so where it matters.
  if (!file.startsWith(`${project}${path.sep}`)) throw new Error(`hook transcript path escapes ${project}`);
  return file;
}

/** What was written for one agent: enough to append the next messages of the same run. */
interface Written {
  runId: string;
  /** Messages of the run's log written so far. */
  logCount: number;
  /** The log's compactions, copies and rewinds when written: a new one changes what the file shows. */
  shape: string;
  /** The next message's index in the joined transcript (its record uuid), and the last record's uuid. */
  nextIndex: number;
  lastUuid: string | null;
  cwd: string;
  gitBranch: string;
}

/** Options of {@link HookTranscripts}. */
export interface HookTranscriptOptions {
  /** The transcripts' directory ({@link hookTranscriptsHome}). */
  home: string;
  /** How long the agent's workflow may take to answer (default 5 s); past it the file stays as last written. */
  queryTimeoutMs?: number;
  /** Agents remembered at once (default 1,000); a forgotten one is rewritten in full at its next hook. */
  maxAgents?: number;
  /** For the worker's log. */
  warn?: (message: string) => void;
}

const shapeOf = (page: RunTranscriptSlice): string =>
  `${page.boundaries.length}/${page.copies?.length ?? 0}/${page.rewinds?.length ?? 0}/${page.carriedCount}`;

// Past any log's end: the answer carries the log's size and shape, no messages.
const probeFrom = 2 ** 31;

/**
 * Keeps each agent's hook transcript current on this worker: the first hook of an agent (or of a new run, or after a
 * compaction or rewind changed the log's shape) writes the whole transcript from its history; later hooks append only
 * the messages the run added since, from the `transcript` query.
 */
export class HookTranscripts {
  private readonly written = new Map<string, Written>();
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly client: Client | undefined,
    private readonly options: HookTranscriptOptions,
  ) {}

  private warn(message: string): void {
    if (this.options.warn) return this.options.warn(message);
    try {
      log.warn(message);
    } catch {
      // Outside an activity (direct calls in tests): nothing to log to.
    }
  }

  /**
   * Brings the target's file up to date and returns its path. Without a client, or when the workflow does not answer
   * in time, the file stays as last written (created empty if never written) and its path is still returned;
   * undefined only when the file cannot be created.
   */
  async update(target: HookTranscriptTarget): Promise<string | undefined> {
    const file = hookTranscriptPath(this.options.home, target);
    // Hooks of one event run side by side: one agent's file is written by one update at a time.
    const previous = this.queues.get(target.agentId) ?? Promise.resolve();
    const next = previous.then(() => this.updateNow(target, file));
    const settled = next.catch(() => undefined);
    this.queues.set(target.agentId, settled);
    void settled.then(() => {
      if (this.queues.get(target.agentId) === settled) this.queues.delete(target.agentId);
    });
    return next;
  }

  private async updateNow(target: HookTranscriptTarget, file: string): Promise<string | undefined> {
    try {
      await fs.mkdir(path.dirname(file), { recursive: true });
      if (this.client) await this.refresh(this.client, target, file);
    } catch (error) {
      this.warn(`hook transcript of ${target.agentId}: ${(error as Error).message}; left as last written`);
    }
    try {
      // An empty file when nothing could be written: Claude Code always names one.
      await fs.appendFile(file, '');
      return file;
    } catch {
      return undefined;
    }
  }

  private async refresh(client: Client, target: HookTranscriptTarget, file: string): Promise<void> {
    const deadline = Date.now() + (this.options.queryTimeoutMs ?? 5_000);
    const handle = client.workflow.getHandle(target.agentId, target.runId);
    const query = (from: number) => client.withDeadline(deadline, () => handle.query(transcriptQuery, { from }));
    const known = this.written.get(target.agentId);
    const onDisk = await fs.stat(file).then(
      (stat) => stat.size,
      () => -1,
    );
    if (known && known.runId === target.runId && onDisk >= 0) {
      const page = await query(known.logCount);
      if (shapeOf(page) === known.shape) {
        const messages = [...page.messages];
        while (known.logCount + messages.length < page.total) {
          const more = await query(known.logCount + messages.length);
          if (more.messages.length === 0 || shapeOf(more) !== known.shape) break;
          messages.push(...more.messages);
        }
        await this.append(target, file, known, messages);
        return;
      }
    }
    // The log's size first: a message added meanwhile is then written again by the next update rather than lost.
    const probe = await query(probeFrom);
    const transcript = await readAgentTranscript(client, target.agentId, {
      queryTimeoutMs: Math.max(1, deadline - Date.now()),
    });
    const records = messageRecords(transcript, transcriptSession(target.rootAgentId));
    const temporary = `${file}.${process.pid}.tmp`;
    await fs.writeFile(temporary, records.map((record) => `${JSON.stringify(record)}\n`).join(''));
    await fs.rename(temporary, file);
    const last = records[records.length - 1];
    this.remember(target.agentId, {
      runId: target.runId,
      logCount: probe.total,
      shape: shapeOf(probe),
      nextIndex: transcript.messages.length,
      lastUuid: last?.uuid ?? null,
      cwd: transcript.meta.cwd ?? '',
      gitBranch: transcript.meta.gitBranch,
    });
  }

  private async append(
    target: HookTranscriptTarget,
    file: string,
    known: Written,
    messages: RunTranscriptSlice['messages'],
  ): Promise<void> {
    if (messages.length === 0) return;
    const { sessionId, version } = transcriptSession(target.rootAgentId);
    const timestamp = new Date().toISOString();
    let parentUuid = known.lastUuid;
    let index = known.nextIndex;
    const lines: string[] = [];
    for (const message of messages) {
      const uuid = transcriptUuid(target.agentId, index++);
      // Times and usage come with the full rewrite from the history; an appended message carries when it was written.
      lines.push(
        `${JSON.stringify({
          parentUuid,
          isSidechain: target.agentId !== target.rootAgentId,
          userType: 'external',
          cwd: known.cwd,
          sessionId,
          version,
          gitBranch: known.gitBranch,
          agentId: target.agentId,
          type: message.role,
          message: { role: message.role, content: message.content },
          uuid,
          timestamp,
        })}\n`,
      );
      parentUuid = uuid;
    }
    await fs.appendFile(file, lines.join(''));
    this.remember(target.agentId, {
      ...known,
      logCount: known.logCount + messages.length,
      nextIndex: index,
      lastUuid: parentUuid,
    });
  }

  private remember(agentId: string, written: Written): void {
    this.written.delete(agentId);
    this.written.set(agentId, written);
    const max = this.options.maxAgents ?? 1_000;
    for (const oldest of this.written.keys()) {
      if (this.written.size <= max) break;
      this.written.delete(oldest);
    }
  }

  /** `input` with `transcript_path` in its payload (unchanged when no file can be named); the agent is the activity's workflow. */
  async withTranscriptPath(
    input: HookRunInput,
    execution: { workflowId: string; runId: string } | undefined,
  ): Promise<HookRunInput> {
    if (!execution) return input;
    const sessionId = input.payload.session_id;
    const rootAgentId = typeof sessionId === 'string' && sessionId !== '' ? sessionId : execution.workflowId;
    let transcriptPath: string | undefined;
    try {
      transcriptPath = await this.update({
        rootAgentId,
        agentId: execution.workflowId,
        runId: execution.runId,
        projectDir: input.projectDir,
      });
    } catch (error) {
      this.warn(`hook transcript: ${(error as Error).message}`);
    }
    return transcriptPath ? { ...input, payload: { ...input.payload, transcript_path: transcriptPath } } : input;
  }
}
