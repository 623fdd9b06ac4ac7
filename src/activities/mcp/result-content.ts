/** An MCP tools/call result as tool_result content: text, images, resource links and embedded resources. */
import type { ImageBlock, ToolResultContent } from '../../shared/model/messages';

/** Decoded image bytes sent per result, the rest described: history payloads are limited to a few MB. */
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

/** What is left of the result's image budget. */
interface ImageBudget {
  bytes: number;
}

function image(data: string, mimeType: string, what: string, budget: ImageBudget): ToolResultContent {
  const size = decodedBytes(data);
  if (!imageTypes.includes(mimeType))
    return {
      type: 'text',
      text: `[${what}: ${mimeType}, ${size} bytes; only JPEG, PNG, GIF and WebP images can be shown]`,
    };
  if (size > budget.bytes)
    return {
      type: 'text',
      text: `[${what}: ${mimeType}, ${size} bytes; over the ${maxImageBytes} bytes of images a result may carry, not shown]`,
    };
  budget.bytes -= size;
  const block: ImageBlock = {
    type: 'image',
    source: { type: 'base64', media_type: mimeType as ImageBlock['source']['media_type'], data },
  };
  return block;
}

function convert(item: McpContent, budget: ImageBudget): ToolResultContent {
  switch (item.type) {
    case 'text':
      return { type: 'text', text: item.text };
    case 'image':
      return image(item.data, item.mimeType, 'image', budget);
    case 'audio':
      return {
        type: 'text',
        text: `[audio: ${item.mimeType}, ${decodedBytes(item.data)} bytes; audio cannot be shown to the model]`,
      };
    case 'resource_link':
      return {
        type: 'text',
        text: `Resource link: ${item.name} <${item.uri}>${item.mimeType ? ` (${item.mimeType})` : ''}${item.description ? ` — ${item.description}` : ''}`,
      };
    case 'resource': {
      const { uri, mimeType, text, blob } = item.resource;
      if (text !== undefined)
        return { type: 'text', text: `Resource ${uri}${mimeType ? ` (${mimeType})` : ''}:\n${text}` };
      if (blob !== undefined && mimeType?.startsWith('image/')) return image(blob, mimeType, `resource ${uri}`, budget);
      return {
        type: 'text',
        text: `[resource ${uri}${mimeType ? ` (${mimeType})` : ''}: ${decodedBytes(blob ?? '')} bytes of binary data, not shown]`,
      };
    }
  }
}

function isKnownContent(value: unknown): value is McpContent {
  const type = (value as { type?: unknown } | null)?.type;
  return ['text', 'image', 'audio', 'resource_link', 'resource'].includes(String(type));
}

/** Text for the model, plus blocks (text cut at `maxTextChars`) when there is an image. */
export function toToolResult(
  result: McpCallResult,
  maxTextChars = 50_000,
): { content: string; blocks?: ToolResultContent[]; isError: boolean } {
  const budget: ImageBudget = { bytes: maxImageBytes };
  const items = (result.content ?? []).map((item) =>
    isKnownContent(item)
      ? convert(item, budget)
      : { type: 'text' as const, text: `[content of type ${String((item as { type?: unknown }).type)}, not shown]` },
  );
  if (items.length === 0 && result.structuredContent !== undefined)
    items.push({ type: 'text', text: JSON.stringify(result.structuredContent) });
  const text = items
    .filter((item) => item.type === 'text')
    .map((item) => item.text)
    .join('\n');
  const isError = result.isError === true;
  if (!items.some((item) => item.type === 'image')) return { content: text || '(no output)', isError };
  let left = maxTextChars;
  const blocks = items.map((item): ToolResultContent => {
    if (item.type !== 'text') return item;
    const kept = item.text.slice(0, Math.max(0, left));
    left -= kept.length;
    if (kept.length < item.text.length)
      return { type: 'text', text: `${kept}\n[... ${item.text.length - kept.length} more characters not shown]` };
    return { type: 'text', text: kept || '(empty)' };
  });
  return { content: text, blocks, isError };
}
