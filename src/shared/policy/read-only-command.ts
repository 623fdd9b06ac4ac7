// Read-only Bash is an allow-list: known readers only, and anything not read with certainty is refused.
import { globCanBeOption, literalWords, type CommandAnalysis } from './command-analysis';

/** The verdict on one command line. */
export type CommandVerdict = { readOnly: true } | { readOnly: false; reason: string };

/** What a command may not be given. */
interface CommandPolicy {
  /** Exact option words refused (`-exec`), also as `--name=value` for long options. */
  deniedOptions?: readonly string[];
  /** Single-letter options refused, also inside clusters such as `-ro`. */
  deniedLetters?: string;
  /** More positional arguments than this are refused (`uniq in out` writes `out`). */
  maxPositionals?: number;
}

const readers: Readonly<Record<string, CommandPolicy>> = {
  cd: {},
  ls: {},
  cat: {},
  head: {},
  tail: {},
  wc: {},
  pwd: {},
  stat: {},
  du: {},
  df: {},
  nl: {},
  cut: {},
  tr: {},
  fold: {},
  column: {},
  basename: {},
  dirname: {},
  realpath: {},
  readlink: {},
  echo: {},
  printf: {},
  true: {},
  false: {},
  test: {},
  seq: {},
  which: {},
  whoami: {},
  id: {},
  uname: {},
  od: {},
  strings: {},
  cmp: {},
  comm: {},
  diff: {},
  md5sum: {},
  sha1sum: {},
  sha256sum: {},
  grep: {},
  egrep: {},
  fgrep: {},
  jq: {},
  date: { deniedOptions: ['--set'], deniedLetters: 's' },
  file: { deniedOptions: ['--compile'], deniedLetters: 'C' },
  tree: { deniedLetters: 'o' },
  sort: { deniedOptions: ['--output', '--compress-program'], deniedLetters: 'o' },
  uniq: { maxPositionals: 1 },
  rg: { deniedOptions: ['--pre', '--pre-glob'] },
  find: { deniedOptions: ['-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls'] },
};

/** git subcommands that only read, with the options that would make them write or run something. */
const gitReaders: Readonly<Record<string, CommandPolicy>> = {
  log: {},
  show: {},
  diff: {},
  status: {},
  blame: {},
  annotate: {},
  shortlog: {},
  'rev-parse': {},
  'rev-list': {},
  'ls-files': {},
  'ls-tree': {},
  'cat-file': {},
  describe: {},
  'name-rev': {},
  'merge-base': {},
  'show-ref': {},
  'for-each-ref': {},
  'count-objects': {},
  whatchanged: {},
  version: {},
  grep: { deniedOptions: ['--open-files-in-pager'], deniedLetters: 'O' },
};

/** Options no git subcommand may have: they write files or run programs. */
const gitDeniedOptions = ['--output', '--ext-diff', '--exec', '--upload-pack', '--receive-pack'];

/** git subcommands that read only in some forms. */
const gitConditional: Readonly<Record<string, (args: string[]) => string | undefined>> = {
  branch: (args) =>
    listingOnly(
      args,
      ['-l', '--list'],
      ['--contains', '--no-contains', '--merged', '--no-merged', '--points-at', '--sort', '--format'],
    ),
  tag: (args) =>
    listingOnly(
      args,
      ['-l', '--list'],
      ['--contains', '--no-contains', '--merged', '--no-merged', '--points-at', '--sort', '--format'],
    ),
  remote: (args) =>
    args.every((arg) => arg === '-v' || arg === '--verbose') || args[0] === 'get-url'
      ? undefined
      : 'only `git remote [-v]` and `git remote get-url` read',
  stash: (args) =>
    args[0] === 'list' || args[0] === 'show' ? undefined : 'only `git stash list` and `git stash show` read',
  worktree: (args) => (args[0] === 'list' ? undefined : 'only `git worktree list` reads'),
  reflog: (args) =>
    args.length === 0 || args[0] === 'show' || args[0]?.startsWith('-') ? undefined : 'only `git reflog [show]` reads',
  config: (args) => {
    const reads = ['--get', '--get-all', '--get-regexp', '--list', '-l'];
    const harmless = [
      ...reads,
      '--global',
      '--local',
      '--system',
      '--show-origin',
      '--show-scope',
      '--name-only',
      '--null',
      '-z',
      '--includes',
    ];
    if (!args.some((arg) => reads.includes(arg))) return 'only `git config --get/--list` reads';
    const other = args.find((arg) => arg.startsWith('-') && !harmless.includes(arg));
    return other ? `\`git config ${other}\` is not a read` : undefined;
  },
};

/** A listing form: no positional argument unless a list flag is given, every option known. */
function listingOnly(args: string[], listFlags: string[], valueOptions: string[]): string | undefined {
  const flags = [
    '-a',
    '--all',
    '-r',
    '--remotes',
    '-v',
    '-vv',
    '--verbose',
    '--show-current',
    '-n',
    '--column',
    '--no-column',
    ...listFlags,
  ];
  const listing = args.some((arg) => listFlags.includes(arg));
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    const name = arg.split('=')[0]!;
    if (valueOptions.includes(name)) {
      if (!arg.includes('=')) index += 1;
      continue;
    }
    if (arg.startsWith('-')) {
      if (!flags.includes(arg) && !/^-n\d+$/.test(arg)) return `option ${arg} is not a listing option`;
      continue;
    }
    if (!listing) return `a name argument (${arg}) creates something; add --list to list`;
  }
  return undefined;
}

/** The first denied option among `args`, if any. */
function deniedOption(args: readonly string[], policy: CommandPolicy): string | undefined {
  for (const arg of args) {
    if (arg === '--') break;
    const name = arg.split('=')[0]!;
    if (policy.deniedOptions?.includes(name)) return name;
    if (
      policy.deniedLetters &&
      /^-[^-]/.test(arg) &&
      [...arg.slice(1)].some((letter) => policy.deniedLetters!.includes(letter))
    )
      return arg;
  }
  return undefined;
}

function checkPolicy(label: string, args: string[], policy: CommandPolicy): string | undefined {
  const option = deniedOption(args, policy);
  if (option) return `\`${label} ${option}\` can write files or run programs`;
  const positionals = args.filter((arg) => !arg.startsWith('-'));
  if (policy.maxPositionals !== undefined && positionals.length > policy.maxPositionals)
    return `\`${label}\` with ${positionals.length} file arguments writes the last one`;
  return undefined;
}

/** Global git options allowed before the subcommand (each with how many values it takes). */
const gitGlobalOptions: Readonly<Record<string, number>> = {
  '--no-pager': 0,
  '-P': 0,
  '--no-optional-locks': 0,
  '-C': 1,
};

function checkGit(args: string[]): string | undefined {
  let index = 0;
  while (index < args.length && args[index]!.startsWith('-')) {
    const takes = gitGlobalOptions[args[index]!];
    if (takes === undefined) return `git option ${args[index]} is not allowed here (it can change what git runs)`;
    index += 1 + takes;
  }
  const subcommand = args[index];
  if (!subcommand) return 'git without a subcommand';
  const rest = args.slice(index + 1);
  const denied = deniedOption(rest, { deniedOptions: gitDeniedOptions });
  if (denied) return `\`git ${subcommand} ${denied}\` writes files or runs programs`;
  const policy = gitReaders[subcommand];
  if (policy) return checkPolicy(`git ${subcommand}`, rest, policy);
  const conditional = gitConditional[subcommand];
  if (conditional) return conditional(rest);
  return `\`git ${subcommand}\` is not a read-only git command`;
}

/** Checks one simple command (its words, operators removed). */
export function checkSimpleCommand(words: string[]): string | undefined {
  const [command, ...args] = words;
  if (command === undefined) return 'an empty command';
  if (command.includes('=')) return `setting a variable (${command}) is not allowed`;
  if (command === 'git') return checkGit(args);
  const policy = readers[command];
  if (!policy) return `\`${command}\` is not a read-only command this agent may run`;
  return checkPolicy(command, args, policy);
}

/** Whether a command's options matter (a glob there could turn into `-o file` or `--output=x`). */
function optionsMatter(command: string): boolean {
  const policy = readers[command];
  return command === 'git' || (policy !== undefined && Object.keys(policy).length > 0);
}

/** Classifies an analysed command line for a read-only agent (readers and read-only git; output to streams only). */
export function classifyReadOnlyCommand(analysis: CommandAnalysis): CommandVerdict {
  const refuse = (reason: string): CommandVerdict => ({ readOnly: false, reason });
  const [unresolved] = analysis.unresolved;
  if (unresolved !== undefined) return refuse(`the command cannot be read with certainty: ${unresolved}`);
  if (analysis.commands.length === 0) return refuse('the command is empty');
  for (const command of analysis.commands) {
    const words = literalWords(command);
    if (!words) return refuse(`\`${command.text}\` has a word that is not literal`);
    const problem = checkSimpleCommand(words);
    if (problem) return refuse(problem);
    if (optionsMatter(words[0]!) && globCanBeOption(command))
      return refuse(`a glob at the start of an argument of \`${words[0]}\` could expand to an option`);
  }
  return { readOnly: true };
}
