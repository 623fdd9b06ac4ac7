/** Permission modes (docs/architecture.md, approvals). */
export type PermissionMode = 'default' | 'acceptEdits' | 'bypassPermissions' | 'plan' | 'dontAsk' | 'bubble';
