/** Grep's search as an rg child process: its output streamed, rg stopped as soon as enough is collected. */
import { ErrorType } from '../../shared/protocol/errors';
import type { LiveToolDetails } from '../../shared/protocol/live-activity';
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { toolLimits } from '../../shared/tools/tool-definitions';
import { ContentCollector, contentLine, type FileFinding, type GrepFindings, type GrepRequest } from './grep-findings';
import { parseContentRest, RipgrepRecordReader, type RipgrepRecord } from './grep-output';
import { ripgrepExcludedGlobs, ripgrepWalkArguments } from './ripgrep';
import type { ToolEnv } from './tool-env';
import { ToolCancelled, ToolRefusal } from './tool-error';

/** Where and over what rg searches. */
export interface RipgrepTarget {
  /** Directory rg runs in. */
  cwd: string;
  /** What it searches, relative to cwd: `.` or `./<file name>`. */
  target: string;
  /** `--glob` patterns from the model's glob input. */
  globs: readonly string[];
  /** File extensions of the model's type input. */
  extensions: readonly string[] | undefined;
  /** A path as the model sees it, from an absolute one. */
  show: (absolute: string) => string;
}

/** Bytes of rg's error output kept for the message. */
const maxStderrBytes = 4096;

/** rg's arguments for a request; the pattern is one `--regexp=` argument, so it can never be read as an option. */
export function ripgrepArguments(
  request: GrepRequest,
  target: Pick<RipgrepTarget, 'target' | 'globs' | 'extensions'>,
): string[] {
  const args = [...ripgrepWalkArguments, '--color=never', '--with-filename'];
  for (const glob of target.globs) args.push('--glob', glob);
  args.push(...ripgrepExcludedGlobs);
  if (target.extensions) {
    for (const extension of target.extensions) args.push('--type-add', `grepinput:*.${extension}`);
    args.push('--type', 'grepinput');
  }
  if (request.ignoreCase) args.push('--ignore-case');
  if (request.multiline) args.push('--multiline', '--multiline-dotall');
  switch (request.mode) {
    case 'files_with_matches':
      args.push('--files-with-matches');
      break;
    case 'count':
      args.push('--count');
      break;
    case 'content':
      // Path order, so the first head_limit lines are the same on every run; one thread then, which 2 cores barely miss.
      args.push('--line-number', '--sort=path', `--max-columns=${toolLimits.maxLineChars}`, '--max-columns-preview');
      if (request.before > 0) args.push(`--before-context=${request.before}`);
      if (request.after > 0) args.push(`--after-context=${request.after}`);
      break;
  }
  args.push(`--regexp=${request.pattern}`, '--', target.target);
  return args;
}

/** Runs rg; memory is bounded by the cap in content mode and by the number of matching files otherwise. */
export async function searchWithRipgrep(
  ripgrep: string,
  request: GrepRequest,
  target: RipgrepTarget,
  env: ToolEnv,
): Promise<GrepFindings> {
  if (env.signal.aborted) throw new ToolCancelled();
  const collector = new ContentCollector(request.cap);
  const matched: { absolute: string; count: number }[] = [];
  const shownPaths = new Map<string, string>();
  const show = (relative: string): string => {
    let shown = shownPaths.get(relative);
    if (shown === undefined) {
      shownPaths.clear(); // content arrives file by file: one entry is enough
      shown = target.show(path.resolve(target.cwd, relative));
      shownPaths.set(relative, shown);
    }
    return shown;
  };
  // Returns false to stop rg.
  const accept = (record: RipgrepRecord): boolean => {
    if (record.kind === 'separator') {
      collector.separator();
      return true;
    }
    if (request.mode !== 'content') {
      matched.push({
        absolute: path.resolve(target.cwd, record.path),
        count: request.mode === 'count' ? Number.parseInt(record.rest, 10) || 0 : 1,
      });
      return true;
    }
    const line = parseContentRest(record.rest);
    if (!line) return true;
    return collector.add(contentLine(show(record.path), line.lineNumber, line.isMatch, line.text, request.lineNumbers));
  };

  await runRipgrep(ripgrep, ripgrepArguments(request, target), target.cwd, request, accept, env);
  const files: FileFinding[] = [];
  if (request.mode === 'files_with_matches') {
    // Newest first needs every file's time; stat in small batches so a huge result does not open thousands of handles.
    for (let start = 0; start < matched.length; start += 64) {
      if (env.signal.aborted) throw new ToolCancelled();
      const batch = matched.slice(start, start + 64);
      const times = await Promise.all(
        batch.map((file) =>
          fs.stat(file.absolute).then(
            (stat) => stat.mtimeMs,
            () => 0,
          ),
        ),
      );
      batch.forEach((file, index) =>
        files.push({ shown: target.show(file.absolute), mtimeMs: times[index]!, count: file.count }),
      );
    }
  } else {
    for (const file of matched) files.push({ shown: target.show(file.absolute), mtimeMs: 0, count: file.count });
  }
  return { files, lines: collector.lines, truncated: collector.truncated, skippedLarge: 0 };
}

function runRipgrep(
  ripgrep: string,
  args: string[],
  cwd: string,
  request: GrepRequest,
  accept: (record: RipgrepRecord) => boolean,
  env: ToolEnv,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const child = spawn(ripgrep, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], signal: env.signal });
    const reader = new RipgrepRecordReader(request.mode === 'files_with_matches');
    const stderr: Buffer[] = [];
    let stderrBytes = 0;
    let stoppedEarly = false;
    const heartbeat = setInterval(
      () => env.heartbeat({ kind: 'tool', tool: 'Grep' } satisfies LiveToolDetails),
      toolLimits.heartbeatIntervalMs,
    );
    child.stdout.on('data', (chunk: Buffer) => {
      if (stoppedEarly) return;
      for (const record of reader.push(chunk)) {
        if (accept(record)) continue;
        stoppedEarly = true;
        child.stdout.destroy();
        child.kill();
        return;
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderrBytes >= maxStderrBytes) return;
      stderr.push(chunk.subarray(0, maxStderrBytes - stderrBytes));
      stderrBytes += Math.min(chunk.length, maxStderrBytes - stderrBytes);
    });
    child.on('error', (error) => {
      clearInterval(heartbeat);
      reject(env.signal.aborted ? new ToolCancelled() : error);
    });
    child.on('close', (code) => {
      clearInterval(heartbeat);
      if (env.signal.aborted) return reject(new ToolCancelled());
      if (stoppedEarly || code === 0 || code === 1) return resolve();
      const message = Buffer.concat(stderr).toString('utf8').trim();
      // 2 with nothing said: some files could not be read (--no-messages), the rest is valid.
      if (code === 2 && message === '') return resolve();
      reject(ripgrepFailure(request.pattern, message, code));
    });
  });
}

/** rg's fatal errors are about the model's input: its regex, glob or type. */
function ripgrepFailure(pattern: string, message: string, code: number | null): Error {
  if (/regex/i.test(message)) {
    return new ToolRefusal(
      ErrorType.InvalidPattern,
      `${JSON.stringify(pattern)} is not valid in ripgrep's regex syntax (Rust regex; no look-around or backreferences). ` +
        `ripgrep said: ${message}\n` +
        (/multiline/.test(message)
          ? 'In Grep, set multiline: true to match across lines.'
          : 'Escape characters such as ( ) [ ] { } . * + ? | \\ with a backslash to match them literally.'),
    );
  }
  if (message !== '') return new ToolRefusal(ErrorType.InvalidToolInput, `ripgrep refused the search: ${message}`);
  return new Error(`rg exited with code ${code}`);
}
