// Reading a project file that may be hostile: a regular file's text up to a cap, never hanging on a fifo or flooding memory.
import type { FileHandle } from 'node:fs/promises';

/** What an opened file held: its text, or why not (not a regular file; more bytes than the cap, by stat or while read). */
export type CappedText =
  { type: 'text'; text: string } | { type: 'not-a-file' } | { type: 'too-large'; bytes: number; grew: boolean };

/**
 * Reads a file opened with O_NONBLOCK (so a fifo answered at once): its fstat must show a regular file of at most
 * `maxBytes`, and reading stops one byte past the cap, so a file that grew since its stat is refused too.
 */
export async function readCappedText(handle: FileHandle, maxBytes: number): Promise<CappedText> {
  const stat = await handle.stat();
  if (!stat.isFile()) return { type: 'not-a-file' };
  if (stat.size > maxBytes) return { type: 'too-large', bytes: stat.size, grew: false };
  const chunks: Buffer[] = [];
  let length = 0;
  for (;;) {
    const chunk = Buffer.alloc(Math.min(Math.max(stat.size, 4096), maxBytes + 1 - length));
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, length);
    if (bytesRead === 0) break;
    chunks.push(chunk.subarray(0, bytesRead));
    length += bytesRead;
    if (length > maxBytes) return { type: 'too-large', bytes: length, grew: true };
  }
  return { type: 'text', text: Buffer.concat(chunks).toString('utf8') };
}
