/** An MCP tools/call result as tool_result content: text, images, resource links and embedded resources. */
import type { ImageBlock, ToolResultContent } from '../../shared/messages';

/** Images larger than this (bytes, decoded) are described instead of sent: they would bloat workflow history. */
export const maxImageBytes = 1024 * 1024;

const imageTypes: readonly string[] = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];

type McpContent =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }
  | { type: 'audio'; data: string; mimeType: string }
  | { type: 'resource_link'; uri: string; name: string; mimeType?: string; description?: string }
  | { type: 'resource'; resource: { uri: string; mimeType?: string; text?: string; blob?: string } };

/** The parts of a CallToolResult this conversion reads. */
export interface McpCallResult {
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
}

const decodedBytes = (base64: string) => Math.floor((base64.length * 3) / 4);

function image(data: string, mimeType: string, what: string): ToolResultContent {
  if (!imageTypes.includes(mimeType)) return { type: 'text', text: `[${what}: ${mimeType}, ${decodedBytes(data)} bytes; only JPEG, PNG, GIF and WebP images can be shown]` };
  if (decodedBytes(data) > maxImageBytes) return { type: 'text', text: `[${what}: ${mimeType}, ${decodedBytes(data)} bytes; larger than ${maxImageBytes} bytes, not shown]` };
  const block: ImageBlock = { type: 'image', source: { type: 'base64', media_type: mimeType as ImageBlock['source']['media_type'], data } };
  return block;
}

function convert(item: McpContent): ToolResultContent {
  switch (item.type) {
    case 'text':
      return { type: 'text', text: item.text };
    case 'image':
      return image(item.data, item.mimeType, 'image');
    case 'audio':
      return { type: 'text', text: `[audio: ${item.mimeType}, ${decodedBytes(item.data)} bytes; audio cannot be shown to the model]` };
    case 'resource_link':
      return { type: 'text', text: `Resource link: ${item.name} <${item.uri}>${item.mimeType ? ` (${item.mimeType})` : ''}${item.description ? ` — ${item.description}` : ''}` };
    case 'resource': {
      const { uri, mimeType, text, blob } = item.resource;
      if (text !== undefined) return { type: 'text', text: `Resource ${uri}${mimeType ? ` (${mimeType})` : ''}:\n${text}` };
      if (blob !== undefined && mimeType?.startsWith('image/')) return image(blob, mimeType, `resource ${uri}`);
      return { type: 'text', text: `[resource ${uri}${mimeType ? ` (${mimeType})` : ''}: ${decodedBytes(blob ?? '')} bytes of binary data, not shown]` };
    }
  }
}

function isKnownContent(value: unknown): value is McpContent {
  const type = (value as { type?: unknown } | null)?.type;
  return ['text', 'image', 'audio', 'resource_link', 'resource'].includes(String(type));
}

/** Text for the model, and rich blocks when there is an image; errors keep the server's own text. */
export function toToolResult(result: McpCallResult): { content: string; blocks?: ToolResultContent[]; isError: boolean } {
  const items = (result.content ?? []).map((item) => (isKnownContent(item) ? convert(item) : { type: 'text' as const, text: `[content of type ${String((item as { type?: unknown }).type)}, not shown]` }));
  if (items.length === 0 && result.structuredContent !== undefined) items.push({ type: 'text', text: JSON.stringify(result.structuredContent) });
  const text = items.filter((item) => item.type === 'text').map((item) => item.text).join('\n');
  const isError = result.isError === true;
  if (!items.some((item) => item.type === 'image')) return { content: text || '(no output)', isError };
  return { content: text, blocks: items.map((item) => (item.type === 'text' && item.text === '' ? { type: 'text', text: '(empty)' } : item)), isError };
}
