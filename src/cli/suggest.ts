// "Did you mean": the closest known word within two edits (a few lines of Levenshtein, not a package for one use).

/** Edits (insert, delete, substitute, swap two neighbours) that turn `from` into `to`. */
export function editDistance(from: string, to: string): number {
  const rows: number[][] = [Array.from({ length: to.length + 1 }, (_unused, index) => index)];
  for (let row = 1; row <= from.length; row++) {
    const current = [row];
    for (let column = 1; column <= to.length; column++) {
      const above = rows[row - 1]!;
      let best = Math.min(
        above[column]! + 1,
        current[column - 1]! + 1,
        above[column - 1]! + (from[row - 1] === to[column - 1] ? 0 : 1),
      );
      if (row > 1 && column > 1 && from[row - 1] === to[column - 2] && from[row - 2] === to[column - 1])
        best = Math.min(best, rows[row - 2]![column - 2]! + 1);
      current.push(best);
    }
    rows.push(current);
  }
  return rows[from.length]![to.length]!;
}

/** The known word closest to `word` (at most two edits, and fewer than half its length), if any. */
export function closest(word: string, known: readonly string[]): string | undefined {
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(word, candidate);
    if (distance <= 2 && distance < Math.max(2, word.length / 2) && (!best || distance < best.distance))
      best = { candidate, distance };
  }
  return best?.candidate;
}

/** The `--flags` a usage line names. */
export function flagsOf(usage: string): string[] {
  return [...new Set(usage.match(/--[a-z][a-z0-9-]*/g) ?? [])];
}
