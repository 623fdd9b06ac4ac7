import { randomBytes } from 'node:crypto';
import { Client } from '@temporalio/client';
import protobufs from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataConverter } from '../../src/codec/data-converter';
import { decodeHistoryPayloads } from '../../src/codec/decode-history';
import { UnknownPayloadKeyError } from '../../src/codec/errors';
import { readAgentTranscript } from '../../src/transcript/export';
import { textOf } from '../../src/shared/tools/tool-results';
import { createCodecAgentEnv, type CodecAgentEnv } from './codec-agent-env';
import { scenario } from '../helpers/agent-env';
import { agentNamed } from '../helpers/scripted-agents';

const secret = `sk-ant-api03-SECRET${randomBytes(12).toString('hex')}`;
const promptMarker = `PROMPT-MARKER-${randomBytes(6).toString('hex')}`;
const env = { SUBAGENTS_PAYLOAD_KEY: randomBytes(32).toString('base64'), SUBAGENTS_PAYLOAD_KEY_ID: 'it-key' };
const dataConverter = createDataConverter(env);
let agentEnv: CodecAgentEnv;
let previousApiKey: string | undefined;

beforeAll(async () => {
  // The worker process holds a real-looking API key in its environment, as in production.
  previousApiKey = process.env.ANTHROPIC_API_KEY;
  process.env.ANTHROPIC_API_KEY = secret;
  agentEnv = await createCodecAgentEnv({
    dataConverter,
    anthropicApiKey: secret,
    behaviour: scenario([
      agentNamed('codec-root', [
        // Tries to leak the key through a tool result, and produces a result large enough to be compressed.
        {
          toolUses: [
            {
              name: 'Bash',
              input: { command: 'echo "key=[$ANTHROPIC_API_KEY]"; env | sort; head -c 20000 /dev/zero | tr "\\0" a' },
            },
          ],
        },
        { text: 'CODEC-FINAL: {{last_tool_result}}' },
      ]),
    ]),
  });
});
afterAll(async () => {
  await agentEnv?.close();
  if (previousApiKey === undefined) delete process.env.ANTHROPIC_API_KEY;
  else process.env.ANTHROPIC_API_KEY = previousApiKey;
});

function contains(bytes: Uint8Array, text: string): boolean {
  return Buffer.from(bytes).includes(Buffer.from(text, 'utf8'));
}

describe('payload codec on a real Temporal server', () => {
  it('runs an agent whose stored history holds neither its prompt nor the API key in plain bytes', async () => {
    const handle = await agentEnv.agents.startAgent({
      prompt: `Please inspect the environment. ${promptMarker}`,
      name: 'codec-root',
      cwd: agentEnv.workspace,
      model: 'claude-test-tiny',
      permissionMode: 'bypassPermissions',
    });
    const result = await handle.result();
    expect(result.status).toBe('completed');
    expect(result.finalText).toContain('CODEC-FINAL');
    // The model server accepts only the secret key, so the worker really used it: it was there to leak.
    expect(
      agentEnv.modelServer.requests().filter((request) => request.path === '/v1/messages' && request.status === 200),
    ).toHaveLength(2);

    const history = await agentEnv.client.workflow.getHandle(handle.agentId).fetchHistory();
    const raw = protobufs.temporal.api.history.v1.History.encode(history).finish();
    expect(raw.byteLength).toBeGreaterThan(1000);
    expect(contains(raw, promptMarker)).toBe(false);
    expect(contains(raw, 'inspect the environment')).toBe(false);
    expect(contains(raw, 'CODEC-FINAL')).toBe(false);
    expect(contains(raw, secret)).toBe(false);
    // Activity summaries (the Bash command) and the static details (the prompt) are payloads too.
    expect(contains(raw, 'head -c 20000')).toBe(false);
    expect(contains(raw, 'binary/encrypted')).toBe(true);
    expect(contains(raw, 'it-key')).toBe(true);

    // Decoded with the key, the same history does hold the prompt and the tool output (so the search
    // above would have found them), and still never the key: Bash runs without it.
    const decoded = protobufs.temporal.api.history.v1.History.encode(
      await decodeHistoryPayloads(history, dataConverter.payloadCodecs),
    ).finish();
    expect(contains(decoded, promptMarker)).toBe(true);
    expect(contains(decoded, 'key=[]')).toBe(true);
    expect(contains(decoded, 'a'.repeat(1000))).toBe(true);
    expect(contains(decoded, 'head -c 20000')).toBe(true);
    expect(contains(decoded, secret)).toBe(false);

    // The agent's conversation, read through the codec by query, is intact.
    const messages = await handle.messages();
    expect(textOf(messages[0]!.content)).toContain(promptMarker);
    expect(JSON.stringify(messages)).toContain('key=[]');

    // The transcript export decodes the history's payloads (meta, model results) with the same codecs.
    const transcript = await readAgentTranscript(agentEnv.client, handle.agentId);
    expect(transcript.meta).toMatchObject({
      agentId: handle.agentId,
      agentType: 'general-purpose',
      model: 'claude-test-tiny',
      depth: 0,
    });
    expect(transcript.messages.map(({ message }) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(transcript.messages[3]!.timestampMs).toBeGreaterThan(transcript.messages[0]!.timestampMs);
  });

  it('cannot be read by a client without the key: decoding fails naming the key id', async () => {
    const handle = await agentEnv.agents.startAgent({
      prompt: 'short task',
      name: 'codec-root',
      cwd: agentEnv.workspace,
      model: 'claude-test-tiny',
      permissionMode: 'bypassPermissions',
    });
    await handle.result();
    const keyless = new Client({
      connection: agentEnv.temporal.client.connection,
      namespace: 'default',
      dataConverter: createDataConverter({}),
    });
    await expect(keyless.workflow.getHandle(handle.agentId).result()).rejects.toThrow(/key id "it-key"/);
    await expect(readAgentTranscript(keyless, handle.agentId)).rejects.toThrow(UnknownPayloadKeyError);
  });
});
