// The bash parse behind permission decisions: every simple command anywhere, literal words, and what is unresolved.
import { describe, expect, it } from 'vitest';
import { createShellSyntaxActivities } from '../../../src/activities/shell-syntax/activities';
import { analyzeCommand, maxAnalysedLength } from '../../../src/activities/shell-syntax/parse-command';

const commandsOf = async (line: string) =>
  (await analyzeCommand(line)).commands.filter((command) => !command.via).map((command) => command.words);
const unresolvedOf = async (line: string) => (await analyzeCommand(line)).unresolved.join(' | ');

describe('analyzeCommand (tree-sitter-bash)', () => {
  it('reads # as bash does: a comment only at the start of a word', async () => {
    expect(await analyzeCommand('echo a#b && touch pwned')).toEqual({
      commands: [
        { text: 'echo a#b', words: ['echo', 'a#b'], globs: [] },
        { text: 'touch pwned', words: ['touch', 'pwned'], globs: [] },
      ],
      unresolved: [],
    });
    expect(await commandsOf('ls x#y; touch p')).toEqual([
      ['ls', 'x#y'],
      ['touch', 'p'],
    ]);
    expect(await commandsOf('cat f#x || touch p')).toEqual([
      ['cat', 'f#x'],
      ['touch', 'p'],
    ]);
    expect(await commandsOf('echo q#w | tee FILE')).toEqual([
      ['echo', 'q#w'],
      ['tee', 'FILE'],
    ]);
    expect(await commandsOf('ls #; rm x')).toEqual([['ls']]);
    expect(await commandsOf('ls \\#; rm x')).toEqual([
      ['ls', '#'],
      ['rm', 'x'],
    ]);
  });

  it('finds commands in subshells, groups, bodies, substitutions and functions', async () => {
    for (const line of [
      '(rm x)',
      '{ rm x; }',
      'if true; then rm x; fi',
      'while false; do rm x; done',
      'case a in a) rm x;; esac',
      'ls && ! rm x',
    ]) {
      expect(await commandsOf(line), line).toContainEqual(['rm', 'x']);
    }
    expect(await commandsOf('echo $(rm -rf /)')).toEqual([
      ['rm', '-rf', '/'],
      ['echo', null],
    ]);
    expect(await commandsOf('diff <(rm x) <(ls)')).toContainEqual(['rm', 'x']);
    expect(await commandsOf('f() { rm x; }; f')).toEqual([['rm', 'x'], ['f']]);
    expect(await commandsOf('cat <<EOF\n$(rm x)\nEOF')).toContainEqual(['rm', 'x']);
  });

  it('removes quotes and escapes only from fully literal words', async () => {
    expect(await commandsOf(`echo "a\\"b" 'c d' e\\ f r"m"`)).toEqual([['echo', 'a"b', 'c d', 'e f', 'rm']]);
    expect(await commandsOf('echo "$HOME" a$b')).toEqual([['echo', null, null]]);
    expect((await analyzeCommand('ls *.ts src/?')).commands[0]!.globs).toEqual([1, 2]);
    expect((await analyzeCommand('ls "*.ts"')).commands[0]!.globs).toEqual([]);
  });

  it('says why a line is not certain', async () => {
    const cases: [string, RegExp][] = [
      ['echo $X', /variable expansion/],
      ['echo ${X:-y}', /parameter expansion/],
      ['echo `id`', /command substitution/],
      ['echo $((1+2))', /arithmetic/],
      ['echo {a,b}', /brace expansion/],
      ['ls > out', /redirection/],
      ['ls 2> err', /redirection/],
      ['cat < /dev/tcp/h/80', /redirection/],
      ['cat <<EOF\nx\nEOF', /here-document/],
      ['cat <<< x', /here-string/],
      ['a=1 rm x', /variable assignment/],
      ['ls &', /background/],
      ['eval rm x', /`eval` runs another command/],
      ['exec rm x', /`exec`/],
      ['source x.sh', /`source`/],
      ['. x.sh', /`\.`/],
      ['echo x | xargs rm', /`xargs`/],
      ['env rm x', /`env`/],
      ['command rm x', /`command`/],
      ['builtin echo', /`builtin`/],
      ['nohup rm x', /`nohup`/],
      ['time rm x', /`time`/],
      ['find . -exec rm {} +', /find -exec/],
      ['git -c core.pager=sh log', /git -c/],
      ['$CMD x', /variable expansion/],
      ['/bin/r? x', /glob in the command name/],
      ['echo a\\\nb', /line continuation/],
      ['echo )', /could not read/],
      ['"unterminated', /could not read|incomplete/],
      ['[[ -f x ]]', /unsupported shell syntax/],
      ['export A=1', /unsupported shell syntax/],
      ['for i in 1; do ls; done', /for\/select loop/],
      ['a'.repeat(maxAnalysedLength + 1), /longer than/],
    ];
    for (const [line, reason] of cases) expect(await unresolvedOf(line), line).toMatch(reason);
    for (const line of [
      'ls 2>&1',
      'ls >/dev/null 2>&1',
      'ls 2>/dev/null',
      'wc -l < input.txt',
      'ls >&-',
      'git log | head -5',
      'ls\ngit status',
    ]) {
      expect(await unresolvedOf(line), line).toBe('');
    }
  });

  it('adds what a wrapper runs, for deny rules (`nice -n 5 rm x` → `rm x`)', async () => {
    const derived = (await analyzeCommand('nice -n 5 rm x')).commands
      .filter((command) => command.via === 'nice')
      .map((command) => command.words.join(' '));
    expect(derived).toContain('rm x');
    expect(
      (await analyzeCommand('find . -exec rm {} +')).commands.some(
        (command) => command.via === 'find' && command.words[0] === 'rm',
      ),
    ).toBe(true);
  });

  it('is the analyzeShellCommand activity', async () => {
    const { analyzeShellCommand } = createShellSyntaxActivities();
    expect(
      (await analyzeShellCommand({ command: 'git diff x#y; rm -rf x' })).commands.map((command) => command.words[0]),
    ).toEqual(['git', 'rm']);
  });
});
