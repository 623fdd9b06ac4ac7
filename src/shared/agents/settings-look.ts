// The settings look's wire types: a root's turn boundary asks, the model call or reloadSettings answers (docs/hooks.md).
import type { TreeSettings } from './tree-settings';
import type { ConfigChangeSource } from '../policy/hooks';

/** Input of `reloadSettings`: the agent's cwd, and the stamps its last look saw (none: load whatever is there). */
export interface SettingsReloadInput {
  cwd: string;
  known?: Record<string, string>;
}

/** A look carried by a turn's model call: the cwd and the hash of the stamps the last look saw (none: load). */
export interface SettingsLookRequest {
  cwd: string;
  knownHash?: string;
}

/** Stamps of the settings files now; with `reloaded` when they differ from `known`. The result is the history's record. */
export interface SettingsReloadResult {
  /** Settings file → `mtime:ctime:size`, or `absent`; also which project the files belong to. */
  stamps: Record<string, string>;
  /** Each settings file's ConfigChange `source`. */
  sources: Record<string, ConfigChangeSource>;
  /** The stamps' hash, for the next look by the model call. */
  hash?: string;
  reloaded?: {
    settings: TreeSettings;
    /** Sentences for files that exist but could not be read or parsed: the agent then keeps its old settings. */
    invalid: string[];
  };
}
