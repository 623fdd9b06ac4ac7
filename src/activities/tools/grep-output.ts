/** Reads rg's `--null` output as it streams in, holding at most one (capped) record in memory. */

/** One unit of rg's output: a `--` group separator, or a path with what followed it on its line (empty in `-l` mode). */
export type RipgrepRecord = { kind: 'separator' } | { kind: 'entry'; path: string; rest: string };

const nul = 0;
const newline = 10;
const separatorBytes = Buffer.from('--');

/** Splits `path\0rest\n` (or `path\0`) records and `--` lines, cutting fields at `maxFieldBytes`. */
export class RipgrepRecordReader {
  private field: Buffer[] = [];
  private fieldBytes = 0;
  private path: string | undefined;

  constructor(
    private readonly pathsOnly: boolean,
    private readonly maxFieldBytes: number = 64 * 1024,
  ) {}

  /** The records completed by this chunk, in order. */
  push(chunk: Buffer): RipgrepRecord[] {
    const records: RipgrepRecord[] = [];
    let offset = 0;
    while (offset < chunk.length) {
      if (this.path === undefined) {
        const end = chunk.indexOf(nul, offset);
        const lineEnd = chunk.indexOf(newline, offset);
        if (lineEnd !== -1 && (end === -1 || lineEnd < end) && this.isSeparator(chunk.subarray(offset, lineEnd))) {
          this.reset();
          records.push({ kind: 'separator' });
          offset = lineEnd + 1;
          continue;
        }
        if (end === -1) {
          this.append(chunk.subarray(offset));
          break;
        }
        this.append(chunk.subarray(offset, end));
        const completedPath = this.take();
        offset = end + 1;
        if (this.pathsOnly) records.push({ kind: 'entry', path: completedPath, rest: '' });
        else this.path = completedPath;
      } else {
        const end = chunk.indexOf(newline, offset);
        if (end === -1) {
          this.append(chunk.subarray(offset));
          break;
        }
        this.append(chunk.subarray(offset, end));
        records.push({ kind: 'entry', path: this.path, rest: this.take() });
        this.path = undefined;
        offset = end + 1;
      }
    }
    return records;
  }

  private isSeparator(beforeNewline: Buffer): boolean {
    if (this.fieldBytes + beforeNewline.length !== separatorBytes.length) return false;
    return Buffer.concat([...this.field, beforeNewline]).equals(separatorBytes);
  }

  private append(bytes: Buffer): void {
    const room = this.maxFieldBytes - this.fieldBytes;
    if (room <= 0 || bytes.length === 0) return;
    // Copied: the chunk's buffer may be reused once the stream moves on.
    const kept = Buffer.from(bytes.subarray(0, room));
    this.field.push(kept);
    this.fieldBytes += kept.length;
  }

  private take(): string {
    const text = Buffer.concat(this.field).toString('utf8');
    this.reset();
    return text;
  }

  private reset(): void {
    this.field = [];
    this.fieldBytes = 0;
  }
}

/** A content-mode `rest` (`-n` is always given): the line number, whether it matched (`:`) or is context (`-`), the text. */
export function parseContentRest(rest: string): { lineNumber: string; isMatch: boolean; text: string } | undefined {
  const match = /^(\d+)([:-])/.exec(rest);
  if (!match) return undefined;
  const text = rest.slice(match[0].length);
  return { lineNumber: match[1]!, isMatch: match[2] === ':', text: text.endsWith('\r') ? text.slice(0, -1) : text };
}
