// Inputs and answers of the script-source activities (src/activities/scripts): prepare, list saved, load a journal.
import type { CheckedScript, ScriptOrigin, ScriptResumeSource } from './script-run';

/** Where a script comes from: its source, a saved script's name, or a file (scriptPath wins, as in Claude Code). */
export interface PrepareScriptInput {
  script?: string;
  name?: string;
  scriptPath?: string;
  /** The caller's working directory: `scriptPath` is resolved against it; saved scripts are looked up from it upward. */
  cwd: string;
  /** The workspace root: the upward search stops there, and a `scriptPath` must be inside it (or the user's workflows). */
  workspaceRoot: string;
}

/** A script ready to run, or why not (an error text of the vocabulary, saying what to do). */
export type PrepareScriptResult = { ok: true; script: CheckedScript } | { ok: false; error: string };

/** Where saved scripts are looked up. */
export interface ListSavedScriptsInput {
  cwd: string;
  workspaceRoot: string;
}

/** A saved script as the Workflow tool's description lists it. */
export interface SavedScriptSummary {
  name: string;
  description: string;
  whenToUse?: string;
  origin: Extract<ScriptOrigin, 'project' | 'user'>;
  /** The file it is read from. */
  path: string;
}

/** Saved scripts by name (the closest project directory wins, then the user's), and the files that were skipped. */
export interface SavedScriptList {
  scripts: SavedScriptSummary[];
  /** One line per skipped or shadowed file: which and why. */
  warnings: string[];
}

/** The run whose journal a resume reuses. */
export interface LoadScriptJournalInput {
  runId: string;
}

/** The journal of a finished run, or why it cannot be resumed. */
export type LoadScriptJournalResult = { ok: true; source: ScriptResumeSource } | { ok: false; error: string };
