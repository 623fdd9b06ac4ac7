/** Prompt hooks through the real SDK against the local model server: what is sent, the model used, the answer read. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { clientFor } from '../../model-server/helpers';
import { askPromptHook } from '../../../src/activities/hooks/prompt-hook';
import { interpretPromptAnswer } from '../../../src/shared/policy/hook-answers';
import { resolveModelAlias } from '../../../src/shared/agents/models';
import { startModelServer, type ModelServer } from '../../../src/model-server/server';
import type { Turn } from '../../../src/model-server/scenario-schema';

let model: ModelServer;
beforeAll(async () => {
  model = await startModelServer({ port: 0, behaviour: { kind: 'echo' } });
});
afterAll(async () => {
  await model?.close();
});
beforeEach(() => model.clearRequests());

const answers = (turns: Turn[]) =>
  model.setBehaviour({ kind: 'scripted', scenario: { agents: [{ match: { agentType: 'PromptHook' }, turns }] } });
const payload = { hook_event_name: 'Stop', last_assistant_message: 'All done: $& and $1 stay as written' };
/** The bodies of the messages requests the model server received. */
const bodies = () =>
  model
    .requests()
    .filter((request) => request.path.startsWith('/v1/messages'))
    .map((request) => JSON.parse(request.rawBody) as { model: string; system: unknown; messages: unknown });
const options = () => ({ defaultModel: 'haiku', agentId: 'agent-7', signal: new AbortController().signal });

describe('askPromptHook', () => {
  it("sends the prompt with $ARGUMENTS replaced by the event's JSON, to the small model, and reads ok:false as a block", async () => {
    answers([{ text: '```json\n{"ok": false, "reason": "the tests were not run"}\n```' }]);
    const call = await askPromptHook(
      clientFor(model),
      { type: 'prompt', prompt: 'Did the agent finish? $ARGUMENTS' },
      payload,
      options(),
    );
    expect(call).toMatchObject({ answer: expect.stringContaining('"ok": false'), model: resolveModelAlias('haiku') });
    const [request] = bodies();
    expect(request!.model).toBe(resolveModelAlias('haiku'));
    const user = JSON.stringify(request!.messages);
    expect(user).toContain(JSON.stringify(JSON.stringify(payload)).slice(1, -1));
    expect(JSON.stringify(request!.system)).toContain('{\\"ok\\": true}');
    expect('answer' in call && interpretPromptAnswer('Stop', 'p', call.answer)).toMatchObject({
      kind: 'blocking',
      blocked: true,
      reason: 'the tests were not run',
    });
  });

  it("uses the hook's model when it names one, and appends the JSON when the prompt has no $ARGUMENTS", async () => {
    answers([{ text: '{"ok": true}' }]);
    const call = await askPromptHook(
      clientFor(model),
      { type: 'prompt', prompt: 'Check it.', model: 'sonnet' },
      payload,
      options(),
    );
    expect(call.model).toBe(resolveModelAlias('sonnet'));
    expect(bodies()[0]!.model).toBe(resolveModelAlias('sonnet'));
    expect(JSON.stringify(bodies()[0]!.messages)).toContain('Check it.\\n\\n{');
    expect('answer' in call && interpretPromptAnswer('Stop', 'p', call.answer)).toEqual({
      command: 'p',
      kind: 'success',
    });
    expect('usage' in call && call.usage.outputTokens).toBeGreaterThan(0);
  });
});

describe('interpretPromptAnswer', () => {
  it('a PreToolUse ok:false denies; an answer without a boolean ok is a non-blocking error', () => {
    expect(interpretPromptAnswer('PreToolUse', 'p', '{"ok": false, "reason": "no"}')).toMatchObject({
      permission: 'deny',
      reason: 'no',
    });
    expect(interpretPromptAnswer('PreToolUse', 'p', '{"ok": false}')).toMatchObject({
      permission: 'deny',
      reason: expect.stringContaining('does not hold'),
    });
    for (const text of ['', 'yes', '{"ok": "false"}', '{"decision": "block"}', '{ok: false}'])
      expect(interpretPromptAnswer('PreToolUse', 'p', text)).toMatchObject({ kind: 'error' });
  });
});
