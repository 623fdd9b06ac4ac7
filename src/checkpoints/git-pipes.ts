/**
 * Long-lived git processes of a store, fed one command at a time on stdin: `hash-object --stdin-paths` writes the
 * checkpoint commits, `update-ref --stdin` applies ref transactions. A checkpoint then starts three git processes
 * (add, then write-tree beside diff-index) instead of five: on a small VM each start costs ~6 ms, more than the work
 * of either command.
 * A pipe closes after a while unused, and on any failure (git exits; the next use starts a new one).
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import fs from 'node:fs/promises';
import type { Readable, Writable } from 'node:stream';
import { GitCommandError, type GitContext } from './git-command';
import { holdEventLoop } from './launcher';

/** A pipe unused this long is closed (a turn boundary comes every few seconds while an agent works). */
export const pipeIdleMs = 30_000;

interface Waiting {
  lines: number;
  received: string[];
  resolve: (lines: string[]) => void;
  reject: (error: Error) => void;
}

/** One git process answering each command written to it with a known number of lines. */
class GitPipe {
  private readonly child: ChildProcessByStdio<Writable, Readable, Readable>;
  private readonly queue: Array<{ text: string; waiting: Waiting }> = [];
  private current: Waiting | undefined;
  private buffered = '';
  private stderr = '';
  private idleTimer: NodeJS.Timeout | undefined;
  failed: Error | undefined;

  constructor(
    context: GitContext,
    private readonly args: readonly string[],
  ) {
    this.child = spawn('git', args, { cwd: context.cwd, env: context.env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.setEncoding('utf8');
    this.child.stderr.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => this.received(chunk));
    this.child.stderr.on('data', (chunk: string) => (this.stderr = (this.stderr + chunk).slice(-10_000)));
    this.child.stdin.on('error', () => {}); // git exited: reported by 'close'
    this.child.on('error', (error) => this.fail(error));
    this.child.on('close', (code) => this.fail(new GitCommandError(this.args, code, this.stderr)));
    this.child.unref();
    this.idle();
  }

  /** Writes `text` once the commands before it are answered; resolves with the next `lines` lines of output. */
  ask(text: string, lines: number): Promise<string[]> {
    if (this.failed) return Promise.reject(this.failed);
    return new Promise((resolve, reject) => {
      this.queue.push({ text, waiting: { lines, received: [], resolve, reject } });
      this.next();
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  close(): void {
    this.child.stdin.end();
  }

  private next(): void {
    if (this.current || this.failed) return;
    const item = this.queue.shift();
    if (!item) {
      this.idle();
      return;
    }
    this.current = item.waiting;
    this.busy();
    this.child.stdin.write(item.text);
  }

  private received(chunk: string): void {
    this.buffered += chunk;
    let newline: number;
    while (this.current && (newline = this.buffered.indexOf('\n')) >= 0) {
      this.current.received.push(this.buffered.slice(0, newline));
      this.buffered = this.buffered.slice(newline + 1);
      if (this.current.received.length === this.current.lines) {
        const done = this.current;
        this.current = undefined;
        done.resolve(done.received);
        this.next();
      }
    }
  }

  private fail(error: Error): void {
    if (this.failed) return;
    this.failed = error;
    clearTimeout(this.idleTimer);
    for (const waiting of [this.current, ...this.queue.map((item) => item.waiting)]) waiting?.reject(error);
    this.current = undefined;
    this.queue.length = 0;
  }

  // An answer being awaited keeps the process alive; an idle pipe neither does nor outlives its idle time.
  private busy(): void {
    clearTimeout(this.idleTimer);
    holdEventLoop([this.child.stdout], true);
  }

  private idle(): void {
    holdEventLoop([this.child.stdout, this.child.stderr, this.child.stdin], false);
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.close(), pipeIdleMs);
    this.idleTimer.unref();
  }
}

const pipes = new Map<string, GitPipe>();

function pipeFor(context: GitContext, args: readonly string[]): GitPipe {
  const key = JSON.stringify([args, context.cwd, context.env]);
  let pipe = pipes.get(key);
  // A failed or closed pipe is replaced at its next use.
  if (!pipe || pipe.failed) {
    pipe = new GitPipe(context, args);
    pipes.set(key, pipe);
  }
  return pipe;
}

/** Writes a commit object from its text (`tree …\nauthor …`) into the store of `context`; returns its id. */
export async function writeCommitObject(context: GitContext, text: string, scratchFile: string): Promise<string> {
  const args = ['hash-object', '-w', '-t', 'commit', '--no-filters', '--stdin-paths'];
  await fs.writeFile(scratchFile, text);
  try {
    const [id = ''] = await pipeFor(context, args).ask(`${scratchFile}\n`, 1);
    return id.trim();
  } finally {
    await fs.rm(scratchFile, { force: true });
  }
}

/**
 * Applies `commands` (`update-ref --stdin` lines: update, delete…) as one transaction in the store of `context`.
 * Rejects with GitCommandError (git's stderr) when the transaction fails; nothing of it is applied then.
 */
export async function applyRefTransaction(context: GitContext, commands: string): Promise<void> {
  const args = ['update-ref', '--stdin'];
  const answers = await pipeFor(context, args).ask(`start\n${commands}commit\n`, 2);
  if (answers[0] !== 'start: ok' || answers[1] !== 'commit: ok')
    throw new GitCommandError(args, null, `unexpected answer: ${answers.join(' / ')}`);
}

/** Closes every pipe (tests, and a process that is about to exit). */
export function closeGitPipes(): void {
  for (const pipe of pipes.values()) pipe.close();
  pipes.clear();
}

/** The pids of the open pipes (benchmarks read their CPU time). */
export function gitPipePids(): number[] {
  return [...pipes.values()].flatMap((pipe) => (pipe.pid === undefined ? [] : [pipe.pid]));
}
