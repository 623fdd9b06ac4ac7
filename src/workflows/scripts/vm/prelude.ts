// The script API, written in the script's own language and evaluated inside QuickJS before the script runs.

/**
 * QuickJS source of a function `(host, configJson) => ({ resultJson, describe })`. `host` holds the bridge functions
 * (JSON strings in, JSON strings out; it never reaches the global); `configJson` is {@link PreludeConfig}. It defines
 * the non-writable globals agent, parallel, pipeline, phase, log, console, budget, workflow and args, makes the
 * clock and randomness throw, and deletes the GC-observable WeakRef and FinalizationRegistry.
 */
export const preludeSource = String.raw`(function (host, configJson) {
  'use strict';
  const { parse, stringify } = JSON;
  const { defineProperty, freeze, getPrototypeOf } = Object;
  const { encodeURIComponent, unescape } = globalThis;
  const isArray = Array.isArray;
  const config = parse(configJson);
  const limits = config.limits;

  // Native calls (no interpreted loop: a loop here would spend the script's ticks); JSON text has no lone surrogates.
  const utf8Bytes = (text) => unescape(encodeURIComponent(text)).length;
  // JSON text of a value, refusing what JSON.stringify would silently drop (functions, symbols) or cannot write.
  const toJson = (value, what) => {
    try {
      return stringify(value, (key, part) => {
        const type = typeof part;
        if (type === 'function' || type === 'symbol')
          throw new TypeError((key === '' ? 'it' : 'its "' + key + '"') + ' is a ' + type);
        return part;
      });
    } catch (error) {
      throw new TypeError(what + ' must be JSON (objects, arrays, strings, numbers, booleans, null): ' +
        (error && error.message ? error.message : String(error)));
    }
  };
  const clip = (text) => (text.length > limits.maxLogChars ? text.slice(0, limits.maxLogChars - 1) + '…' : text);
  const isPlainObject = (value) => {
    if (value === null || typeof value !== 'object' || isArray(value)) return false;
    const prototype = getPrototypeOf(value);
    return prototype === Object.prototype || prototype === null;
  };
  const checkList = (name, items) => {
    if (!isArray(items)) throw new TypeError(name + '() takes an array as its first argument');
    if (items.length > limits.maxListItems)
      throw new Error(name + '() takes at most ' + limits.maxListItems + ' items, got ' + items.length +
        ': split the list into batches');
  };

  const agent = async (prompt, options) => {
    if (typeof prompt !== 'string' || prompt.trim() === '') throw new TypeError('agent() needs a non-empty prompt string');
    if (prompt.length > limits.maxPromptChars)
      throw new Error('agent() prompt has ' + prompt.length + ' characters; the limit is ' + limits.maxPromptChars);
    if (options !== undefined && !isPlainObject(options))
      throw new TypeError('agent() options must be a plain object (or left out)');
    const optionsJson = toJson(options === undefined ? {} : options, 'agent() options');
    if (utf8Bytes(optionsJson) > limits.maxAgentOptionsBytes)
      throw new Error('agent() options are over ' + limits.maxAgentOptionsBytes + ' bytes of JSON');
    return parse(await host.agent(prompt, optionsJson));
  };

  const workflow = async (nameOrRef, workflowArgs) => {
    if (config.nested) throw new Error('workflow() nests one level only: a script run by workflow() cannot call it');
    const targetJson = toJson(nameOrRef, 'workflow() target');
    if (targetJson === undefined) throw new TypeError('workflow() needs a script name or reference');
    const argsJson = workflowArgs === undefined ? undefined : toJson(workflowArgs, 'workflow() args');
    return parse(await host.workflow(targetJson, argsJson));
  };

  const settleToNull = (run) => {
    try {
      return Promise.resolve(run()).then(undefined, () => null);
    } catch {
      return Promise.resolve(null);
    }
  };
  // A barrier: every thunk (or promise) settles; a throw or a rejection becomes null. Never rejects.
  const parallel = (thunks) => {
    checkList('parallel', thunks);
    return Promise.all(thunks.map((thunk) => settleToNull(() => (typeof thunk === 'function' ? thunk() : thunk))));
  };
  // Each item moves through the stages on its own (no barrier between stages); a throwing stage ends that item as null.
  const pipeline = (items, ...stages) => {
    checkList('pipeline', items);
    stages.forEach((stage, index) => {
      if (typeof stage !== 'function') throw new TypeError('pipeline() stage ' + (index + 1) + ' is not a function');
    });
    const runItem = async (item, index) => {
      let value = item;
      for (const stage of stages) value = await stage(value, item, index);
      return value;
    };
    return Promise.all(items.map((item, index) => settleToNull(() => runItem(item, index))));
  };

  const log = (message) => { host.log(clip(String(message))); };
  const phase = (title) => { host.phase(clip(String(title))); };
  // console.* writes to log(): models write console.log by habit, and a ReferenceError would end the run for a debug line.
  const consoleLine = (...parts) => log(parts.map((part) => (typeof part === 'string' ? part : toJsonOrString(part))).join(' '));
  const toJsonOrString = (part) => {
    try { const text = stringify(part); return text === undefined ? String(part) : text; } catch { return String(part); }
  };
  const scriptConsole = freeze({ log: consoleLine, info: consoleLine, warn: consoleLine, error: consoleLine, debug: consoleLine });
  const total = config.budgetTotal;
  const budget = freeze({
    total,
    spent: () => host.spent(),
    remaining: () => (total === null ? Infinity : Math.max(0, total - host.spent())),
  });

  const resumeHint = ' would make the run impossible to resume; pass times in args';
  const refuse = (what) => () => { throw new Error(what + resumeHint); };
  const RealDate = Date;
  // Scripts see UTC as local time: a worker's time zone must not change what a replay computes.
  const localIso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;
  const utcParse = (text) => RealDate.parse(typeof text === 'string' && localIso.test(text) ? text + 'Z' : text);
  function ScriptDate(...parts) {
    if (!new.target) throw new Error('Date() reads the clock, which' + resumeHint);
    if (parts.length === 0) throw new Error('new Date() without arguments reads the clock, which' + resumeHint);
    if (parts.length >= 2) return Reflect.construct(RealDate, [RealDate.UTC(...parts)], new.target);
    if (typeof parts[0] === 'string') return Reflect.construct(RealDate, [utcParse(parts[0])], new.target);
    return Reflect.construct(RealDate, parts, new.target);
  }
  const dateProto = RealDate.prototype;
  for (const name of ['FullYear', 'Month', 'Date', 'Day', 'Hours', 'Minutes', 'Seconds', 'Milliseconds']) {
    defineProperty(dateProto, 'get' + name, { value: dateProto['getUTC' + name] });
    if (name !== 'Day') defineProperty(dateProto, 'set' + name, { value: dateProto['setUTC' + name] });
  }
  defineProperty(dateProto, 'getTimezoneOffset', { value: function getTimezoneOffset() { return 0; } });
  const isoOf = (date) => dateProto.toISOString.call(date);
  const texts = {
    toString() { return dateProto.toUTCString.call(this); },
    toDateString() { return dateProto.toUTCString.call(this).slice(0, 16); },
    toTimeString() { return isoOf(this).slice(11, 19) + ' GMT+0000'; },
    toLocaleString() { return dateProto.toUTCString.call(this); },
    toLocaleDateString() { return isoOf(this).slice(0, 10); },
    toLocaleTimeString() { return isoOf(this).slice(11, 19); },
  };
  for (const name of Object.keys(texts)) defineProperty(dateProto, name, { value: texts[name] });
  defineProperty(ScriptDate, 'prototype', { value: RealDate.prototype });
  defineProperty(ScriptDate, 'length', { value: 7 });
  defineProperty(ScriptDate, 'name', { value: 'Date' });
  ScriptDate.UTC = RealDate.UTC;
  ScriptDate.parse = utcParse;
  ScriptDate.now = refuse('Date.now()');
  defineProperty(RealDate.prototype, 'constructor', { value: ScriptDate });
  defineProperty(globalThis, 'Date', { value: ScriptDate, writable: false, configurable: false });
  defineProperty(Math, 'random', { value: refuse('Math.random()'), writable: false, configurable: false });
  delete globalThis.WeakRef;
  delete globalThis.FinalizationRegistry;

  const api = { agent, parallel, pipeline, phase, log, console: scriptConsole, budget, workflow };
  for (const name of Object.keys(api)) defineProperty(globalThis, name, { value: api[name], writable: false, configurable: false });
  defineProperty(globalThis, 'args', {
    value: config.argsJson === undefined ? undefined : parse(config.argsJson),
    writable: false,
    configurable: false,
  });

  const describe = (error) => {
    if (error instanceof Error) {
      const where = /script\.js:(\d+)/.exec(String(error.stack));
      return error.name + ': ' + error.message + (where ? ' (line ' + where[1] + ')' : '');
    }
    return 'a non-Error value was thrown: ' + toJsonOrString(error);
  };
  const resultJson = (value) => {
    const text = toJson(value, 'the script result');
    if (text !== undefined && utf8Bytes(text) > limits.maxResultBytes)
      throw new Error('the script result is over ' + limits.maxResultBytes + ' bytes of JSON; return less');
    return text === undefined ? 'null' : text;
  };
  return { resultJson, describe };
})`;

/** What the prelude function is given (as JSON). */
export interface PreludeConfig {
  /** The caller's args as JSON text; undefined when omitted. */
  argsJson: string | undefined;
  budgetTotal: number | null;
  nested: boolean;
  limits: {
    maxListItems: number;
    maxPromptChars: number;
    maxAgentOptionsBytes: number;
    maxResultBytes: number;
    maxLogChars: number;
  };
}
