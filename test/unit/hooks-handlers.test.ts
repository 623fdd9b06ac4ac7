/** Hook handler types (command, http, prompt, agent): validation, defaults, deduplication, prompt text. */
import { describe, expect, it } from 'vitest';
import { parseHooksConfig } from '../../src/project/hooks-schema';
import { handlerTypesFor, hookLabel, hookTimeoutMs, type HookHandler } from '../../src/shared/policy/hook-handlers';
import { interpretHttpAnswer, promptHookText } from '../../src/shared/policy/hook-answers';
import { describeHooks, hooksFor, type HooksConfig } from '../../src/shared/policy/hooks';

const one = (event: string, hook: unknown) => parseHooksConfig({ [event]: [{ hooks: [hook] }] });

describe('parseHooksConfig: handler types', () => {
  it('keeps each of the four types with its options, and drops what is not acted on (if, shell, asyncRewake)', () => {
    const parsed = parseHooksConfig({
      PreToolUse: [
        {
          matcher: 'Bash',
          hooks: [
            {
              type: 'command',
              command: './check.sh',
              async: true,
              once: true,
              timeout: 5,
              statusMessage: 'Checking',
              shell: 'bash',
              if: 'Bash(rm *)',
            },
            {
              type: 'http',
              url: 'https://hooks.example.com/pre',
              headers: { Authorization: 'Bearer $TOKEN' },
              allowedEnvVars: ['TOKEN'],
              timeout: 3,
            },
            { type: 'prompt', prompt: 'Is this safe? $ARGUMENTS', model: 'haiku' },
            { type: 'agent', prompt: 'Check the tests exist. $ARGUMENTS', timeout: 120 },
          ],
        },
      ],
    });
    expect(parsed.problems).toEqual([]);
    expect(parsed.hooks?.PreToolUse?.[0]?.hooks).toEqual([
      { type: 'command', command: './check.sh', async: true, once: true, timeout: 5, statusMessage: 'Checking' },
      {
        type: 'http',
        url: 'https://hooks.example.com/pre',
        headers: { Authorization: 'Bearer $TOKEN' },
        allowedEnvVars: ['TOKEN'],
        timeout: 3,
      },
      { type: 'prompt', prompt: 'Is this safe? $ARGUMENTS', model: 'haiku' },
      { type: 'agent', prompt: 'Check the tests exist. $ARGUMENTS', timeout: 120 },
    ]);
  });

  it('drops bad handlers with what to fix', () => {
    const cases: Array<[string, unknown, RegExp]> = [
      [
        'PreToolUse',
        { type: 'mcp_tool', server: 's', tool: 't' },
        /type "mcp_tool" are not supported \(use "command", "http", "prompt", "agent"\)/,
      ],
      ['PreToolUse', { command: 'x' }, /a hook needs a type/],
      ['PreToolUse', { type: 'http', url: 'file:///etc/passwd' }, /url must be an http:\/\/ or https:\/\/ URL/],
      [
        'PreToolUse',
        { type: 'http', url: 'https://x.test', headers: { 'Bad Name': 'v' } },
        /header names must be HTTP tokens/,
      ],
      ['PreToolUse', { type: 'http', url: 'https://x.test', allowedEnvVars: ['$TOKEN'] }, /NAME, not \$NAME/],
      ['PreToolUse', { type: 'prompt', prompt: '   ' }, /prompt must not be empty/],
      ['PreToolUse', { type: 'prompt', prompt: 'x', async: true }, /async/],
      ['PreToolUse', { type: 'agent', prompt: 'x', timeout: 601 }, /at most 600 seconds/],
      ['SubagentStart', { type: 'prompt', prompt: 'x' }, /SubagentStart takes "command" and "http" hooks/],
      ['SubagentStart', { type: 'agent', prompt: 'x' }, /SubagentStart takes "command" and "http" hooks/],
    ];
    for (const [event, hook, problem] of cases) {
      const parsed = one(event, hook);
      expect(parsed.hooks, JSON.stringify(hook)).toBeUndefined();
      expect(parsed.problems, JSON.stringify(hook)).toEqual([expect.stringMatching(problem)]);
    }
  });

  it("takes Claude Code's handler types per event", () => {
    expect(handlerTypesFor('Stop')).toEqual(['command', 'http', 'prompt', 'agent']);
    expect(handlerTypesFor('SubagentStop')).toEqual(['command', 'http', 'prompt', 'agent']);
    expect(handlerTypesFor('SubagentStart')).toEqual(['command', 'http']);
    expect(handlerTypesFor('SessionStart')).toEqual(['command']);
  });
});

describe('handler defaults, labels and deduplication', () => {
  it("times out at Claude Code's defaults (command 600 s, prompt 30 s, agent 60 s) unless given", () => {
    expect(hookTimeoutMs({ type: 'command', command: 'x' })).toBe(600_000);
    expect(hookTimeoutMs({ type: 'http', url: 'https://x.test' })).toBe(600_000);
    expect(hookTimeoutMs({ type: 'prompt', prompt: 'x' })).toBe(30_000);
    expect(hookTimeoutMs({ type: 'agent', prompt: 'x' })).toBe(60_000);
    expect(hookTimeoutMs({ type: 'prompt', prompt: 'x', timeout: 2.5 })).toBe(2_500);
  });

  it('runs identical handlers once: commands by command, http by URL, prompts by prompt and model', () => {
    const hooks: HookHandler[] = [
      { type: 'command', command: 'a' },
      { type: 'command', command: 'a', timeout: 3 },
      { type: 'http', url: 'https://x.test/h', headers: { A: '1' } },
      { type: 'http', url: 'https://x.test/h' },
      { type: 'prompt', prompt: 'same' },
      { type: 'prompt', prompt: 'same' },
      { type: 'prompt', prompt: 'same', model: 'sonnet' },
      { type: 'agent', prompt: 'same' },
    ];
    const config: HooksConfig = { Stop: [{ hooks }] };
    expect(hooksFor(config, 'Stop', undefined).map(hookLabel)).toEqual([
      'a',
      'http https://x.test/h',
      'prompt "same"',
      'prompt "same"',
      'agent "same"',
    ]);
    expect(describeHooks(config)[0]).toContain('http https://x.test/h');
  });
});

describe('promptHookText', () => {
  it("puts the event's JSON in place of every $ARGUMENTS, taking $& and $' in the JSON literally", () => {
    const payload = { text: "a $& b $' c $1" };
    expect(promptHookText('Check $ARGUMENTS and again $ARGUMENTS', payload)).toBe(
      `Check ${JSON.stringify(payload)} and again ${JSON.stringify(payload)}`,
    );
    expect(promptHookText('No placeholder', payload)).toBe(`No placeholder\n\n${JSON.stringify(payload)}`);
  });
});

describe('interpretHttpAnswer', () => {
  it('plain text and empty 2xx bodies succeed; a 2xx block decision blocks; anything else is a non-blocking error', () => {
    expect(interpretHttpAnswer('PostToolUse', 'h', { type: 'response', status: 200, body: 'fine' })).toEqual({
      command: 'h',
      kind: 'success',
    });
    expect(
      interpretHttpAnswer('PostToolUse', 'h', {
        type: 'response',
        status: 201,
        body: '{"decision": "block", "reason": "lint failed"}',
      }),
    ).toMatchObject({ kind: 'success', blocked: true, reason: 'lint failed' });
    // A status alone never blocks (Claude Code): a 403 is an error the run goes past.
    expect(
      interpretHttpAnswer('PreToolUse', 'h', { type: 'response', status: 403, body: '{"decision": "block"}' }),
    ).toMatchObject({ kind: 'error', notice: expect.stringContaining('HTTP 403') });
  });
});
