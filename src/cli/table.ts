/** Text tables of the CLI: columns padded to their width on screen, so names in any script keep the columns straight. */
import stringWidth from 'string-width';

/** `text` padded with spaces to `width` columns as a terminal shows them (CJK and emoji count two). */
export function padCell(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - stringWidth(text)));
}

/** Rows padded to their columns' widths, two spaces apart; the last column is not padded. */
export function formatTable(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => stringWidth(row[column] ?? '')))) ?? [];
  return rows.map((row) =>
    row.map((cell, column) => (column === row.length - 1 ? cell : padCell(cell, widths[column] ?? 0))).join('  '),
  );
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** `text` cut to at most `width` screen columns, ending in `…` when cut (never half of a wide character). */
export function clipToWidth(text: string, width: number): string {
  if (stringWidth(text) <= width) return text;
  let clipped = '';
  for (const { segment } of graphemes.segment(text)) {
    if (stringWidth(clipped + segment) > width - 1) break;
    clipped += segment;
  }
  return `${clipped}…`;
}
