/** The ApplicationFailures of the worktree activities. */
import { ApplicationFailure } from '@temporalio/common';
import { ErrorType, errorText, type ErrorTypeName } from '../shared/protocol/errors';
import { gitErrorText, isLockContention } from './git';

/** A failure retrying cannot fix. */
export function worktreeFailure(type: ErrorTypeName, detail: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(errorText(type, detail), type);
}

/** The cwd is not inside a working tree of a git repository. */
export function notAGitRepository(cwd: string): ApplicationFailure {
  return worktreeFailure(
    ErrorType.NotAGitRepository,
    `${cwd} is not inside a git repository; worktree isolation needs one. Run without isolation or use cwd.`,
  );
}

/** A git command failed: lock contention with another git process is worth a retry, anything else is not. */
export function gitFailure(type: ErrorTypeName, what: string, error: unknown): ApplicationFailure {
  const message = errorText(type, `${what}: ${gitErrorText(error)}`);
  if (isLockContention(error)) {
    return ApplicationFailure.retryable(
      `${message} (another git process is using the repository; will retry)`,
      ErrorType.WorktreeBusy,
    );
  }
  return ApplicationFailure.nonRetryable(message, type);
}
