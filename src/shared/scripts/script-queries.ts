import { defineQuery } from '@temporalio/workflow';
import type { ScriptJournalEntry, ScriptRunSnapshot } from './script-run';

/** A script run's phases, agents, logs and result (docs/workflows.md). */
export const scriptRunQuery = defineQuery<ScriptRunSnapshot>('scriptRun');
/** A script run's finished `agent()` calls in call order: what a resume reuses. */
export const scriptJournalQuery = defineQuery<ScriptJournalEntry[]>('scriptJournal');
