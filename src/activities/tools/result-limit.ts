/** Oversized results: the full text goes to a file, the model gets a preview and the path. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { toolLimits } from '../../shared/tools/tool-definitions';
import type { ToolCallInput, ToolCallResult } from '../../shared/tools/tools';

/** `<resultsDir>/<agentId>/<toolUseId>.txt`, with both names reduced to safe file-name characters. */
export function resultFilePath(resultsDir: string, agentId: string, toolUseId: string): string {
  return path.join(agentResultsDir(resultsDir, agentId), `${safeFileName(toolUseId)}.txt`);
}

/** `<resultsDir>/<agentId>`: one agent's saved results, the only part of the results directory its tools may read. */
export function agentResultsDir(resultsDir: string, agentId: string): string {
  return path.join(resultsDir, safeFileName(agentId));
}

function safeFileName(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9._-]/g, '_');
  return safe === '' || /^\.+$/.test(safe) ? `_${safe}` : safe;
}

/** Replaces content longer than `context.maxResultChars` by a preview; the file write is idempotent. */
export async function limitResult(
  result: ToolCallResult,
  call: ToolCallInput,
  resultsDir: string,
): Promise<ToolCallResult> {
  const maxChars = call.context.maxResultChars ?? toolLimits.defaultMaxResultChars;
  const originalChars = result.content.length;
  if (originalChars <= maxChars) return result;
  const file = resultFilePath(resultsDir, call.context.agentId, call.toolUseId);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, result.content, 'utf8');
  const preview = previewOf(result.content, Math.min(toolLimits.resultPreviewChars, Math.floor(maxChars / 2)));
  return {
    ...result,
    content:
      `${preview}\n\n... Output too large (${originalChars} chars). Full output saved to ${file}; ` +
      'use Read with offset/limit to see the rest.',
    replacement: { toolUseId: call.toolUseId, path: file, originalChars },
  };
}

/** The first `chars` characters, cut at a line break when one is near the end. */
function previewOf(text: string, chars: number): string {
  const head = text.slice(0, chars);
  const lastBreak = head.lastIndexOf('\n');
  return lastBreak >= chars / 2 ? head.slice(0, lastBreak) : head;
}
