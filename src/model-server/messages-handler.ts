/** `POST /v1/messages` and `POST /v1/messages/count_tokens`. */
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError, invalidRequest } from './api-error';
import { replyFor } from './behaviour';
import { layoutPrompt, type PromptLayout } from './cache-layout';
import { buildContext } from './conversation';
import { defaultSlowFirstByteMs, faultError } from './faults';
import { noteStatus, sendApiError, sendJson, type Exchange } from './http-io';
import { newMessageId } from './ids';
import { findServerModel, type ServerModel } from './models';
import { buildMessage, buildUsage, type ApiMessage } from './reply';
import type { MessagesRequest } from './request-types';
import { serveEvent, serveInput, serveWhole, type ServedUsage } from './served';
import type { ServerState } from './server-state';
import { formatEvent, startEventStream, writeMessageStream, type SseEvent } from './sse';
import { validateConversation, normalizeRoles } from './validate-conversation';
import { validateFields } from './validate-fields';

/** The key from `x-api-key` or `Authorization: Bearer`; it names the cache workspace. */
function authenticate(state: ServerState, headers: Record<string, string>): string {
  const bearer = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? '')?.[1]?.trim();
  const key = headers['x-api-key'] || bearer;
  if (!key || (state.apiKey !== undefined && key !== state.apiKey)) {
    throw new ApiError(401, 'authentication_error', 'invalid x-api-key');
  }
  return key;
}

interface ValidRequest {
  workspace: string;
  request: MessagesRequest;
  model: ServerModel;
  layout: PromptLayout;
}

/** Auth, JSON, fields, model, conversation rules, breakpoints, in that order. Throws ApiError. */
function admit(state: ServerState, exchange: Exchange, isCountTokens: boolean): ValidRequest {
  const workspace = authenticate(state, exchange.headers);
  let body: unknown;
  try {
    body = JSON.parse(exchange.body.toString('utf8'));
  } catch {
    throw invalidRequest(
      'There was an error parsing the body of your request. Please make sure the body is valid JSON.',
    );
  }
  const request = validateFields(body, !isCountTokens);
  const model = findServerModel(request.model);
  if (!model) throw new ApiError(404, 'not_found_error', `model: ${request.model}`);
  request.messages = normalizeRoles(request.messages, state.strictRoles);
  validateConversation(request.messages);
  const layout = layoutPrompt(request);
  // The API's wording; count_tokens counts any length.
  if (!isCountTokens && layout.totalTokens > model.contextWindow) {
    throw invalidRequest(`prompt is too long: ${layout.totalTokens} tokens > ${model.contextWindow} maximum`);
  }
  return { workspace, request, model, layout };
}

export function handleCountTokens(state: ServerState, exchange: Exchange): void {
  const { layout } = admit(state, exchange, true);
  sendJson(exchange, 200, JSON.stringify({ input_tokens: layout.totalTokens }));
}

/** A JSON body cut off half way: headers promise the whole length, then the socket goes. */
async function sendCutJson(exchange: Exchange, message: ApiMessage, served: ServedUsage | undefined): Promise<void> {
  const body = Buffer.from(JSON.stringify(message));
  noteStatus(exchange, 200);
  exchange.response.writeHead(200, {
    'content-type': 'application/json',
    'content-length': String(body.length),
    'request-id': exchange.requestId,
  });
  exchange.response.write(body.subarray(0, Math.floor(body.length / 2)));
  // The client can read no output from half a body; the input is billed as for a cut stream.
  if (served) serveInput(served, message.usage);
  await sleep(25);
  exchange.response.socket?.destroy();
  exchange.response.destroy();
}

function sendOverloadedEvent(exchange: Exchange): void {
  noteStatus(exchange, 200);
  startEventStream(exchange.response, exchange.requestId);
  exchange.response.end(
    formatEvent({
      event: 'error',
      data: {
        type: 'error',
        error: { type: 'overloaded_error', message: 'Overloaded' },
        request_id: exchange.requestId,
      },
    }),
  );
}

export async function handleMessages(state: ServerState, exchange: Exchange): Promise<void> {
  const { workspace, request, model, layout } = admit(state, exchange, false);
  const context = buildContext(request, exchange.headers);
  const outcome = replyFor(state.behaviour, context);
  if (exchange.record) {
    exchange.record.agentKey = outcome.agentKey;
    exchange.record.turnIndex = outcome.turnIndex;
    if (request.effort) exchange.record.effort = request.effort;
  }
  // Looked up at request start: a parallel request that has not started responding yet is not readable.
  const accounting = state.cache.account({
    model: model.id,
    workspace,
    layout,
    minimumTokens: model.cacheMinimumTokens,
    startedAt: exchange.startedAt,
  });

  const fault = state.faults.take({ ...context, agentKey: outcome.agentKey }, outcome.fault);
  let cut = false;
  if (fault) {
    const error = faultError(fault);
    if (error) return sendApiError(exchange, error);
    if (fault.kind === 'overloaded-sse') {
      return request.stream
        ? sendOverloadedEvent(exchange)
        : sendApiError(exchange, new ApiError(529, 'overloaded_error', 'Overloaded'));
    }
    if (fault.kind === 'slow-first-byte') await sleep(fault.delayMs ?? defaultSlowFirstByteMs);
    cut = fault.kind === 'stream-cut';
  }
  if (outcome.delayMs) await sleep(outcome.delayMs);
  if (exchange.response.destroyed) return;

  const usage = buildUsage(accounting, outcome.reply.content);
  if (exchange.record) exchange.record.usage = usage;
  const message = buildMessage(newMessageId(), request.model, outcome.reply, usage);
  state.cache.commit(accounting, exchange.startedAt);
  const served = exchange.record?.served;
  if (request.stream) {
    noteStatus(exchange, 200);
    startEventStream(exchange.response, exchange.requestId);
    await writeMessageStream(exchange.response, message, {
      cut,
      ...(outcome.eventDelayMs ? { eventDelayMs: outcome.eventDelayMs } : {}),
      ...(outcome.stallAfterEvents ? { stallAfterEvents: outcome.stallAfterEvents } : {}),
      ...(served ? { onWritten: (event: SseEvent) => serveEvent(served, event, usage) } : {}),
    });
  } else if (cut) {
    await sendCutJson(exchange, message, served);
  } else {
    sendJson(exchange, 200, JSON.stringify(message));
    if (served && exchange.response.headersSent) serveWhole(served, usage);
  }
}
