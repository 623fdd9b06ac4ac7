/** .gitignore rules: parsing and the ignore decision (deepest file first, last matching rule wins). */
import path from 'node:path';
import { globToRegExpSource } from './glob-match';

export interface IgnoreRule {
  regex: RegExp;
  negated: boolean;
  directoryOnly: boolean;
}

/** The rules of one .gitignore file and the directory they are relative to. */
export interface IgnoreFile {
  directory: string;
  rules: IgnoreRule[];
}

/** Parses the text of a .gitignore file. */
export function parseGitignore(text: string): IgnoreRule[] {
  return text.split('\n').flatMap((line) => {
    const rule = parseLine(line);
    return rule ? [rule] : [];
  });
}

function parseLine(rawLine: string): IgnoreRule | undefined {
  let line = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
  if (line === '' || line.startsWith('#')) return undefined;
  // Trailing spaces are dropped unless escaped with a backslash.
  while (line.endsWith(' ') && !line.endsWith('\\ ')) line = line.slice(0, -1);
  let negated = false;
  if (line.startsWith('!')) {
    negated = true;
    line = line.slice(1);
  } else if (line.startsWith('\\!') || line.startsWith('\\#')) {
    line = line.slice(1);
  }
  let directoryOnly = false;
  while (line.endsWith('/')) {
    directoryOnly = true;
    line = line.slice(0, -1);
  }
  if (line === '') return undefined;
  // A slash at the start or in the middle anchors the pattern to the .gitignore's directory.
  const anchored = line.includes('/');
  if (line.startsWith('/')) line = line.slice(1);
  const source = globToRegExpSource(line, { braces: false });
  const regex = new RegExp(anchored ? `^${source}$` : `^(?:.*/)?${source}$`);
  return { regex, negated, directoryOnly };
}

/** True when the deepest .gitignore with a matching rule ignores the path (a negated rule re-includes it). */
export function isIgnored(files: readonly IgnoreFile[], absolutePath: string, isDirectory: boolean): boolean {
  for (let fileIndex = files.length - 1; fileIndex >= 0; fileIndex -= 1) {
    const file = files[fileIndex]!;
    const relative = path.relative(file.directory, absolutePath);
    if (relative === '' || relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) continue;
    const candidate = relative.split(path.sep).join('/');
    for (let ruleIndex = file.rules.length - 1; ruleIndex >= 0; ruleIndex -= 1) {
      const rule = file.rules[ruleIndex]!;
      if (rule.directoryOnly && !isDirectory) continue;
      if (rule.regex.test(candidate)) return !rule.negated;
    }
  }
  return false;
}
