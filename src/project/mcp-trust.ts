// A checkout's `.mcp.json` servers start only once the user trusted that exact spec (docs/security.md).
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { McpServerSpec } from '../shared/tools/mcp';
import { loadMcpConfig, type McpConfig } from './mcp-config';

/** Why a configured server does not start. */
export interface UntrustedMcpServer {
  name: string;
  /** The `.mcp.json` file defining it. */
  file: string;
  state: 'untrusted' | 'disabled';
  /** What the user runs to trust it (untrusted ones). */
  trustCommand: string;
}

/** `.mcp.json` servers split into those that may start and those that may not. */
export interface TrustedMcpConfig extends McpConfig {
  untrusted: UntrustedMcpServer[];
}

/** The trust settings of one project, merged from the files that may set them. */
export interface McpTrustSettings {
  enableAll: boolean;
  enabled: string[];
  disabled: string[];
}

/** `<home>/.claude/subagents-mcp-trust.json`. */
export function mcpTrustStorePath(homeDir: string): string {
  return path.join(homeDir, '.claude', 'subagents-mcp-trust.json');
}

/** sha256 of the spec with its keys sorted: any change of command, args, env, cwd, url or headers changes it. */
export function mcpSpecDigest(spec: McpServerSpec): string {
  const canonical = (value: unknown): unknown =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(
          Object.keys(value)
            .sort()
            .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
        )
      : Array.isArray(value)
        ? value.map(canonical)
        : value;
  return createHash('sha256')
    .update(JSON.stringify(canonical(spec)))
    .digest('hex');
}

/** The decision for one server (pure): disabled wins, then settings, then the stored digest of the same spec. */
export function mcpTrustDecision(
  name: string,
  digest: string,
  storedDigest: string | undefined,
  settings: McpTrustSettings,
): 'trusted' | 'untrusted' | 'disabled' {
  if (settings.disabled.includes(name)) return 'disabled';
  if (settings.enableAll || settings.enabled.includes(name)) return 'trusted';
  return storedDigest === digest ? 'trusted' : 'untrusted';
}

/** The shell command that trusts `names` of the project at `projectDir`. */
export function mcpTrustCommand(projectDir: string, names: readonly string[]): string {
  const quote = (text: string) => (/^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`);
  return ['subagents', 'mcp', 'trust', '--dir', quote(projectDir), ...names.map(quote)].join(' ');
}

const storeSchema = z.object({ projects: z.record(z.string(), z.record(z.string(), z.string())) });
type TrustStore = z.infer<typeof storeSchema>;

/** The store; a missing or unreadable one trusts nothing. */
export async function readMcpTrustStore(homeDir: string): Promise<TrustStore> {
  const text = await fs.readFile(mcpTrustStorePath(homeDir), 'utf8').catch(() => undefined);
  if (text === undefined) return { projects: {} };
  try {
    const parsed = storeSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : { projects: {} };
  } catch {
    return { projects: {} };
  }
}

/** Changes the store for one project (a new file renamed over the old one, readable by the user only). */
export async function updateMcpTrustStore(
  homeDir: string,
  projectDir: string,
  change: (trusted: Record<string, string>) => void,
): Promise<void> {
  const store = await readMcpTrustStore(homeDir);
  const trusted = { ...store.projects[projectDir] };
  change(trusted);
  if (Object.keys(trusted).length === 0) delete store.projects[projectDir];
  else store.projects[projectDir] = trusted;
  const file = mcpTrustStorePath(homeDir);
  await fs.mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  await fs.writeFile(temporary, `${JSON.stringify(store, null, 2)}\n`, { mode: 0o600 });
  await fs.rename(temporary, file);
}

const settingsFields = z.looseObject({
  enableAllProjectMcpServers: z.boolean().optional(),
  enabledMcpjsonServers: z.array(z.string()).optional(),
  disabledMcpjsonServers: z.array(z.string()).optional(),
});

async function readTrustFields(file: string): Promise<z.infer<typeof settingsFields>> {
  try {
    const parsed = settingsFields.safeParse(JSON.parse(await fs.readFile(file, 'utf8')));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

/** Settings for the project at `projectDir`: enabling from `~/.claude/settings.json` and `.claude/settings.local.json`; disabling from those and `.claude/settings.json`. */
export async function readMcpTrustSettings(projectDir: string, homeDir: string): Promise<McpTrustSettings> {
  const [user, local, committed] = await Promise.all([
    readTrustFields(path.join(homeDir, '.claude', 'settings.json')),
    readTrustFields(path.join(projectDir, '.claude', 'settings.local.json')),
    readTrustFields(path.join(projectDir, '.claude', 'settings.json')),
  ]);
  const enabling = [user, local];
  return {
    enableAll: enabling.some((fields) => fields.enableAllProjectMcpServers === true),
    enabled: enabling.flatMap((fields) => fields.enabledMcpjsonServers ?? []),
    disabled: [user, local, committed].flatMap((fields) => fields.disabledMcpjsonServers ?? []),
  };
}

/** Keeps of `config` the servers that may start; the others are listed with why and how to trust them. */
export async function applyMcpTrust(config: McpConfig, homeDir: string): Promise<TrustedMcpConfig> {
  const store = await readMcpTrustStore(homeDir);
  const settingsByProject = new Map<string, Promise<McpTrustSettings>>();
  const result: TrustedMcpConfig = { ...config, servers: {}, sources: {}, untrusted: [] };
  for (const [name, spec] of Object.entries(config.servers)) {
    const file = config.sources[name] ?? '';
    const projectDir = path.dirname(file);
    if (!settingsByProject.has(projectDir))
      settingsByProject.set(projectDir, readMcpTrustSettings(projectDir, homeDir));
    const settings = await settingsByProject.get(projectDir)!;
    const state = mcpTrustDecision(name, mcpSpecDigest(spec), store.projects[projectDir]?.[name], settings);
    if (state === 'trusted') {
      result.servers[name] = spec;
      result.sources[name] = file;
    } else {
      result.untrusted.push({ name, file, state, trustCommand: mcpTrustCommand(projectDir, [name]) });
    }
  }
  return result;
}

/** The `.mcp.json` servers for `cwd` that may start (docs/security.md). */
export async function loadTrustedMcpConfig(cwd: string, homeDir: string): Promise<TrustedMcpConfig> {
  return applyMcpTrust(await loadMcpConfig(cwd), homeDir);
}

/** One line saying why a server's tools are missing. */
export function untrustedServerText(server: UntrustedMcpServer): string {
  return server.state === 'disabled'
    ? `MCP server "${server.name}" of ${server.file} is disabled by disabledMcpjsonServers in settings; it is not started`
    : `MCP server "${server.name}" of ${server.file} is not trusted for this project (or its configuration changed since it was), so it is not started; review it, then run: ${server.trustCommand}`;
}

/** The error for a definition that requires servers left untrusted (those it defines inline itself are fine), or undefined. */
export function untrustedRequiredProblem(
  definition: { name: string; requiredMcpServers?: string[]; mcpServers?: { name: string; spec?: unknown }[] },
  untrusted: readonly UntrustedMcpServer[],
): string | undefined {
  const inline = new Set((definition.mcpServers ?? []).filter((entry) => entry.spec).map((entry) => entry.name));
  const blocking = untrusted.filter(
    (server) => definition.requiredMcpServers?.includes(server.name) && !inline.has(server.name),
  );
  if (blocking.length === 0) return undefined;
  return `Agent type "${definition.name}" requires MCP server(s) that may not start here: ${blocking.map(untrustedServerText).join('; ')}.`;
}

const reported = new Set<string>();

/** Says once per process, server and reason why an untrusted server's tools are absent. */
export function reportUntrustedOnce(untrusted: readonly UntrustedMcpServer[], log: (line: string) => void): void {
  for (const server of untrusted) {
    const key = JSON.stringify([server.file, server.name, server.state]);
    if (reported.has(key)) continue;
    reported.add(key);
    log(untrustedServerText(server));
  }
}
