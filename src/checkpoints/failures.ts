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

/** A git command failed: another git process holding a lock is worth a retry, anything else is not. */
export function gitFailure(what: string, error: unknown): ApplicationFailure {
  if (error instanceof ApplicationFailure) return error;
  const stderr = error instanceof GitCommandError ? error.stderr.trim() : '';
  const detail = error instanceof Error ? (stderr === '' ? error.message : stderr) : String(error);
  const message = errorText(ErrorType.CheckpointFailed, `${what}: ${detail}`);
  if (isLockContention(stderr)) {
    return ApplicationFailure.retryable(
      `${message} (another git process is using the index or refs; will retry)`,
      ErrorType.CheckpointFailed,
    );
  }
  return ApplicationFailure.nonRetryable(message, ErrorType.CheckpointFailed);
}
