// Records keep prompt digests; a child gets its prompt by digest (docs/agent-definitions.md, "What an agent records").
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import type { DefinitionPromptRef, SpawnContext } from '../../shared/agents/agent-definition';
import { builtinAgents } from '../../shared/agents/builtin-agents';
import { ErrorType, errorText } from '../../shared/protocol/errors';
import { parsedDefinitions } from './parse-cache';

/** The digest a record keeps of a prompt (SHA-256, 32 hex digits). */
export function promptDigest(prompt: string): string {
  return createHash('sha256').update(prompt).digest('hex').slice(0, 32);
}

/** Prompts by digest, the ones used longest ago dropped beyond `maxBytes` of text. */
export class DefinitionPrompts {
  private readonly prompts = new Map<string, string>();
  private bytes = 0;

  constructor(private readonly maxBytes = 64 * 1024 * 1024) {}

  /** Keeps `prompt`; returns its digest. */
  remember(prompt: string): string {
    const digest = promptDigest(prompt);
    this.touch(digest, prompt);
    return digest;
  }

  get(digest: string): string | undefined {
    const prompt = this.prompts.get(digest);
    if (prompt !== undefined) this.touch(digest, prompt);
    return prompt;
  }

  get size(): number {
    return this.prompts.size;
  }

  /** Forgets every prompt, as a restarted worker has (tests). */
  clear(): void {
    this.prompts.clear();
    this.bytes = 0;
  }

  private touch(digest: string, prompt: string): void {
    if (this.prompts.delete(digest)) this.bytes -= prompt.length;
    this.prompts.set(digest, prompt);
    this.bytes += prompt.length;
    for (const [oldest, text] of this.prompts) {
      if (this.bytes <= this.maxBytes || oldest === digest) break;
      this.prompts.delete(oldest);
      this.bytes -= text.length;
    }
  }
}

/** The worker process's prompts. */
export const definitionPrompts = new DefinitionPrompts();

/** The record an agent keeps of its agent types: each prompt '' and its digest in `promptDigests`; the texts stay with `prompts`. */
export function withoutPrompts(context: SpawnContext, prompts: DefinitionPrompts = definitionPrompts): SpawnContext {
  const promptDigests: Record<string, string> = {};
  const definitions = Object.fromEntries(
    Object.entries(context.loaded.definitions).map(([name, definition]) => {
      promptDigests[name] = prompts.remember(definition.prompt);
      return [name, { ...definition, prompt: '' }];
    }),
  );
  return { ...context, loaded: { ...context.loaded, definitions }, promptDigests };
}

/** What is wrong with a reference to a prompt (undefined: nothing); only agent files are read for it. */
function refProblem(ref: DefinitionPromptRef): string | undefined {
  if (typeof ref !== 'object' || ref === null || typeof ref.digest !== 'string' || !/^[0-9a-f]{32}$/.test(ref.digest)) {
    return 'definitionPromptRef must be { digest: 32 hexadecimal digits, file?: the absolute path of its .md agent file }';
  }
  if (
    ref.file !== undefined &&
    (typeof ref.file !== 'string' || !path.isAbsolute(ref.file) || !ref.file.endsWith('.md') || ref.file.includes('\0'))
  ) {
    return `definitionPromptRef.file must be the absolute path of a .md agent file, not ${JSON.stringify(ref.file)}`;
  }
  return undefined;
}

/** A child's prompt, and whether it is not the text its parent loaded (that text is gone: the file changed and no worker kept it). */
export interface ResolvedPrompt {
  prompt: string;
  changed: boolean;
}

/** A digest's prompt from memory, else the file or built-in; changed text is marked, a gone type is AgentTypeGone. */
export async function resolveDefinitionPrompt(
  ref: DefinitionPromptRef,
  agentType: string,
  homeDir: string,
  prompts: DefinitionPrompts = definitionPrompts,
): Promise<ResolvedPrompt> {
  // The reference comes from the agent's input: a parent's spawn, or whoever started the workflow by hand.
  const malformed = refProblem(ref);
  if (malformed)
    throw ApplicationFailure.nonRetryable(
      errorText(ErrorType.AgentTypeGone, `agent type "${agentType}": ${malformed}`),
      ErrorType.AgentTypeGone,
    );
  const kept = prompts.get(ref.digest);
  if (kept !== undefined) return { prompt: kept, changed: false };
  let current: string | undefined;
  if (ref.file === undefined) {
    current = Object.hasOwn(builtinAgents, agentType) ? builtinAgents[agentType]!.prompt : undefined;
  } else {
    const text = await fs.readFile(ref.file, 'utf8').catch(() => undefined);
    // The prompt does not depend on where the file was found (project, user or plugin).
    current =
      text === undefined ? undefined : parsedDefinitions.parse(text, ref.file, 'project', homeDir).definition?.prompt;
  }
  if (current === undefined) {
    const where =
      ref.file === undefined
        ? 'is not a built-in agent type of this worker'
        : `was defined in ${ref.file}, which no longer exists or no longer parses`;
    throw ApplicationFailure.nonRetryable(
      errorText(
        ErrorType.AgentTypeGone,
        `agent type "${agentType}" ${where}, and no worker holds the prompt its parent loaded. Restore the file, or start the agent again so it loads the current agent types.`,
      ),
      ErrorType.AgentTypeGone,
    );
  }
  const changed = promptDigest(current) !== ref.digest;
  if (!changed) prompts.remember(current);
  return { prompt: current, changed };
}
