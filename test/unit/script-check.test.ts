import { describe, expect, it } from 'vitest';
import { checkScript, scriptMetaLimits } from '../../src/shared/scripts/script-check';
import { scriptLimits } from '../../src/shared/scripts/script-run';

const header = "export const meta = { name: 'sweep', description: 'Sweeps the folders' };";

function refusal(source: string): string {
  const checked = checkScript(source, 'inline');
  if (checked.ok) throw new Error('expected the script to be refused');
  return checked.error;
}

describe('checkScript: normal scripts', () => {
  it('accepts a header, top-level await and return, and blanks the header out of the body keeping lines', () => {
    const source = [
      '// A sweep.',
      'export const meta = {',
      "  name: 'sweep',",
      '  description: `Sweeps the folders`,',
      "  whenToUse: 'When many folders need a look',",
      "  phases: [{ title: 'Read', detail: 'one agent a folder', model: 'haiku' }, { title: 'Check' }],",
      '};',
      "const found = await agent('look');",
      'return found;',
    ].join('\n');
    const checked = checkScript(source, 'project', '/repo/.claude/workflows/sweep.js');
    expect(checked).toEqual({
      ok: true,
      script: {
        meta: {
          name: 'sweep',
          description: 'Sweeps the folders',
          whenToUse: 'When many folders need a look',
          phases: [{ title: 'Read', detail: 'one agent a folder', model: 'haiku' }, { title: 'Check' }],
        },
        source,
        body: expect.any(String) as string,
        origin: 'project',
        path: '/repo/.claude/workflows/sweep.js',
      },
    });
    if (!checked.ok) return;
    const bodyLines = checked.script.body.split('\n');
    const sourceLines = source.split('\n');
    expect(bodyLines).toHaveLength(sourceLines.length);
    expect(bodyLines[0]).toBe('// A sweep.');
    for (const line of bodyLines.slice(1, 7)) expect(line.trim()).toBe('');
    expect(bodyLines[7]).toBe("const found = await agent('look');");
    expect(bodyLines[8]).toBe('return found;');
    expect(checked.script.body).toHaveLength(source.length);
  });

  it('accepts negative numbers, string keys and nulls in the header, and drops no required field', () => {
    const checked = checkScript(
      "export const meta = { 'name': 'a-1_b', description: 'x', extra: [-1, null, true, { deep: 'ok' }] };\nreturn 1;",
      'inline',
    );
    expect(checked.ok && checked.script.meta).toEqual({ name: 'a-1_b', description: 'x' });
    expect(checked.ok && checked.script.path).toBe(undefined);
  });

  it('allows the words import and require where they are not module loading', () => {
    const source = `${header}\nconst text = 'import x from "y"; require("z")';\nconst o = { require: 1, import: 2 };\nreturn o.require + text;`;
    expect(checkScript(source, 'inline').ok).toBe(true);
  });
});

describe('checkScript: the header', () => {
  it('refuses a script without a header, or with the header not first', () => {
    expect(refusal("return await agent('x');")).toMatch(/^InvalidScript: 1:1: a script must start with its header/);
    expect(refusal(`const x = 1;\n${header}`)).toMatch(/^InvalidScript: 1:1: a script must start with its header/);
    expect(refusal('')).toMatch(/must start with its header/);
    expect(refusal("export let meta = { name: 'a', description: 'b' };")).toMatch(/must start with its header/);
    expect(refusal("export const info = { name: 'a', description: 'b' };")).toMatch(/must start with its header/);
  });

  it('refuses a call, a variable, a spread, a template interpolation, a method, a computed key', () => {
    expect(refusal("export const meta = { name: 'a', description: String('b') };")).toMatch(
      /^InvalidScript: 1:47: the meta header may not contain a call/,
    );
    expect(refusal("const d = 'b';\nexport const meta = { name: 'a', description: d };")).toMatch(
      /must start with its header/,
    );
    expect(refusal("export const meta = { name: 'a', description: d };")).toMatch(/may not contain a variable \(d\)/);
    expect(refusal("export const meta = { name: 'a', description };")).toMatch(/may not refer to variables/);
    expect(refusal("export const meta = { name: 'a', ...other };")).toMatch(/^InvalidScript: 1:34: .*spread/);
    expect(refusal("export const meta = { name: 'a', phases: [...list] };")).toMatch(/spread/);
    expect(refusal("export const meta = { name: 'a', description: `b${1 + 1}` };")).toMatch(/template interpolation/);
    expect(refusal("export const meta = { name: 'a', description: tag`b` };")).toMatch(/tagged template/);
    expect(refusal("export const meta = { name: 'a', description: 'b', f() {} };")).toMatch(/may not have methods/);
    expect(refusal("export const meta = { name: 'a', description: 'b', get g() { return 1; } };")).toMatch(/methods/);
    expect(refusal("export const meta = { name: 'a', ['description']: 'b' };")).toMatch(/computed keys/);
    expect(refusal("export const meta = { name: 'a', description: 'b' + 'c' };")).toMatch(/BinaryExpression/);
    expect(refusal("export const meta = { name: 'a', description: /b/ };")).toMatch(/no regular expressions/);
    expect(refusal("export const meta = { name: 'a', description: 'b', n: -x };")).toMatch(/only a minus sign/);
    expect(refusal("export const meta = { name: 'a', description: 'b', f: () => 1 };")).toMatch(
      /ArrowFunctionExpression/,
    );
  });

  it('refuses a __proto__ key and a key given twice', () => {
    expect(refusal("export const meta = { name: 'a', description: 'b', __proto__: { x: 1 } };")).toMatch(/__proto__/);
    expect(refusal("export const meta = { name: 'a', name: 'b', description: 'c' };")).toMatch(
      /has the key "name" twice/,
    );
  });

  it('validates the fields after reading the literal, pointing at the field', () => {
    expect(refusal("export const meta = { description: 'b' };")).toMatch(/^InvalidScript: 1:21: meta.name: /);
    expect(refusal("export const meta = { name: 'a' };")).toMatch(/meta.description/);
    expect(refusal("export const meta = { name: 'a', description: '   ' };")).toMatch(/meta.description/);
    expect(refusal("export const meta = { name: '../x', description: 'b' };")).toMatch(
      /^InvalidScript: 1:29: meta.name: use letters, digits, - and _ only/,
    );
    expect(refusal("export const meta = { name: 'a b', description: 'b' };")).toMatch(/meta.name/);
    expect(refusal(`export const meta = { name: '${'n'.repeat(101)}', description: 'b' };`)).toMatch(/meta.name/);
    expect(
      refusal(
        `export const meta = { name: 'a', description: '${'d'.repeat(scriptMetaLimits.maxDescriptionChars + 1)}' };`,
      ),
    ).toMatch(/meta.description/);
    expect(
      refusal(
        "export const meta = {\n  name: 'a',\n  description: 'b',\n  phases: [{ title: 'x' }, { title: 3 }],\n};",
      ),
    ).toMatch(/^InvalidScript: 4:37: meta.phases.1.title/);
    const phases = Array.from({ length: 51 }, (_, index) => `{ title: 'p${index}' }`).join(', ');
    expect(refusal(`export const meta = { name: 'a', description: 'b', phases: [${phases}] };`)).toMatch(/meta.phases/);
    const fifty = Array.from({ length: 50 }, (_, index) => `{ title: 'p${index}' }`).join(', ');
    expect(checkScript(`export const meta = { name: 'a', description: 'b', phases: [${fifty}] };`, 'inline').ok).toBe(
      true,
    );
  });
});

describe('checkScript: syntax and modules', () => {
  it('refuses TypeScript with the line and column, before any run', () => {
    expect(refusal(`${header}\nconst count: number = 1;`)).toMatch(
      /^InvalidScript: 2:12: syntax error: Unexpected token\. Scripts are plain JavaScript \(no TypeScript/,
    );
    expect(refusal(`${header}\ninterface Finding { file: string }`)).toMatch(/^InvalidScript: 2:\d+: syntax error/);
    expect(refusal(`${header}\nconst x = agent('a') as string;`)).toMatch(/^InvalidScript: 2:\d+: syntax error/);
    expect(refusal("export const meta = { name: 'a', description: 'b' } satisfies Meta;")).toMatch(/syntax error/);
  });

  it('refuses import declarations, import(), import.meta and require() anywhere', () => {
    expect(refusal(`${header}\nimport fs from 'node:fs';`)).toMatch(
      /^InvalidScript: 2:1: scripts cannot import modules/,
    );
    expect(refusal(`import fs from 'node:fs';\n${header}`)).toMatch(/must start with its header/);
    expect(refusal(`${header}\nconst fs = await import('fs');`)).toMatch(/^InvalidScript: 2:18: .*import\(\)/);
    expect(refusal(`${header}\nif (args) {\n  for (;;) { const m = () => import('node:' + 'fs'); }\n}`)).toMatch(
      /^InvalidScript: 3:30: .*import\(\)/,
    );
    expect(refusal(`${header}\nreturn import.meta.url;`)).toMatch(/^InvalidScript: 2:8: scripts have no import.meta/);
    expect(refusal(`${header}\nconst cp = require('child_process');`)).toMatch(/^InvalidScript: 2:12: .*require\(\)/);
    expect(refusal(`${header}\nconst f = async () => [1].map(() => require?.('x'));`)).toMatch(/require\(\)/);
    expect(refusal(`${header}\nexport const other = 1;`)).toMatch(/only the meta header may be exported/);
    expect(refusal(`${header}\nexport default 1;`)).toMatch(/only the meta header may be exported/);
    expect(refusal(`${header}\nexport * from 'x';`)).toMatch(/only the meta header may be exported/);
  });

  it('refuses a source over the byte limit, counting UTF-8 bytes', () => {
    const filler = `// ${'x'.repeat(scriptLimits.maxScriptBytes)}`;
    expect(refusal(`${header}\n${filler}`)).toMatch(
      /^InvalidScript: the script is \d+ bytes; scripts are at most 262144/,
    );
    // Each 'é' is one UTF-16 unit but two UTF-8 bytes: under the limit in characters, over it in bytes.
    const accents = `// ${'é'.repeat(scriptLimits.maxScriptBytes / 2)}`;
    expect(`${header}\n${accents}`.length).toBeLessThan(scriptLimits.maxScriptBytes);
    expect(refusal(`${header}\n${accents}`)).toMatch(/bytes; scripts are at most/);
  });

  it('refuses nesting too deep to parse without throwing', () => {
    expect(refusal(`${header}\nreturn ${'['.repeat(60_000)}${']'.repeat(60_000)};`)).toMatch(/^InvalidScript: /);
  });
});
