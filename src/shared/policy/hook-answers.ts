// What an http hook's response and a prompt or agent hook's answer mean, as Claude Code reads them (docs/hooks.md).
import { interpretHookRun, type HookVerdict } from './hook-outcome';
import type { HookEvent } from './hooks';

/** How an http hook's request ended. */
export type HttpHookOutcome = { type: 'response'; status: number; body: string } | { type: 'failed'; reason: string };

const clip = (text: string, max = 500) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** A 2xx body reads as a command's stdout after exit 0; anything else (non-2xx, no connection, timeout) is a non-blocking error. */
export function interpretHttpAnswer(event: HookEvent, label: string, outcome: HttpHookOutcome): HookVerdict {
  if (outcome.type === 'failed') return { command: label, kind: 'error', notice: outcome.reason };
  if (outcome.status < 200 || outcome.status > 299) {
    const body = outcome.body.trim();
    return {
      command: label,
      kind: 'error',
      notice: `the hook's URL answered HTTP ${outcome.status}${body ? `: ${clip(body)}` : ''}`,
    };
  }
  return interpretHookRun(event, label, { exitCode: 0, stdout: outcome.body, stderr: '' });
}

/** The text a prompt or agent hook sends: `$ARGUMENTS` replaced by the event's JSON, or the JSON appended. */
export function promptHookText(prompt: string, payload: Record<string, unknown>): string {
  const json = JSON.stringify(payload);
  // A function replacement: `$&` or `$'` in the JSON must not be read as a pattern.
  return prompt.includes('$ARGUMENTS') ? prompt.replaceAll('$ARGUMENTS', () => json) : `${prompt}\n\n${json}`;
}

/** What a prompt or agent hook is told to answer. */
export const promptHookInstructions =
  'You are a hook of an agent runtime: you check one event of an agent against the condition you are given. ' +
  'Answer with one JSON object and nothing else: {"ok": true} when the condition holds, or ' +
  '{"ok": false, "reason": "<what is wrong, said to the agent>"} when it does not.';

/** The first JSON object in a text (a model may wrap it in a code fence or a sentence). */
function firstJsonObject(text: string): unknown {
  const trimmed = text.trim();
  for (let start = trimmed.indexOf('{'); start >= 0; start = trimmed.indexOf('{', start + 1)) {
    for (let end = trimmed.lastIndexOf('}'); end > start; end = trimmed.lastIndexOf('}', end - 1)) {
      try {
        return JSON.parse(trimmed.slice(start, end + 1)) as unknown;
      } catch {
        // Try a shorter span.
      }
    }
  }
  return undefined;
}

/** `{"ok": false, "reason"}` blocks as exit 2 with the reason on stderr; `{"ok": true}` is a success; anything else a non-blocking error. */
export function interpretPromptAnswer(event: HookEvent, label: string, answer: string): HookVerdict {
  const value = firstJsonObject(answer);
  const ok = typeof value === 'object' && value !== null ? (value as { ok?: unknown }).ok : undefined;
  if (typeof ok !== 'boolean')
    return {
      command: label,
      kind: 'error',
      notice: `the hook's model did not answer {"ok": true|false}: ${clip(answer.trim() || '(no text)', 300)}`,
    };
  const reason = (value as { reason?: unknown }).reason;
  if (ok) return { command: label, kind: 'success' };
  const text =
    typeof reason === 'string' && reason.trim() ? reason.trim() : `a ${event} hook said the condition does not hold`;
  return interpretHookRun(event, label, { exitCode: 2, stdout: '', stderr: text });
}
