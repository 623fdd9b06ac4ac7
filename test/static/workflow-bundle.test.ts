// The workflow bundle the tests run (built in test/global-setup.ts with workflowBundlerOptions, as the worker builds its own).
import { readFileSync } from 'node:fs';
import { describe, expect, inject, it } from 'vitest';

const code = readFileSync(inject('workflowBundlePath'), 'utf8');

describe('the workflow bundle', () => {
  it('reaches zod only through zod-on-first-use, inside a function: no run evaluates zod before it checks an input', () => {
    // Every place a module of the bundle requires one of zod's entry points.
    const requires = [...code.matchAll(/__webpack_require__\(\/\*! (zod[^ ]*) \*\/ "([^"]+)"\)/g)].map((match) => ({
      request: match[1],
      module: match[2],
    }));
    const ourImports = requires.filter(({ request }) => request === 'zod');
    expect(ourImports.length).toBeGreaterThan(0);
    expect(ourImports.every(({ module }) => module === './src/workflows/runtime/zod-on-first-use.cjs')).toBe(true);
    // The shim gives `z` only: workflow code imports nothing else from zod (`import { z } from 'zod'`).
    const used = new Set([...code.matchAll(/zod__WEBPACK_IMPORTED_MODULE_\d+__\.(\w+)/g)].map((match) => match[1]));
    expect([...used]).toEqual(['z']);
    // The shim's own require of the real zod happens in the getter of `z`, not at module level.
    const shim = code.slice(code.indexOf('/***/ "./src/workflows/runtime/zod-on-first-use.cjs"'));
    const body = shim.slice(0, shim.indexOf('/***/ }'));
    const requireLines = body.split('\n').filter((line) => line.includes('__webpack_require__(/*! zod/v4 */'));
    expect(requireLines).toHaveLength(1);
    expect(requireLines[0]).toMatch(/get: \(\) ?=>/);
  });
});
