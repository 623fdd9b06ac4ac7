/** .gitignore rules through the `ignore` package; the deepest .gitignore with a matching rule decides. */
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';

/** The rules of one .gitignore file and the directory they are relative to. */
export interface IgnoreFile {
  directory: string;
  rules: Ignore;
}

/** Parses the text of a .gitignore file. */
export function parseGitignore(text: string): Ignore {
  return ignore().add(text);
}

/** True when the deepest .gitignore with a matching rule ignores the path (a negated rule re-includes it). */
export function isIgnored(files: readonly IgnoreFile[], absolutePath: string, isDirectory: boolean): boolean {
  for (let fileIndex = files.length - 1; fileIndex >= 0; fileIndex -= 1) {
    const file = files[fileIndex]!;
    const relative = path.relative(file.directory, absolutePath);
    if (relative === '' || relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative))
      continue;
    // A trailing slash lets directory-only rules (`cache/`) match.
    const result = file.rules.test(relative.split(path.sep).join('/') + (isDirectory ? '/' : ''));
    if (result.ignored) return true;
    if (result.unignored) return false;
  }
  return false;
}
