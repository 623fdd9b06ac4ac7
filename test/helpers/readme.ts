import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The non-empty lines of README's first ```sh block under `heading` (e.g. "## Using it"), comments kept. */
export function readmeBlock(repoRoot: string, heading: string): string[] {
  const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  const start = readme.indexOf(`\n${heading}\n`);
  if (start === -1) throw new Error(`README has no "${heading}" heading`);
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(start));
  if (!block) throw new Error(`README has no \`\`\`sh block under "${heading}"`);
  return block[1]!.split('\n').filter((line) => line.trim() !== '');
}

/** The ids README's "Using it" lines name as placeholders. */
export interface TourIds {
  rootId: string;
  workerId: string;
  requestId: string;
}

/** A README line with the tour's ids in place of `<rootId>`, `<workerId>` and `<requestId>`. */
export function withTourIds(line: string, ids: TourIds): string {
  return line
    .replaceAll('<rootId>', ids.rootId)
    .replaceAll('<workerId>', ids.workerId)
    .replaceAll('<requestId>', ids.requestId);
}
