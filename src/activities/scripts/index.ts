// The script-source activities (docs/workflows.md): prepare a script, list saved ones, load a run's journal.
import type { Client } from '@temporalio/client';
import { loadScriptJournal } from '../../client/load-script-journal';
import { listSavedScripts } from '../../project/scripts/saved-scripts';
import type {
  ListSavedScriptsInput,
  LoadScriptJournalInput,
  LoadScriptJournalResult,
  PrepareScriptInput,
  PrepareScriptResult,
  SavedScriptList,
} from '../../shared/scripts/script-sources';
import { prepareScript } from './prepare-script';

/** Creates the script activities; `homeDir` holds the user's `.claude/workflows` (tests pass a temp dir). */
export function createScriptActivities(dependencies: { temporalClient: Client; homeDir: string }) {
  const { temporalClient, homeDir } = dependencies;
  return {
    /** The script a run executes, read (for a name or path) and checked; refusals say what to do. */
    prepareScript: async (input: PrepareScriptInput): Promise<PrepareScriptResult> => prepareScript(input, homeDir),
    /** Saved scripts for the Workflow tool's description, and the files skipped. */
    listSavedScripts: async (input: ListSavedScriptsInput): Promise<SavedScriptList> =>
      listSavedScripts({ ...input, homeDir }),
    /** A finished run's journal for `resumeFromRunId`. */
    loadScriptJournal: async ({ runId }: LoadScriptJournalInput): Promise<LoadScriptJournalResult> =>
      loadScriptJournal(temporalClient, runId),
  };
}
