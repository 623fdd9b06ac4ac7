/** Glob patterns matched by picomatch over '/'-separated relative paths. */
import path from 'node:path';
import picomatch from 'picomatch';

/** Hidden files match `*` (as rg --hidden lists them); `posix` makes `[!abc]` a negated class, as in a shell. */
const globOptions: picomatch.PicomatchOptions = { dot: true, posix: true };

/** A glob anchored at both ends, as a regular expression. */
export function compileGlob(pattern: string): RegExp {
  return picomatch.makeRe(pattern, globOptions);
}

/** True when a path segment contains glob syntax (the walk can start below a literal prefix). */
export function hasGlobSyntax(segment: string): boolean {
  return /[*?[{\\]/.test(segment);
}

/** Grep's glob input as Claude Code reads it: split at whitespace, then at commas outside a {…} group. */
export function splitGlobInput(glob: string): string[] {
  return glob
    .split(/\s+/)
    .flatMap((part) => (part.includes('{') && part.includes('}') ? [part] : part.split(',')))
    .filter((part) => part !== '');
}

/** rg's --glob decision for a relative path (last match wins, `!` excludes); undefined when the globs say nothing. */
export function compileGlobDecision(globs: readonly string[]): (relative: string) => boolean | undefined {
  const compiled = globs.map((glob) => {
    const excludes = glob.startsWith('!');
    const body = excludes ? glob.slice(1) : glob;
    const matcher = compileGlob(body.startsWith('/') ? body.slice(1) : body);
    const onName = !body.includes('/');
    return { excludes, test: (relative: string) => matcher.test(onName ? path.posix.basename(relative) : relative) };
  });
  const anyIncluding = compiled.some((glob) => !glob.excludes);
  return (relative) => {
    for (let index = compiled.length - 1; index >= 0; index -= 1) {
      const glob = compiled[index]!;
      if (glob.test(relative)) return !glob.excludes;
    }
    return anyIncluding ? false : undefined;
  };
}
