import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';

/** Where recorded histories live; the replay test replays every file here. */
export const historiesDir = path.join(import.meta.dirname, '..', 'fixtures', 'histories');

/**
 * Saves a finished workflow's history for the replay corpus when RECORD_HISTORIES=1
 * (`npm run histories:record`). Normal test runs leave the committed corpus untouched. Without a
 * runId the latest run is saved.
 */
export async function recordHistory(client: Client, workflowId: string, name: string, runId?: string): Promise<void> {
  if (process.env.RECORD_HISTORIES !== '1') return;
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  mkdirSync(historiesDir, { recursive: true });
  writeFileSync(path.join(historiesDir, `${name}.json`), JSON.stringify(history));
}
