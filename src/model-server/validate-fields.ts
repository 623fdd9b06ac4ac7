/** Field-level validation of a request body, with the API's pydantic-style `path: problem` messages. */
import { invalidRequest } from './api-error';
import type {
  CacheControlParam,
  MessagesRequest,
  RequestBlock,
  RequestMessage,
  ThinkingParam,
  ToolChoiceParam,
  ToolParam,
} from './request-types';
import { isRecord } from './tokens';
import { type EffortLevel, effortLevels, isEffortLevel, modelEffortLevels } from '../shared/agents/effort';

const messageBlockTypes = [
  'text',
  'image',
  'document',
  'search_result',
  'tool_use',
  'tool_result',
  'thinking',
  'redacted_thinking',
  'server_tool_use',
  'web_search_tool_result',
  'web_fetch_tool_result',
  'code_execution_tool_result',
  'container_upload',
];
/** Top-level fields the API accepts (SDK v1.14 params, plus sampling knobs older models still take). */
const knownFields = new Set([
  'model',
  'max_tokens',
  'messages',
  'system',
  'tools',
  'tool_choice',
  'stop_sequences',
  'stream',
  'thinking',
  'metadata',
  'cache_control',
  'container',
  'diagnostics',
  'inference_geo',
  'output_config',
  'service_tier',
  'speed',
  'user_profile_id',
  'workspace_id',
  'temperature',
  'top_p',
  'top_k',
  'context_management',
  'mcp_servers',
]);
const thinkingBudgetDocs =
  'https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size';

function fail(path: string, problem: string): never {
  throw invalidRequest(path ? `${path}: ${problem}` : problem);
}

function requireString(value: unknown, path: string): string {
  if (value === undefined) fail(path, 'Field required');
  if (typeof value !== 'string') fail(path, 'Input should be a valid string');
  return value;
}

function requireRecord(value: unknown, path: string): Record<string, unknown> {
  if (value === undefined) fail(path, 'Field required');
  if (!isRecord(value)) fail(path, 'Input should be a valid dictionary');
  return value;
}

function checkCacheControl(value: unknown, path: string): CacheControlParam | undefined {
  if (value === undefined || value === null) return undefined;
  const record = requireRecord(value, path);
  if (record.type !== 'ephemeral') fail(`${path}.type`, "Input should be 'ephemeral'");
  const ttl = record.ttl ?? '5m';
  if (ttl !== '5m' && ttl !== '1h') fail(`${path}.ttl`, "Input should be '5m' or '1h'");
  return { type: 'ephemeral', ttl };
}

function checkTextBlock(block: Record<string, unknown>, path: string): void {
  requireString(block.text, `${path}.text`);
  checkCacheControl(block.cache_control, `${path}.cache_control`);
}

function checkMessageBlock(value: unknown, path: string): RequestBlock {
  const block = requireRecord(value, path);
  const type = requireString(block.type, `${path}.type`);
  if (!messageBlockTypes.includes(type)) {
    const expected = messageBlockTypes.map((name) => `'${name}'`).join(', ');
    fail(path, `Input tag '${type}' found using 'type' does not match any of the expected tags: ${expected}`);
  }
  switch (type) {
    case 'text':
      checkTextBlock(block, path);
      break;
    case 'tool_use':
      requireString(block.id, `${path}.id`);
      requireString(block.name, `${path}.name`);
      requireRecord(block.input, `${path}.input`);
      break;
    case 'tool_result': {
      requireString(block.tool_use_id, `${path}.tool_use_id`);
      const content = block.content;
      if (content !== undefined && typeof content !== 'string') {
        if (!Array.isArray(content)) fail(`${path}.content`, 'Input should be a valid list');
        content.forEach((nested: unknown, index) => checkMessageBlock(nested, `${path}.content.${index}`));
      }
      break;
    }
    case 'thinking':
    case 'redacted_thinking':
      // The API rejects cache_control here as an unknown field of the thinking model.
      if ('cache_control' in block) fail(`${path}.${type}.cache_control`, 'Extra inputs are not permitted');
      if (type === 'thinking') {
        requireString(block.thinking, `${path}.thinking`);
        requireString(block.signature, `${path}.signature`);
      } else {
        requireString(block.data, `${path}.data`);
      }
      return block as RequestBlock;
    default:
      break;
  }
  checkCacheControl(block.cache_control, `${path}.cache_control`);
  return block as RequestBlock;
}

function checkMessage(value: unknown, path: string): RequestMessage {
  const message = requireRecord(value, path);
  const extra = Object.keys(message).find((key) => key !== 'role' && key !== 'content');
  if (extra !== undefined) fail(`${path}.${extra}`, 'Extra inputs are not permitted');
  if (message.role === undefined) fail(`${path}.role`, 'Field required');
  if (message.role !== 'user' && message.role !== 'assistant')
    fail(`${path}.role`, "Input should be 'user' or 'assistant'");
  const content = message.content;
  if (content === undefined) fail(`${path}.content`, 'Field required');
  // "" is an empty message (its own 400), not an empty text block.
  if (typeof content === 'string')
    return { role: message.role, content: content === '' ? [] : [{ type: 'text', text: content }] };
  if (!Array.isArray(content)) fail(`${path}.content`, 'Input should be a valid list');
  return {
    role: message.role,
    content: content.map((block: unknown, index) => checkMessageBlock(block, `${path}.content.${index}`)),
  };
}

function checkSystem(value: unknown): RequestBlock[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return value === '' ? [] : [{ type: 'text', text: value }];
  if (!Array.isArray(value)) fail('system', 'Input should be a valid list');
  return value.map((item: unknown, index) => {
    const block = requireRecord(item, `system.${index}`);
    if (block.type !== 'text') fail(`system.${index}.type`, "Input should be 'text'");
    checkTextBlock(block, `system.${index}`);
    if (block.text === '') fail('system', 'text content blocks must be non-empty');
    return block as RequestBlock;
  });
}

function checkTools(value: unknown): ToolParam[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) fail('tools', 'Input should be a valid list');
  const tools = value.map((item: unknown, index) => {
    const tool = requireRecord(item, `tools.${index}`);
    const path = `tools.${index}`;
    requireString(tool.name, `${path}.name`);
    // Server tools (`web_search_20250305`, …) carry a versioned type and no schema.
    if (tool.type === undefined || tool.type === 'custom') requireRecord(tool.input_schema, `${path}.input_schema`);
    checkCacheControl(tool.cache_control, `${path}.cache_control`);
    return tool as ToolParam;
  });
  if (new Set(tools.map((tool) => tool.name)).size !== tools.length) fail('tools', 'Tool names must be unique.');
  return tools;
}

function checkThinking(value: unknown, maxTokens: number | undefined): ThinkingParam | undefined {
  if (value === undefined || value === null) return undefined;
  const thinking = requireRecord(value, 'thinking');
  if (thinking.type === 'adaptive' || thinking.type === 'disabled') return { type: thinking.type };
  if (thinking.type !== 'enabled') fail('thinking.type', "Input should be 'enabled', 'adaptive' or 'disabled'");
  const budget = thinking.budget_tokens;
  if (budget === undefined) fail('thinking.enabled.budget_tokens', 'Field required');
  if (typeof budget !== 'number' || !Number.isInteger(budget))
    fail('thinking.enabled.budget_tokens', 'Input should be a valid integer');
  if (budget < 1024) fail('thinking.enabled.budget_tokens', 'Input should be greater than or equal to 1024');
  if (maxTokens !== undefined && maxTokens <= budget) {
    fail(
      '',
      `\`max_tokens\` must be greater than \`thinking.budget_tokens\`. Please consult our documentation at ${thinkingBudgetDocs}`,
    );
  }
  return { type: 'enabled', budget_tokens: budget };
}

/** `output_config`: `effort` must be a level the model takes (src/shared/agents/effort.ts); `format` passes unchecked. */
function checkOutputConfig(value: unknown, model: string): EffortLevel | undefined {
  if (value === undefined || value === null) return undefined;
  const config = requireRecord(value, 'output_config');
  const extra = Object.keys(config).find((key) => key !== 'effort' && key !== 'format');
  if (extra !== undefined) fail(`output_config.${extra}`, 'Extra inputs are not permitted');
  if (config.effort === undefined || config.effort === null) return undefined;
  if (!isEffortLevel(config.effort))
    fail('output_config.effort', `Input should be ${effortLevels.map((level) => `'${level}'`).join(', ')}`);
  const levels = modelEffortLevels(model);
  if (levels !== undefined && !levels.includes(config.effort)) {
    const supported = levels.length === 0 ? 'none (leave output_config.effort out)' : levels.join(', ');
    fail(
      'output_config.effort',
      `'${config.effort}' is not supported by model ${model}; supported values: ${supported}`,
    );
  }
  return config.effort;
}

function checkToolChoice(value: unknown): ToolChoiceParam | undefined {
  if (value === undefined || value === null) return undefined;
  const choice = requireRecord(value, 'tool_choice');
  if (choice.type !== 'auto' && choice.type !== 'any' && choice.type !== 'tool' && choice.type !== 'none') {
    fail('tool_choice.type', "Input should be 'auto', 'any', 'tool' or 'none'");
  }
  if (choice.type === 'tool') return { type: 'tool', name: requireString(choice.name, 'tool_choice.tool.name') };
  return { type: choice.type };
}

/** Validates a parsed body; `requireMaxTokens` is false for count_tokens. Throws ApiError (400). */
export function validateFields(body: unknown, requireMaxTokens: boolean): MessagesRequest {
  if (!isRecord(body)) fail('', 'Input should be a valid dictionary');
  const extra = Object.keys(body).find((key) => !knownFields.has(key));
  if (extra !== undefined) fail(extra, 'Extra inputs are not permitted');
  let maxTokens: number | undefined;
  if (requireMaxTokens || body.max_tokens !== undefined) {
    if (body.max_tokens === undefined) fail('max_tokens', 'Field required');
    if (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens))
      fail('max_tokens', 'Input should be a valid integer');
    if (body.max_tokens < 1) fail('max_tokens', 'Input should be greater than or equal to 1');
    maxTokens = body.max_tokens;
  }
  if (body.messages === undefined) fail('messages', 'Field required');
  if (!Array.isArray(body.messages)) fail('messages', 'Input should be a valid list');
  const model = requireString(body.model, 'model');
  const messages = body.messages.map((message: unknown, index) => checkMessage(message, `messages.${index}`));
  if (body.stream !== undefined && typeof body.stream !== 'boolean') fail('stream', 'Input should be a valid boolean');
  const request: MessagesRequest = {
    model,
    stream: body.stream === true,
    system: checkSystem(body.system),
    tools: checkTools(body.tools),
    messages,
  };
  if (maxTokens !== undefined) request.maxTokens = maxTokens;
  const cacheControl = checkCacheControl(body.cache_control, 'cache_control');
  if (cacheControl) request.cacheControl = cacheControl;
  const toolChoice = checkToolChoice(body.tool_choice);
  if (toolChoice) request.toolChoice = toolChoice;
  const thinking = checkThinking(body.thinking, maxTokens);
  if (thinking) request.thinking = thinking;
  const effort = checkOutputConfig(body.output_config, model);
  if (effort) request.effort = effort;
  return request;
}
