/** The ApplicationFailures of the checkpoint store. */
import { ApplicationFailure } from '@temporalio/common';
import { ErrorType, errorText, type ErrorTypeName } from '../shared/protocol/errors';
import { GitCommandError } from './git-command';

/** A failure retrying cannot fix. */
export function checkpointFailure(type: ErrorTypeName, detail: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(errorText(type, detail), type);
}

/** The directory is missing or not a directory. */
export function notADirectory(what: string, directory: string): ApplicationFailure {
  return checkpointFailure(ErrorType.NotADirectory, `${what} ${directory} is not a directory.`);
}

function isLockContention(stderr: string): boolean {
  return /\.lock'?: File exists|Unable to create '[^']*\.lock'|could not lock|cannot lock ref/i.test(stderr);
}

/** git's own words for a failure (its stderr), or the error's message. */
export function gitErrorText(error: unknown): string {
  const stderr = error instanceof GitCommandError ? error.stderr.trim() : '';
  if (stderr !== '') return stderr;
  return error instanceof Error ? error.message : String(error);
}

/** A git command failed: another git process holding a lock is worth a retry, anything else is not. */
export function gitFailure(what: string, error: unknown): ApplicationFailure {
  if (error instanceof ApplicationFailure) return error;
  const message = errorText(ErrorType.CheckpointFailed, `${what}: ${gitErrorText(error)}`);
  if (error instanceof GitCommandError && isLockContention(error.stderr)) {
    return ApplicationFailure.retryable(
      `${message} (another git process is using the index or refs; will retry)`,
      ErrorType.CheckpointFailed,
    );
  }
  return ApplicationFailure.nonRetryable(message, ErrorType.CheckpointFailed);
}
