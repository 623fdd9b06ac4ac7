// docs/architecture.md's map is the folder listing of src/: a folder added, moved or removed must be written there.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.join(import.meta.dirname, '..', '..');

/** Every folder of src/ that holds source files, as `src/a/b/`. */
function sourceFolders(): string[] {
  const entries = readdirSync(path.join(root, 'src'), { recursive: true, withFileTypes: true });
  const folders = entries
    .filter((entry) => entry.isFile() && /\.(ts|cjs)$/.test(entry.name))
    .map((entry) => `${path.relative(root, entry.parentPath)}/`);
  return [...new Set(folders)].sort();
}

/** The folders named in the first column of the map's table. */
function mappedFolders(): string[] {
  const doc = readFileSync(path.join(root, 'docs', 'architecture.md'), 'utf8');
  const map = doc.slice(doc.indexOf('\n## Map\n'), doc.indexOf('\n## ', doc.indexOf('\n## Map\n') + 1));
  return [...map.matchAll(/^\| `(src\/[^`]*)` \|/gm)].map((match) => match[1]!).sort();
}

describe('docs/architecture.md', () => {
  it('maps every folder of src/ in one line, and no folder that is gone', () => {
    expect(mappedFolders()).toEqual(sourceFolders());
  });
});
