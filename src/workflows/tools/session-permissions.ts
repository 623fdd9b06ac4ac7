import type { PermissionMode } from '../../shared/agents/permission-mode';
import type { PermissionRules } from '../../shared/policy/permission-rules';
import {
  applyPermissionUpdates,
  type PermissionUpdate,
  type SessionPermissions,
} from '../../shared/policy/permission-updates';

/** What PermissionRequest hooks granted an agent for the rest of its run (docs/hooks.md): carried across continue-as-new. */
export class HookPermissions {
  private current: SessionPermissions;

  constructor(
    carried: SessionPermissions | undefined,
    private readonly startMode: PermissionMode,
  ) {
    this.current = carried ?? {};
  }

  /** Rules added by hooks, checked beside the settings files' rules. */
  get rules(): PermissionRules | undefined {
    return this.current.rules;
  }

  /** The agent's permission mode now: the one a hook set, else its start mode. */
  get mode(): PermissionMode {
    return this.current.mode ?? this.startMode;
  }

  /** Applies a hook's updates up to the mode `ceiling`; returns a notice for each one refused. */
  apply(updates: readonly PermissionUpdate[], ceiling: PermissionMode): string[] {
    const applied = applyPermissionUpdates(this.current, updates, ceiling);
    this.current = applied.permissions;
    return applied.notices;
  }

  /** What continue-as-new carries (absent: nothing granted). */
  carry(): { sessionPermissions?: SessionPermissions } {
    return this.current.rules || this.current.mode ? { sessionPermissions: this.current } : {};
  }
}
