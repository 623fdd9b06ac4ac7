/**
 * The OS sandbox's settings (docs/security.md, "The sandbox"): the `sandbox` key of Claude Code's
 * settings files, as this runtime reads it. Carried in a tree's settings and in every tool call's
 * context, so the worker that runs a command knows the tree's rules.
 */

/** Claude Code's `sandbox` settings shape, merged over every settings file of a tree. */
export interface SandboxSettings {
  /** A sandboxed Bash call runs without an approval unless a rule asks or denies (Claude Code's `autoAllowBashIfSandboxed`, default true). */
  autoAllowBashIfSandboxed?: boolean;
  filesystem?: {
    /** Also writable, besides the agent's workspace and its private temporary directory. */
    allowWrite?: string[];
    /** Never writable, even inside the workspace. */
    denyWrite?: string[];
    /** Hidden from commands (`Read(...)` deny rules of the settings are added here). */
    denyRead?: string[];
    /** Also visible (read-only) to Bash, besides the system directories. */
    allowRead?: string[];
  };
  network?: {
    /** Hosts a command may reach through the filtering proxy (`example.com`, `*.example.com`). */
    allowedDomains?: string[];
    /** Hosts never reached, whatever allows them. */
    deniedDomains?: string[];
  };
}

/** How strictly a sandboxed process is held: a model's command, or a configured hook or MCP server. */
export type SandboxProfile = 'command' | 'service';
