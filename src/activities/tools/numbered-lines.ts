/** `cat -n` formatting shared by Read and Edit. */
import { toolLimits } from '../../shared/tools/tool-definitions';

/** Right-aligned line number, a tab, then the line (cut at maxLineChars, saying how long it was). */
export function formatNumberedLine(lineNumber: number, text: string, fullLength: number = text.length): string {
  const limit = toolLimits.maxLineChars;
  const shown = fullLength > limit ? `${text.slice(0, limit)}... [line truncated: ${fullLength} characters]` : text;
  return `${String(lineNumber).padStart(6)}\t${shown}`;
}
