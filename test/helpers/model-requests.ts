/** The model requests a test's agents sent, parsed, by agent. */
import type { ModelServer, RecordedRequest } from '../../src/model-server/server';
import { modelCallsOf } from './agent-env';

/** A content block of a request message, with the fields tests look at. */
export interface ContentBlock {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
  cache_control?: unknown;
}

/** A parsed Messages API request body. */
export interface RequestBody {
  system: { type: string; text: string; cache_control?: unknown }[];
  tools?: { name: string }[];
  messages: { role: string; content: string | ContentBlock[] }[];
}

/** Every model request one agent sent so far, answered or not, parsed. */
export function requestsOf(modelServer: ModelServer, agentId: string): RequestBody[] {
  return modelCallsOf(modelServer, agentId).map((request) => JSON.parse(request.rawBody) as RequestBody);
}

/** The model requests of one agent that the model server answered with 200, as recorded. */
export function answeredCallsOf(modelServer: ModelServer, agentId: string): RecordedRequest[] {
  return modelCallsOf(modelServer, agentId).filter((request) => request.status === 200);
}

/** The model requests of one agent that the model server answered with 200, parsed. */
export function answeredRequestsOf(modelServer: ModelServer, agentId: string): RequestBody[] {
  return answeredCallsOf(modelServer, agentId).map((request) => JSON.parse(request.rawBody) as RequestBody);
}

/** The blocks of the last message of a request. */
export function lastMessageBlocks(body: RequestBody): ContentBlock[] {
  const last = body.messages[body.messages.length - 1]!;
  return typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
}
