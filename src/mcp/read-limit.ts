/** The MCP SDK's stdio read-buffer limit: an answer larger than it closes the connection (SDK `shared/stdio.js`). */
import { ErrorType, errorText } from '../shared/protocol/errors';

/** The limit in bytes when `error` is the SDK's read-buffer overflow (`ReadBuffer exceeded maximum size of N bytes`). */
export function readBufferLimitOf(error: unknown): number | undefined {
  const match = /ReadBuffer exceeded maximum size of (\d+) bytes/.exec(
    error instanceof Error ? error.message : String(error),
  );
  return match ? Number(match[1]) : undefined;
}

/** What the model reads: the answer was too large, the call is not retried, and what to do instead. */
export function resultTooLargeText(server: string, toolName: string, limitBytes: number): string {
  const mebibytes = limitBytes / (1024 * 1024);
  return errorText(
    ErrorType.McpResultTooLarge,
    `the MCP server "${server}" answered ${toolName} with a message larger than the MCP SDK's stdio limit of ` +
      `${Number.isInteger(mebibytes) ? `${mebibytes} MiB` : `${limitBytes} bytes`} (${limitBytes} bytes), so the SDK dropped the connection and the result is lost. ` +
      `The tool ran; the call is not retried. Ask for less (a narrower query, a page or a range), or use a tool that writes its output to a file.`,
  );
}
