// `.mcp.json` server specs, `${VAR}` expanded only at connect time so secrets stay out of history (docs/tools.md, MCP).
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { McpServerSpec } from '../shared/tools/mcp';
import { certainlyMissing } from './certainly-missing';

const stringMap = z.record(z.string(), z.string());

const stdioSchema = z.object({
  type: z.literal('stdio').optional(),
  command: z.string({ error: '"command" must be a string' }).trim().min(1, { error: '"command" must not be empty' }),
  args: z.array(z.string(), { error: '"args" must be a list of strings' }).optional(),
  env: stringMap.optional(),
  cwd: z.string().optional(),
});

const remoteSchema = z.object({
  type: z.enum(['http', 'sse']),
  url: z.string({ error: '"url" must be a string' }).url({ error: '"url" must be an absolute URL' }),
  headers: stringMap.optional(),
});

/** Server types Claude Code knows that this runtime does not run. */
const unsupportedTypes = ['ws', 'sse-ide', 'ws-ide', 'sdk', 'claudeai-proxy'];

/** Parses one server spec; the message says what is wrong with it. */
export function parseServerSpec(value: unknown): { spec: McpServerSpec } | { error: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { error: 'a server must be an object with "command" (stdio) or "type" and "url"' };
  const type = (value as { type?: unknown }).type;
  if (typeof type === 'string' && unsupportedTypes.includes(type))
    return { error: `type "${type}" is not supported (stdio, http and sse are)` };
  if (type === 'http' || type === 'sse') {
    const parsed = remoteSchema.safeParse(value);
    if (!parsed.success) return { error: parsed.error.issues.map((issue) => issue.message).join('; ') };
    const { type: kind, url, headers } = parsed.data;
    return { spec: { type: kind, url, ...(headers ? { headers } : {}) } };
  }
  if (type !== undefined && type !== 'stdio')
    return { error: `unknown type ${JSON.stringify(type)} (use stdio, http or sse)` };
  const parsed = stdioSchema.safeParse(value);
  if (!parsed.success) return { error: parsed.error.issues.map((issue) => issue.message).join('; ') };
  const { command, args, env, cwd } = parsed.data;
  return {
    spec: { type: 'stdio', command, ...(args ? { args } : {}), ...(env ? { env } : {}), ...(cwd ? { cwd } : {}) },
  };
}

/** Configured servers and what was wrong in the files. */
export interface McpConfig {
  servers: Record<string, McpServerSpec>;
  /** Where each server came from. */
  sources: Record<string, string>;
  /** `.mcp.json` files read, nearest first. */
  files: string[];
  problems: { file: string; message: string }[];
}

async function readConfigFile(
  file: string,
): Promise<{ servers: Record<string, unknown> } | { error: string } | undefined> {
  if (certainlyMissing(file)) return undefined;
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR'
      ? undefined
      : { error: `cannot read the file: ${(error as Error).message}` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { error: `not valid JSON: ${(error as Error).message}` };
  }
  const servers = (json as { mcpServers?: unknown } | null)?.mcpServers;
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers))
    return { error: 'it needs an "mcpServers" object: {"mcpServers": {"name": {...}}}' };
  return { servers: servers as Record<string, unknown> };
}

/** The servers configured for `cwd`: `.mcp.json` in it and each parent directory, the nearest definition of a name winning. */
export async function loadMcpConfig(cwd: string): Promise<McpConfig> {
  const config: McpConfig = { servers: {}, sources: {}, files: [], problems: [] };
  // A name in a nearer file shadows farther ones, even when the nearer one is invalid.
  const seen = new Set<string>();
  let current = path.resolve(cwd);
  for (;;) {
    const file = path.join(current, '.mcp.json');
    const read = await readConfigFile(file);
    if (read && 'error' in read) config.problems.push({ file, message: read.error });
    else if (read) {
      config.files.push(file);
      for (const [name, value] of Object.entries(read.servers)) {
        if (seen.has(name)) continue;
        seen.add(name);
        const parsed = parseServerSpec(value);
        if ('error' in parsed)
          config.problems.push({ file, message: `server "${name}": ${parsed.error}; it is ignored` });
        else {
          config.servers[name] = parsed.spec;
          config.sources[name] = file;
        }
      }
    }
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return config;
}

const reference = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** Expands `${VAR}` and `${VAR:-default}` in a string; unset variables without a default are collected in `missing`. */
function expand(text: string, env: NodeJS.ProcessEnv, missing: Set<string>): string {
  return text.replace(reference, (_match, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (value !== undefined && value !== '') return value;
    if (fallback !== undefined) return fallback;
    missing.add(name);
    return '';
  });
}

const expandMap = (map: Record<string, string> | undefined, env: NodeJS.ProcessEnv, missing: Set<string>) =>
  map && Object.fromEntries(Object.entries(map).map(([key, value]) => [key, expand(value, env, missing)]));

/** The spec with every variable reference expanded from `env`; throws naming the variables that are not set. */
export function expandServerSpec(spec: McpServerSpec, env: NodeJS.ProcessEnv): McpServerSpec {
  const missing = new Set<string>();
  let expanded: McpServerSpec;
  if (spec.type === 'stdio') {
    expanded = {
      type: 'stdio',
      command: expand(spec.command, env, missing),
      ...(spec.args ? { args: spec.args.map((arg) => expand(arg, env, missing)) } : {}),
      ...(spec.env ? { env: expandMap(spec.env, env, missing)! } : {}),
      ...(spec.cwd ? { cwd: expand(spec.cwd, env, missing) } : {}),
    };
  } else {
    expanded = {
      type: spec.type,
      url: expand(spec.url, env, missing),
      ...(spec.headers ? { headers: expandMap(spec.headers, env, missing)! } : {}),
    };
  }
  if (missing.size > 0) {
    throw new Error(
      `environment variable(s) ${[...missing].join(', ')} used by the server's configuration are not set on the worker`,
    );
  }
  return expanded;
}
