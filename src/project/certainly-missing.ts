import { statSync } from 'node:fs';

/** Whether a path is certainly absent, told without building an error for each probe (docs/operations.md). */
export function certainlyMissing(file: string): boolean {
  try {
    return statSync(file, { throwIfNoEntry: false }) === undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOTDIR';
  }
}
