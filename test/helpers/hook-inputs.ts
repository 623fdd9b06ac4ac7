// What recording hooks were given: each appends its stdin JSON as one line to `<event>.jsonl` in a directory.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The inputs an event's recording hooks got, in order; none when the file was never written. */
export function hookInputsOf(dir: string, event: string): Record<string, unknown>[] {
  const file = path.join(dir, `${event}.jsonl`);
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
