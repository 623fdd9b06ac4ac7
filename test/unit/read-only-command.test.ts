import { describe, expect, it } from 'vitest';
import { classifyReadOnlyCommand } from '../../src/shared/policy/read-only-command';
import { analyse } from '../helpers/bash-analysis';

const classify = (command: string) => classifyReadOnlyCommand(analyse(command));
const allowed = (command: string) => expect(classify(command), command).toEqual({ readOnly: true });
const refused = (command: string, reason?: RegExp) => {
  const verdict = classify(command);
  expect(verdict.readOnly, command).toBe(false);
  if (reason && !verdict.readOnly) expect(verdict.reason).toMatch(reason);
};

describe('classifyReadOnlyCommand', () => {
  it('allows readers and read-only git, joined by && || ; |', () => {
    for (const command of [
      'git log --oneline -5',
      'git diff HEAD~1 -- src/a.ts',
      'git show --stat HEAD',
      'git status --short',
      'git --no-pager log -p | head -50',
      'git -C /repo blame src/a.ts',
      'git branch',
      'git branch -a -v',
      'git branch --list "feat/*"',
      'git tag --list',
      'git remote -v',
      'git stash list',
      'git config --get user.name',
      'ls -la src && wc -l src/*.ts',
      'cd /repo && git log --format="%h %s" | grep fix',
      'find . -name "*.ts" -type f',
      'cat package.json; head -n 5 README.md',
      'grep -rn TODO src 2>/dev/null || true',
      'ls 2>&1',
      'sort -u names.txt',
      'wc -l < input.txt',
    ])
      allowed(command);
  });

  it('refuses commands that write, delete, install or run programs', () => {
    refused('touch x', /not a read-only command/);
    refused('rm -rf build');
    refused('mkdir out');
    refused('npm install');
    refused('git commit -m x', /not a read-only git command/);
    refused('git add -A');
    refused('git checkout -- .');
    refused('git reset --hard');
    refused('git branch new-feature', /creates something/);
    refused('git branch -D old');
    refused('git tag v1');
    refused('git stash');
    refused('git config user.name me', /--get\/--list/);
    refused('git config --get x --unset y');
    refused('git diff --output=patch.txt', /--output/);
    refused('git log --ext-diff');
    refused('git -c core.pager=sh log', /git -c/);
    refused('git grep -O foo');
    refused('find . -delete', /-delete/);
    refused('find . -name x -exec rm {} ;');
    refused('sort -o out.txt in.txt');
    refused('sort -ro out.txt in.txt');
    refused('uniq in.txt out.txt', /writes the last one/);
    refused('rg --pre ./evil pattern');
    refused('xargs rm');
    refused('/bin/rm x');
    refused('sed -i s/a/b/ file');
  });

  it('refuses redirections to files, substitutions, variables, background jobs; reads every line', () => {
    refused('ls > files.txt', /redirection/);
    for (const command of ['echo hi >> notes.md', 'cat <<EOF']) refused(command);
    for (const command of ['ls $(rm x)', 'echo `rm x`']) refused(command, /substitution/);
    refused('ls\nrm x', /`rm` is not a read-only command/);
    allowed('ls\ngit status');
    refused('ls $HOME', /variable expansion/);
    refused('FOO=1 ls', /variable assignment/);
    for (const command of ['ls & rm x', 'ls &']) refused(command, /background/);
    for (const command of ['(cd x && rm y)', 'diff <(ls a) <(ls b)', 'ls |& tee x']) refused(command);
  });

  it('refuses empty or odd input with a reason, never throws', () => {
    refused('', /empty/);
    refused('   ');
    refused('&&');
    refused('ls |');
    refused('"unterminated');
    expect(() => classify('a'.repeat(100_000))).not.toThrow();
    refused('('.repeat(50_000));
  });
});
