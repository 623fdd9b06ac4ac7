import { describe, expect, it } from 'vitest';
import { parseContentRest, RipgrepRecordReader, type RipgrepRecord } from '../../../src/activities/tools/grep-output';

/** Feeds `bytes` to a reader in chunks of `size` bytes. */
function readInChunks(reader: RipgrepRecordReader, bytes: Buffer, size: number): RipgrepRecord[] {
  const records: RipgrepRecord[] = [];
  for (let offset = 0; offset < bytes.length; offset += size)
    records.push(...reader.push(bytes.subarray(offset, offset + size)));
  return records;
}

describe("reading rg's --null output", () => {
  const content = Buffer.from('./a.ts\x002:const alpha = 1;\n--\n./odd\nname.md\x007-line 7\r\n./-- x\x001:--\n');
  const expected: RipgrepRecord[] = [
    { kind: 'entry', path: './a.ts', rest: '2:const alpha = 1;' },
    { kind: 'separator' },
    { kind: 'entry', path: './odd\nname.md', rest: '7-line 7\r' },
    { kind: 'entry', path: './-- x', rest: '1:--' },
  ];

  it('splits records and separators however the chunks fall', () => {
    for (const size of [1, 2, 3, 7, 1000])
      expect(readInChunks(new RipgrepRecordReader(false), content, size), `chunks of ${size}`).toEqual(expected);
  });

  it('reads -l output as paths alone', () => {
    expect(readInChunks(new RipgrepRecordReader(true), Buffer.from('./a.ts\x00./b c.md\x00'), 3)).toEqual([
      { kind: 'entry', path: './a.ts', rest: '' },
      { kind: 'entry', path: './b c.md', rest: '' },
    ]);
  });

  it('keeps at most maxFieldBytes of a runaway line and goes on after it', () => {
    const reader = new RipgrepRecordReader(false, 8);
    const records = readInChunks(reader, Buffer.from(`./f\x001:${'x'.repeat(100_000)}\n./g\x002:ok\n`), 4096);
    expect(records).toEqual([
      { kind: 'entry', path: './f', rest: '1:xxxxxx' },
      { kind: 'entry', path: './g', rest: '2:ok' },
    ]);
  });

  it('parses a content line: number, match or context, text without a trailing \\r', () => {
    expect(parseContentRest('12:a:b')).toEqual({ lineNumber: '12', isMatch: true, text: 'a:b' });
    expect(parseContentRest('3-ctx\r')).toEqual({ lineNumber: '3', isMatch: false, text: 'ctx' });
    expect(parseContentRest('no number')).toBeUndefined();
  });
});
