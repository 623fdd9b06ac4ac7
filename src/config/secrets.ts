import { closeSync, existsSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';

// Worker secrets, read from files and scrubbed: a tool runs as the worker's user and can read /proc (docs/security.md).

/** Variables that hold the runtime's own secrets. Each may instead be given as `<NAME>_FILE`, a file holding the value. */
export const secretVariables = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'SUBAGENTS_PAYLOAD_KEY',
  'SUBAGENTS_PAYLOAD_OLD_KEYS',
  'TEMPORAL_API_KEY',
  'TEMPORAL_TLS_CLIENT_KEY_DATA',
] as const;

/** Names an operator's own secrets by convention; such variables are treated as secrets too. */
const secretLooking = /(^|_)(KEY|KEYS|TOKEN|SECRET|SECRETS|PASSWORD|PASSWD|CREDENTIALS?)($|_)/i;

/** The variables that configure this mechanism: they name secrets but hold none. */
const configurationNames = new Set(['SUBAGENTS_SECRET_ENV', 'SUBAGENTS_BASH_ENV']);

/** A `<NAME>_FILE` variable whose file cannot be read. */
export class SecretFileError extends Error {
  override readonly name = 'SecretFileError';
}

/** The environment with every `<SECRET>_FILE` read into `<SECRET>`; both ways, or an unreadable file, throws. */
export function withSecretFiles(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const resolved: NodeJS.ProcessEnv = { ...env };
  for (const name of secretVariables) {
    const file = env[`${name}_FILE`]?.trim();
    if (!file) continue;
    if (env[name]?.trim()) throw new SecretFileError(`Both ${name} and ${name}_FILE are set; keep only ${name}_FILE.`);
    if (!existsSync(file))
      throw new SecretFileError(
        `${name}_FILE=${file} does not exist. Point it at the file holding ${name}, or unset it.`,
      );
    try {
      resolved[name] = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
    } catch (error) {
      throw new SecretFileError(`${name}_FILE=${file} cannot be read: ${(error as Error).message}.`);
    }
  }
  return resolved;
}

/** Variables that name files holding secrets (key files, TLS keys, temporal.toml): hidden from sandboxed processes. */
export function secretFileNames(env: NodeJS.ProcessEnv): string[] {
  const names = [
    ...secretVariables.map((name) => `${name}_FILE`),
    'TEMPORAL_TLS_CLIENT_KEY_PATH',
    'TEMPORAL_CONFIG_FILE',
  ];
  return names.filter((name) => env[name]?.trim());
}

/** Names the tools' environment passes through besides the safe defaults (SUBAGENTS_BASH_ENV, comma-separated). */
export function toolEnvironmentNames(env: NodeJS.ProcessEnv): string[] {
  return (env.SUBAGENTS_BASH_ENV ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

/** The variables to treat as secrets, except those passed to tools on purpose (SUBAGENTS_BASH_ENV). */
export function secretNamesIn(env: NodeJS.ProcessEnv): string[] {
  const passedToTools = new Set(toolEnvironmentNames(env));
  const named = (env.SUBAGENTS_SECRET_ENV ?? '').split(',').map((name) => name.trim());
  const candidates = new Set<string>([...secretVariables, ...secretVariables.map((name) => `${name}_FILE`), ...named]);
  for (const name of Object.keys(env))
    if (secretLooking.test(name) && !configurationNames.has(name)) candidates.add(name);
  return [...candidates].filter((name) => name !== '' && env[name] !== undefined && !passedToTools.has(name));
}

/** Removes read secrets from `process.env` and, via /proc/self/mem, from the block /proc/<pid>/environ shows. */
export function scrubProcessEnvironment(names: readonly string[]): { removed: string[]; blockCleared: boolean } {
  const removed = names.filter((name) => process.env[name] !== undefined);
  for (const name of removed) delete process.env[name];
  return { removed, blockCleared: removed.length === 0 || clearEnvironmentBlock(new Set(removed)) };
}

/** Zeroes the `NAME=value` entries of the original environment block; false where /proc does not allow it. */
function clearEnvironmentBlock(names: ReadonlySet<string>): boolean {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // Fields after the command name; env_start and env_end are fields 50 and 51 (proc(5)).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const start = Number(fields[50 - 3]);
    const end = Number(fields[51 - 3]);
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end <= start) return false;
    const block = Buffer.alloc(end - start);
    const memory = openSync('/proc/self/mem', 'r+');
    try {
      readSync(memory, block, 0, block.length, start);
      for (let offset = 0; offset < block.length;) {
        const entryEnd = block.indexOf(0, offset) < 0 ? block.length : block.indexOf(0, offset);
        const entry = block.subarray(offset, entryEnd).toString('utf8');
        if (names.has(entry.slice(0, entry.indexOf('=')))) block.fill(0, offset, entryEnd);
        offset = entryEnd + 1;
      }
      writeSync(memory, block, 0, block.length, start);
    } finally {
      closeSync(memory);
    }
    return true;
  } catch {
    return false;
  }
}
