// The adversarial corpus (issue 43): known tricks and fast-check generated lines, each decided by the
// read-only classifier and the Bash rules on the real parse, then run by real bash in a throwaway
// bubblewrap sandbox. Whenever a line is read-only or allowed by a rule, bash may have run only programs
// the analysis listed (and readers), and written nothing; whenever the analysis is certain, it listed
// every program bash ran, so a deny rule on one of them refused the line.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyReadOnlyCommand } from '../../../src/shared/policy/read-only-command';
import { legacyClassifyReadOnlyCommand } from './shell-quote-classifier';
import { decideByRules, type PermissionRule, type PermissionRules } from '../../../src/shared/policy/permission-rules';
import { analyse } from '../../helpers/bash-analysis';
import { bwrapUnavailable, executeInSandbox } from './bash-oracle';
import { hiddenRm } from '../../helpers/unit-shell-tricks';

const knownTricks = [
  'echo a#b && touch pwned',
  'ls x#y; touch p',
  'cat f#x || touch p',
  'echo q#w | tee FILE',
  'git diff x#y; rm -rf x',
  ...hiddenRm,
  'env rm x',
  'cat <<EOF\n$(rm x)\nEOF',
  'find . -exec rm {} +',
  'git -c core.pager=sh log',
  'sort -o f x',
  'tree -o f',
  'git diff --output=f',
  'echo `rm x`',
  'echo a\\\nb; rm x',
  'ls #; rm x',
  'ls \\#; rm x',
  "echo '#'; rm x",
  'echo "#"; rm x',
  'ls & rm x',
  'ls\nrm x',
  'echo x > f',
  'echo x >> f',
  'echo x &> f',
  'echo x >| f',
  'cat < /dev/null > f',
  'ls 2>&1 | tee f',
  'echo {rm,x}',
  'r\\m x',
  "'rm' x",
  '"rm" x',
  'r"m" x',
  'xargs rm < /dev/null',
  'nohup rm x',
  'time rm x',
  'eval rm x',
  'exec rm x',
  'sh -c "rm x"',
  'ls; f() { rm x; }; f',
  'case a in a) rm x;; esac',
  'while false; do rm x; done; rm y',
  'for i in 1; do rm x; done',
  '! rm x',
  'ls |& rm x',
  'diff <(rm x) <(ls)',
  'echo >(rm x)',
  'cat <<< $(rm x)',
  'echo $((1))',
  'echo ~ && rm x',
  'ls */ ; rm x',
  'git diff; git status',
  'ls -la && cat f || echo none',
  'grep -rn a . 2>/dev/null',
  'echo a#b',
  'echo a\\ b',
];

const commandNames = [
  'echo',
  'ls',
  'cat',
  'rm',
  'touch',
  'tee',
  'git',
  'sort',
  'tree',
  'find',
  'xargs',
  'env',
  'command',
  'grep',
  'sh',
  'printf',
  'diff',
  'a=1 rm',
];
const words = [
  'x',
  'a#b',
  '#c',
  'f#x',
  "'q#w'",
  '"a b"',
  '-o',
  'out',
  '--output=o',
  '*',
  '-exec',
  '{}',
  '\\;',
  '+',
  '$(touch p)',
  '`touch p`',
  '$X',
  '{a,b}',
  '\\#d',
  '~',
  '2>&1',
  '>/dev/null',
  '>out',
  '<x',
  '<<<x',
  '-delete',
  'diff',
  'log',
];
const joiners = [' && ', ' || ', '; ', ' | ', ' & ', '\n', ' |& ', ' '];
const wrappers: ((line: string) => string)[] = [
  (line) => line,
  (line) => `(${line})`,
  (line) => `{ ${line}; }`,
  (line) => `echo $(${line})`,
  (line) => `if true; then ${line}; fi`,
  (line) => `! ${line}`,
];

const simpleCommand = fc
  .tuple(fc.constantFrom(...commandNames), fc.array(fc.constantFrom(...words), { maxLength: 3 }))
  .map(([name, args]) => [name, ...args].join(' '));
const structured = fc
  .tuple(
    fc.array(fc.tuple(simpleCommand, fc.constantFrom(...joiners)), { minLength: 1, maxLength: 3 }),
    fc.constantFrom(...wrappers),
  )
  .map(([parts, wrap]) =>
    wrap(parts.map(([command, joiner], index) => (index < parts.length - 1 ? command + joiner : command)).join('')),
  );
const soup = fc
  .array(
    fc.constantFrom(
      'echo ',
      'rm ',
      'ls ',
      'a#b',
      '#',
      '\\',
      "'",
      '"',
      '$',
      '(',
      ')',
      '`',
      '{',
      '}',
      ';',
      '&',
      '|',
      '<',
      '>',
      ' ',
      '\n',
      'x',
      '-o ',
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(''));

const seed = 43;
const generated = [
  ...fc.sample(structured, { numRuns: 100, seed }),
  ...fc.sample(soup, { numRuns: 80, seed: seed + 1 }),
];

/** Rules whose allow side covers only readers, and whose deny side names the writers the stubs log. */
const rule = (text: string, content: string): PermissionRule => ({ tool: 'Bash', content, text, file: 'corpus' });
const rules: PermissionRules = {
  allow: ['git diff:*', 'git status', 'ls:*', 'echo:*', 'cat:*', 'grep:*'].map((content) =>
    rule(`Bash(${content})`, content),
  ),
  deny: ['rm:*', 'touch:*', 'tee:*'].map((content) => rule(`Bash(${content})`, content)),
};
const allowedHeads = new Set(['git', 'ls', 'echo', 'cat', 'grep']);
const deniedHeads = new Set(['rm', 'touch', 'tee']);
const stubs = [
  ...new Set([
    ...commandNames.filter((name) => !name.includes(' ')),
    'rm',
    'touch',
    'tee',
    'timeout',
    'head',
    'wc',
    'uniq',
    'p',
    'f',
    'x',
    'y',
  ]),
];

const unavailable = bwrapUnavailable();
if (unavailable) console.warn(`SKIPPED the adversarial bash corpus: ${unavailable}`);

describe.skipIf(unavailable !== undefined)('adversarial corpus against real bash in bubblewrap', () => {
  it('never calls a line read-only or allowed when bash runs something the analysis did not list; a certain analysis lists all bash runs', () => {
    const lines = [...new Set([...knownTricks, ...generated])];
    const verdicts = lines.map((line) => {
      const analysis = analyse(line);
      const reading = { type: 'parsed' as const, analysis };
      return {
        line,
        analysis,
        readOnly: classifyReadOnlyCommand(analysis).readOnly,
        legacyReadOnly: legacyClassifyReadOnlyCommand(line).readOnly,
        decision: decideByRules(rules, 'Bash', { command: line }, { cwd: '/' }, reading)?.type,
        listed: new Set(
          analysis.commands
            .map((command) => command.words[0]?.split('/').pop())
            .filter((name) => name !== undefined && name !== null),
        ),
      };
    });
    // Only lines some verdict trusts, or whose analysis claims certainty, need bash.
    const checked = verdicts.filter(
      (verdict) =>
        verdict.readOnly ||
        verdict.legacyReadOnly ||
        verdict.decision === 'allow' ||
        verdict.analysis.unresolved.length === 0,
    );
    const started = performance.now();
    const executions = executeInSandbox(
      checked.map((verdict) => verdict.line),
      stubs,
    );
    const sandboxMs = Math.round(performance.now() - started);
    const failures: string[] = [];
    const legacyFailures: string[] = [];
    checked.forEach((verdict, index) => {
      const { ran, wrote } = executions[index]!;
      if (
        verdict.legacyReadOnly &&
        (ran.some((name) => !verdict.listed.has(name) || deniedHeads.has(name)) || wrote.length > 0)
      )
        legacyFailures.push(verdict.line);
      const unlisted = ran.filter((name) => !verdict.listed.has(name));
      const trusted = verdict.readOnly || verdict.decision === 'allow';
      if (trusted && (unlisted.length > 0 || wrote.length > 0))
        failures.push(
          `${JSON.stringify(verdict.line)} was trusted, yet bash ran [${ran.join(', ')}] and wrote [${wrote.join(', ')}]`,
        );
      if (verdict.decision === 'allow' && ran.some((name) => !allowedHeads.has(name)))
        failures.push(`${JSON.stringify(verdict.line)} was allowed, yet bash ran [${ran.join(', ')}]`);
      if (verdict.analysis.unresolved.length === 0 && unlisted.length > 0)
        failures.push(
          `${JSON.stringify(verdict.line)} was analysed as certain, yet bash also ran [${unlisted.join(', ')}]`,
        );
      if (
        ran.some((name) => deniedHeads.has(name)) &&
        verdict.decision !== 'deny' &&
        verdict.analysis.unresolved.length === 0
      ) {
        failures.push(`${JSON.stringify(verdict.line)} ran [${ran.join(', ')}] without the deny rule matching`);
      }
    });
    console.log(
      `bash corpus: ${lines.length} lines (seed ${seed}), ${checked.length} run in bubblewrap, ${verdicts.filter((verdict) => verdict.readOnly).length} read-only, ${verdicts.filter((verdict) => verdict.decision === 'allow').length} allowed; bash in bubblewrap took ${sandboxMs} ms`,
    );
    expect(failures).toEqual([]);
    // The oracle catches the shell-quote classifier this replaced: it called these read-only, and bash ran a writer.
    expect(legacyFailures).toEqual(
      expect.arrayContaining([
        'echo a#b && touch pwned',
        'ls x#y; touch p',
        'echo q#w | tee FILE',
        'git diff x#y; rm -rf x',
      ]),
    );
    // The corpus exercises every verdict (a corpus where nothing is trusted would prove nothing).
    expect(verdicts.filter((verdict) => verdict.readOnly).length).toBeGreaterThan(5);
    expect(verdicts.filter((verdict) => verdict.decision === 'deny').length).toBeGreaterThan(5);
    expect(executions.filter((execution) => execution.ran.length > 0).length).toBeGreaterThan(5);
  });
});
