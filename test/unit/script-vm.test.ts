// The orchestration-script interpreter (src/workflows/scripts/vm): QuickJS run in plain Node against a real host.
import { describe, expect, it } from 'vitest';
import { scriptLimits } from '../../src/shared/scripts/script-run';
import { decodeBase64 } from '../../src/workflows/scripts/vm/base64';
import { runScriptInVm, type ScriptHost, type ScriptOutcome } from '../../src/workflows/scripts/vm/script-vm';

/** A host that answers from `answer` after `delay` microtask turns, and records every call in order. */
class RecordingHost implements ScriptHost {
  readonly calls: string[] = [];
  spent = 0;
  private resolvers: (() => void)[] = [];

  constructor(
    private readonly answer: (prompt: string, options: Record<string, unknown>) => unknown = (prompt) =>
      `done:${prompt}`,
    readonly budgetTotal: number | null = null,
    private readonly manual = false,
  ) {}

  async agent(prompt: string, options: Record<string, unknown>): Promise<unknown> {
    this.calls.push(`agent ${prompt} ${JSON.stringify(options)}`);
    if (this.manual) await new Promise<void>((resolve) => this.resolvers.push(resolve));
    this.calls.push(`answer ${prompt}`);
    return this.answer(prompt, options);
  }
  async workflow(target: unknown, args: unknown): Promise<unknown> {
    this.calls.push(`workflow ${JSON.stringify(target)} ${JSON.stringify(args)}`);
    return { ran: target, args };
  }
  log(text: string): void {
    this.calls.push(`log ${text}`);
  }
  phase(title: string): void {
    this.calls.push(`phase ${title}`);
  }
  budgetSpent(): number {
    return this.spent;
  }
  /** Answers the oldest waiting agent() call (manual hosts). */
  release(): void {
    this.resolvers.shift()?.();
  }
}

const run = (body: string, args?: unknown, host: ScriptHost = new RecordingHost(), nested = false) =>
  runScriptInVm(body, args, host, { nested });

async function value(body: string, args?: unknown, host?: ScriptHost): Promise<unknown> {
  const outcome = await run(body, args, host);
  if (!outcome.ok) throw new Error(`${outcome.kind}: ${outcome.error}`);
  return outcome.value;
}

function failure(outcome: ScriptOutcome): { kind: string; error: string } {
  if (outcome.ok) throw new Error(`expected a failure, got ${JSON.stringify(outcome.value)}`);
  return { kind: outcome.kind, error: outcome.error };
}

describe('runScriptInVm: the script API', () => {
  it('runs top-level await and return, gives args (undefined when omitted) and agent() answers', async () => {
    const host = new RecordingHost((prompt, options) => ({ prompt, label: options.label ?? null }));
    expect(await value(`const a = await agent('hi', { label: 'L' }); return { a, args };`, { n: 1 }, host)).toEqual({
      a: { prompt: 'hi', label: 'L' },
      args: { n: 1 },
    });
    expect(host.calls).toEqual(['agent hi {"label":"L"}', 'answer hi']);
    expect(await value('return typeof args')).toBe('undefined');
    expect(await value('log("no return")')).toBeNull();
  });

  it('agent() checks its prompt and options, and a host rejection is an Error in the script', async () => {
    const host = new RecordingHost(() => {
      throw new Error('agent failed: rate limited');
    });
    expect(
      await value(`try { await agent('x') } catch (e) { return [e instanceof Error, e.message] }`, {}, host),
    ).toEqual([true, 'agent failed: rate limited']);
    const refusal = async (call: string) =>
      value(`try { await ${call}; return 'accepted' } catch (e) { return e.message }`, undefined, host);
    expect(await refusal(`agent('')`)).toMatch(/non-empty prompt string/);
    expect(await refusal(`agent(42)`)).toMatch(/non-empty prompt string/);
    expect(await refusal(`agent('x', [1])`)).toMatch(/plain object/);
    expect(await refusal(`agent('x', new Map())`)).toMatch(/plain object/);
    expect(await refusal(`agent('x', { f: () => 1 })`)).toMatch(/options must be JSON.*"f" is a function/);
    expect(await refusal(`agent('x', { n: 1n })`)).toMatch(/options must be JSON/);
    expect(await refusal(`agent('x', { big: 'é'.repeat(${scriptLimits.maxAgentOptionsBytes / 2}) })`)).toMatch(
      /over 65536 bytes/,
    );
    expect(await refusal(`agent('x'.repeat(${scriptLimits.maxPromptChars + 1}))`)).toMatch(/the limit is 100000/);
    expect(host.calls).toEqual(['agent x {}', 'answer x']);
  });

  it('parallel() is a barrier that never rejects: a throwing thunk or a rejected promise gives null, in order', async () => {
    const host = new RecordingHost((prompt) => {
      if (prompt === 'bad') throw new Error('no');
      return prompt.toUpperCase();
    });
    expect(
      await value(
        `return await parallel([() => agent('a'), () => { throw new Error('sync') }, () => agent('bad'), agent('c'), 7, () => 'plain'])`,
        undefined,
        host,
      ),
    ).toEqual(['A', null, null, 'C', 7, 'plain']);
    expect(failure(await run(`await parallel(Array.from({ length: 4097 }, () => () => 1))`)).error).toMatch(
      /parallel\(\) takes at most 4096 items, got 4097/,
    );
    expect(await value(`return (await parallel(Array.from({ length: 4096 }, (_, i) => () => i))).length`)).toBe(4096);
    expect(failure(await run(`await parallel('abc')`)).error).toMatch(/takes an array/);
  });

  it('pipeline() moves each item through the stages with no barrier; a throwing stage drops only that item', async () => {
    const host = new RecordingHost(undefined, null, true);
    const outcome = run(
      `return await pipeline(['A', 'B', 'C'],
         (item) => item === 'C' ? Promise.reject(new Error('stage 1 fails')) : agent('1' + item),
         async (previous, item, index) => { await agent('2' + item); return [previous, item, index] },
         (previous) => previous.concat('end'))`,
      undefined,
      host,
    );
    // Only stage 1 of A and B is running; finishing A's lets A's stage 2 start while B's stage 1 still waits.
    await until(() => host.calls.length === 2);
    host.release();
    await until(() => host.calls.includes('agent 2A {}'));
    expect(host.calls).toEqual(['agent 1A {}', 'agent 1B {}', 'answer 1A', 'agent 2A {}']);
    host.release();
    host.release();
    await until(() => host.calls.includes('agent 2B {}'));
    host.release();
    expect(await outcome).toEqual({
      ok: true,
      value: [['done:1A', 'A', 0, 'end'], ['done:1B', 'B', 1, 'end'], null],
    });
    expect(
      await value(
        `return await pipeline([1, 2], (x) => { if (x === 1) throw new Error('x'); return null }, (y) => 'later ' + y)`,
      ),
    ).toEqual([null, 'later null']);
    expect(failure(await run(`await pipeline(new Array(4097).fill(0), (x) => x)`)).error).toMatch(/at most 4096 items/);
    expect(failure(await run(`await pipeline([1], 'not a function')`)).error).toMatch(/stage 1 is not a function/);
  });

  it('phase(), log(), console.log and budget reach the host; budget.remaining() is Infinity without a total', async () => {
    const host = new RecordingHost(undefined, 1000);
    host.spent = 250;
    expect(
      await value(
        `phase('Review'); log({ a: 1 }); console.log('two', { b: 2 }); log('x'.repeat(5000)); return [budget.total, budget.spent(), budget.remaining()]`,
        undefined,
        host,
      ),
    ).toEqual([1000, 250, 750]);
    expect(host.calls.slice(0, 3)).toEqual(['phase Review', 'log [object Object]', 'log two {"b":2}']);
    expect(host.calls[3]).toHaveLength('log '.length + scriptLimits.maxLogChars);
    host.spent = 5000;
    expect(await value('return budget.remaining()', undefined, host)).toBe(0);
    expect(await value('return budget.remaining() === Infinity && budget.total === null')).toBe(true);
  });

  it('workflow() reaches the host with its target and args, and is refused in a nested run', async () => {
    const host = new RecordingHost();
    expect(await value(`return await workflow('triage', { depth: 2 })`, undefined, host)).toEqual({
      ran: 'triage',
      args: { depth: 2 },
    });
    expect(host.calls).toEqual(['workflow "triage" {"depth":2}']);
    const nested = new RecordingHost();
    expect(failure(await run(`await workflow('triage')`, undefined, nested, true))).toEqual({
      kind: 'thrown',
      error: expect.stringMatching(/workflow\(\) nests one level only/),
    });
    expect(nested.calls).toEqual([]);
  });

  it('the API globals cannot be replaced (strict mode: assigning throws)', async () => {
    expect(failure(await run(`agent = () => 'fake'`)).error).toMatch(/TypeError/);
    expect(await value(`try { globalThis.parallel = 1 } catch {} return typeof parallel`)).toBe('function');
  });

  it('results must be JSON: a function, a cycle or an oversized result is a result error', async () => {
    expect(failure(await run('return () => 1'))).toMatchObject({ kind: 'result' });
    expect(failure(await run('const a = {}; a.self = a; return a'))).toMatchObject({ kind: 'result' });
    expect(failure(await run(`return { s: Symbol('x') }`))).toMatchObject({ kind: 'result' });
    expect(failure(await run(`return 'x'.repeat(${scriptLimits.maxResultBytes + 1})`))).toMatchObject({
      kind: 'result',
      error: expect.stringMatching(/over 262144 bytes/),
    });
    expect(await value(`return { d: new Date(0), n: [1, 'a', null, true] }`)).toEqual({
      d: '1970-01-01T00:00:00.000Z',
      n: [1, 'a', null, true],
    });
  });

  it('reports syntax errors and thrown errors with the script line', async () => {
    expect(failure(await run('const a = 1;\nreturn a +'))).toEqual({
      kind: 'syntax',
      error: expect.stringMatching(/^SyntaxError: .*\(line 3\)$/),
    });
    expect(failure(await run('const a = 1;\n\nthrow new RangeError("bad " + a)'))).toEqual({
      kind: 'thrown',
      error: 'RangeError: bad 1 (line 3)',
    });
    expect(failure(await run('throw { code: 7 }'))).toEqual({
      kind: 'thrown',
      error: 'a non-Error value was thrown: {"code":7}',
    });
  });
});

describe('runScriptInVm: isolation (each probe must fail)', () => {
  const refused = async (body: string, pattern: RegExp) => {
    const outcome = failure(await run(body));
    expect(outcome.error, body).toMatch(pattern);
  };

  it('the clock and randomness throw, saying why; a Date from a value works', async () => {
    const why = /would make the run impossible to resume; pass times in args/;
    await refused('Date.now()', why);
    await refused('Math.random()', why);
    await refused('new Date()', why);
    await refused('Date()', why);
    await refused('new (new Date(0).constructor)()', why);
    await refused('class D extends Date {}; new D()', why);
    expect(
      await value(`return [new Date(86400000).toISOString(), Date.UTC(2026, 0, 1), new Date(0) instanceof Date]`),
    ).toEqual(['1970-01-02T00:00:00.000Z', Date.UTC(2026, 0, 1), true]);
  });

  it('computes dates in UTC whatever the time zone of the worker (a replay elsewhere computes the same)', async () => {
    const body =
      `const d = new Date(2026, 0, 1, 10, 30);\n` +
      `return [d.toISOString(), d.getHours(), d.getTimezoneOffset(), new Date('2026-07-01T08:00').getHours(), ` +
      `Date.parse('2026-07-01T08:00'), d.toString(), new Date(0).toLocaleDateString()];`;
    const saved = process.env.TZ;
    const answers: unknown[] = [];
    try {
      for (const zone of ['America/New_York', 'Asia/Kolkata', 'UTC']) {
        process.env.TZ = zone;
        answers.push(await value(body));
      }
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
    expect(answers[0]).toEqual([
      '2026-01-01T10:30:00.000Z',
      10,
      0,
      8,
      Date.UTC(2026, 6, 1, 8),
      'Thu, 01 Jan 2026 10:30:00 GMT',
      '1970-01-01',
    ]);
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
  });

  it('no host, module or Node capability is reachable', async () => {
    await refused(`require('fs')`, /ReferenceError: 'require' is not defined/);
    await refused('process.env', /ReferenceError: 'process' is not defined/);
    await refused(`await fetch('http://127.0.0.1:9')`, /ReferenceError: 'fetch' is not defined/);
    await refused(`await import('fs')`, /could not load module 'fs'/);
    await refused(`import fs from 'fs'; return 1`, /SyntaxError/);
    await refused('setTimeout(() => 1, 0)', /ReferenceError: 'setTimeout' is not defined/);
    await refused('__TEMPORAL__.api', /ReferenceError: '__TEMPORAL__' is not defined/);
    await refused('new WebAssembly.Memory({ initial: 1 })', /ReferenceError: 'WebAssembly' is not defined/);
    await refused('new WeakRef({})', /ReferenceError: 'WeakRef' is not defined/);
    await refused('new FinalizationRegistry(() => 1)', /ReferenceError: 'FinalizationRegistry' is not defined/);
  });

  it("the global object holds only ECMAScript built-ins and the script API; Function('return this') reaches only it", async () => {
    const names = (await value('return Object.getOwnPropertyNames(globalThis).sort()')) as string[];
    const api = ['agent', 'args', 'budget', 'console', 'log', 'parallel', 'phase', 'pipeline', 'workflow'];
    // ECMAScript's global object properties (ES2025 + Float16Array) and QuickJS's InternalError.
    const ecmascript = [
      ...['AggregateError', 'Array', 'ArrayBuffer', 'BigInt', 'BigInt64Array', 'BigUint64Array', 'Boolean'],
      ...['DataView', 'Date', 'Error', 'EvalError', 'Float16Array', 'Float32Array', 'Float64Array', 'Function'],
      ...['Infinity', 'Int16Array', 'Int32Array', 'Int8Array', 'InternalError', 'Iterator', 'JSON', 'Map', 'Math'],
      ...['NaN', 'Number', 'Object', 'Promise', 'Proxy', 'RangeError', 'ReferenceError', 'Reflect', 'RegExp', 'Set'],
      ...['SharedArrayBuffer', 'String', 'Symbol', 'SyntaxError', 'TypeError', 'URIError', 'Uint16Array'],
      ...['Uint32Array', 'Uint8Array', 'Uint8ClampedArray', 'WeakMap', 'WeakSet', 'decodeURI', 'decodeURIComponent'],
      ...['encodeURI', 'encodeURIComponent', 'escape', 'eval', 'globalThis', 'isFinite', 'isNaN', 'parseFloat'],
      ...['parseInt', 'undefined', 'unescape'],
    ];
    expect(names).toEqual([...api, ...ecmascript].sort());
    expect(await value(`const g = Function('return this')(); return g === globalThis && typeof g.process`)).toBe(
      'undefined',
    );
    expect(await value(`return ({}).constructor.constructor('return typeof require')()`)).toBe('undefined');
  });
});

describe('runScriptInVm: limits', () => {
  it('an endless loop, a memory bomb, deep recursion and an endless promise chain end the run as a limit', async () => {
    expect(failure(await run('while (true) {}'))).toEqual({ kind: 'limit', error: expect.stringMatching(/ticks/) });
    expect(failure(await run(`try { while (true) {} } catch { return 'caught' }`))).toMatchObject({ kind: 'limit' });
    expect(
      failure(
        await runScriptInVm(`const a = []; while (true) a.push('x'.repeat(1 << 20))`, undefined, new RecordingHost(), {
          limits: { memoryBytes: 32 * 1024 * 1024 },
        }),
      ),
    ).toEqual({ kind: 'limit', error: expect.stringMatching(/out of memory/) });
    expect(failure(await run('const f = (n) => f(n + 1) + 1; f(0)'))).toEqual({
      kind: 'limit',
      error: expect.stringMatching(/recursed too deep: InternalError: stack overflow/),
    });
    expect(failure(await run('const f = () => Promise.resolve().then(f); await f()'))).toMatchObject({ kind: 'limit' });
    expect(
      failure(
        await runScriptInVm('const f = () => Promise.resolve().then(f); await f()', undefined, new RecordingHost(), {
          limits: { maxJobsPerDrain: 1000 },
        }),
      ),
    ).toEqual({ kind: 'limit', error: expect.stringMatching(/more than 1000 promise jobs/) });
  });

  it('the run-wide tick budget spans waits for agents', async () => {
    const body = `for (let i = 0; i < 5; i++) { await agent('x' + i); let s = 0; for (let j = 0; j < 2e5; j++) s += j }`;
    const options = { limits: { ticksPerDrain: 100, totalTicks: 150 } };
    expect(failure(await runScriptInVm(body, undefined, new RecordingHost(), options))).toEqual({
      kind: 'limit',
      error: expect.stringMatching(/whole CPU budget of 150 ticks/),
    });
    expect((await runScriptInVm(body, undefined, new RecordingHost(), { limits: { totalTicks: 1000 } })).ok).toBe(true);
  });

  it('a promise nothing will settle is a deadlock, once no host call is running', async () => {
    expect(failure(await run('await new Promise(() => {})'))).toEqual({
      kind: 'deadlock',
      error: expect.stringMatching(/^the script awaits a promise nothing will settle/),
    });
    expect(failure(await run(`await agent('x'); await new Promise(() => {})`))).toMatchObject({ kind: 'deadlock' });
  });
});

describe('runScriptInVm: determinism', () => {
  it('the same script with the same answers makes the same host calls in the same order', async () => {
    const script = `
      phase('Scan');
      const found = await parallel(args.files.map((file) => () => agent('scan ' + file, { label: file })));
      phase('Fix');
      const fixed = await pipeline(found, (f) => agent('fix ' + f), (g, item, i) => (i % 2 ? agent('check ' + g) : g));
      log(JSON.stringify(fixed));
      return { fixed, spent: budget.spent() };`;
    const runOnce = async () => {
      const host = new RecordingHost((prompt) => `${prompt.length}`);
      const outcome = await runScriptInVm(script, { files: ['a.ts', 'b.ts', 'c.ts', 'd.ts'] }, host);
      return { outcome, calls: host.calls };
    };
    const first = await runOnce();
    expect(first.outcome.ok).toBe(true);
    expect(first.calls.filter((call) => call.startsWith('agent'))).toHaveLength(10);
    expect(await runOnce()).toEqual(first);
  });
});

describe('decodeBase64', () => {
  it('decodes what Buffer encodes and refuses other characters', () => {
    for (const length of [0, 1, 2, 3, 4, 5, 255, 256]) {
      const bytes = Uint8Array.from({ length }, (_, index) => (index * 37 + length) % 256);
      const text = Buffer.from(bytes).toString('base64');
      expect(decodeBase64(text)).toEqual(bytes);
      expect(decodeBase64(text.replace(/=+$/, ''))).toEqual(bytes);
    }
    expect(() => decodeBase64('ab$d')).toThrow(/character "\$" at 2/);
  });
});

/** Waits (macrotask turns) until `condition` holds; the VM runs only in microtasks after host settlements. */
async function until(condition: () => boolean): Promise<void> {
  for (let turn = 0; turn < 1000 && !condition(); turn++) await new Promise((resolve) => setImmediate(resolve));
  expect(condition()).toBe(true);
}
