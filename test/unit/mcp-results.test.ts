import { describe, expect, it } from 'vitest';
import { maxImageBytes, toToolResult } from '../../src/activities/mcp/result-content';
import { buildToolResultMessage } from '../../src/shared/tools/tool-results';

const png = Buffer.from('89504e470d0a1a0a', 'hex').toString('base64');

describe('MCP results as tool_result content', () => {
  it('joins text, and describes resource links and embedded resources', () => {
    const result = toToolResult({
      content: [
        { type: 'text', text: 'Found 2 files' },
        { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt', mimeType: 'text/plain', description: 'first' },
        { type: 'resource', resource: { uri: 'memo://1', text: 'hello' } },
        { type: 'resource', resource: { uri: 'memo://2', mimeType: 'application/zip', blob: 'AAAA' } },
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        { type: 'weird' },
      ],
    });
    expect(result.isError).toBe(false);
    expect(result.blocks).toBeUndefined();
    expect(result.content.split('\n')).toEqual([
      'Found 2 files',
      'Resource link: a.txt <file:///a.txt> (text/plain) — first',
      'Resource memo://1:',
      'hello',
      '[resource memo://2 (application/zip): 3 bytes of binary data, not shown]',
      '[audio: audio/wav, 3 bytes; audio cannot be shown to the model]',
      '[content of type weird, not shown]',
    ]);
  });

  it('keeps images as image blocks, and the result message carries them', () => {
    const result = toToolResult({
      content: [
        { type: 'text', text: 'a tiny image' },
        { type: 'image', data: png, mimeType: 'image/png' },
      ],
    });
    expect(result.blocks).toEqual([
      { type: 'text', text: 'a tiny image' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
    ]);
    const message = buildToolResultMessage(
      [{ type: 'tool_use', id: 't1', name: 'mcp__x__img', input: {} }],
      { t1: { content: result.content, isError: false, blocks: result.blocks! } },
      'missing',
    );
    expect(message.content).toEqual([{ type: 'tool_result', tool_use_id: 't1', content: result.blocks }]);
  });

  it('describes images it cannot send: other formats, and images over the size a result may carry', () => {
    const big = Buffer.alloc(maxImageBytes + 10).toString('base64');
    const result = toToolResult({
      content: [
        { type: 'image', data: png, mimeType: 'image/tiff' },
        { type: 'image', data: big, mimeType: 'image/png' },
      ],
    });
    expect(result.blocks).toBeUndefined();
    expect(result.content).toMatch(
      /image\/tiff.*only JPEG, PNG, GIF and WebP[\s\S]*over the 1048576 bytes of images a result may carry/,
    );
    const half = Buffer.alloc(maxImageBytes / 2 + 10).toString('base64');
    const two = toToolResult({
      content: [
        { type: 'image', data: half, mimeType: 'image/png' },
        { type: 'image', data: half, mimeType: 'image/png' },
      ],
    });
    expect(two.blocks?.map((block) => block.type)).toEqual(['image', 'text']);
  });

  it('cuts long text next to images', () => {
    const result = toToolResult(
      {
        content: [
          { type: 'text', text: 'a'.repeat(30) },
          { type: 'image', data: png, mimeType: 'image/png' },
          { type: 'text', text: 'b'.repeat(30) },
        ],
      },
      40,
    );
    expect(result.blocks).toEqual([
      { type: 'text', text: 'a'.repeat(30) },
      expect.objectContaining({ type: 'image' }),
      { type: 'text', text: `${'b'.repeat(10)}\n[... 20 more characters not shown]` },
    ]);
  });

  it('reports server errors as errors, and structured content when there is no content', () => {
    expect(toToolResult({ content: [{ type: 'text', text: 'no such file' }], isError: true })).toEqual({
      content: 'no such file',
      isError: true,
    });
    expect(toToolResult({ content: [], structuredContent: { sum: 3 } }).content).toBe('{"sum":3}');
    expect(toToolResult({}).content).toBe('(no output)');
  });
});
