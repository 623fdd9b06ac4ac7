import type { HooksConfig } from '../policy/hooks';
import type { PermissionRules } from '../policy/permission-rules';
import type { SandboxSettings } from '../policy/sandbox';

/** What a tree takes from the settings files, loaded once by the root (docs/configuration.md, "Settings files"). */
export interface TreeSettings {
  /** The project whose `.claude/settings*.json` were read (CLAUDE_PROJECT_DIR of hooks). */
  projectDir: string;
  /** The settings files read, user first. */
  files: string[];
  /** Hooks of every file, user's first. */
  hooks?: HooksConfig;
  /** Permission rules of every file. */
  permissions?: PermissionRules;
  /** The `sandbox` keys of every file, merged (lists joined), with the `Read(...)` deny rules' paths hidden. */
  sandbox?: SandboxSettings;
  /** Bumped by each re-read a root applies; a subagent takes a pushed settings only when newer (docs/hooks.md). */
  version?: number;
  /** What was wrong in the files (each sentence names its file): shown by `subagents agents` and logged by the worker. */
  problems?: string[];
}
