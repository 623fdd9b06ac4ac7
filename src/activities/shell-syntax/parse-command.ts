// A Bash line's simple commands and every reason it is uncertain; syntax is allow-listed, unknown nodes unresolved.
import type { Node } from 'web-tree-sitter';
import { unanalysed, type CommandAnalysis, type SimpleCommand } from '../../shared/policy/command-analysis';
import { bashParser } from './bash-parser';
import { wordValue } from './literal-words';

/** Longer lines are not parsed (and so decide nothing): a model's commands are far shorter, and parse time grows with length. */
export const maxAnalysedLength = 10_000;

/** Nodes that only hold other nodes: lists, pipelines, groups, bodies, pieces of words. */
const structural = new Set([
  'program',
  'list',
  'pipeline',
  'subshell',
  'compound_statement',
  'redirected_statement',
  'if_statement',
  'elif_clause',
  'else_clause',
  'while_statement',
  'do_group',
  'case_statement',
  'case_item',
  'negated_command',
  'command_name',
  'word',
  'number',
  'string',
  'string_content',
  'raw_string',
  'concatenation',
  'file_descriptor',
  'variable_name',
  'heredoc_start',
  'heredoc_body',
  'heredoc_content',
  'heredoc_end',
]);

/** Why a node makes the line unresolved (its children are still searched for commands). */
const unresolvedNodes: Readonly<Record<string, string>> = {
  simple_expansion: 'a variable expansion',
  expansion: 'a parameter expansion (${...})',
  command_substitution: 'a command substitution ($(...) or backquotes)',
  process_substitution: 'a process substitution (<(...) or >(...))',
  arithmetic_expansion: 'an arithmetic expansion ($((...)))',
  ansi_c_string: "ANSI-C quoting ($'...')",
  translated_string: 'a translated string ($"...")',
  brace_expression: 'brace expansion',
  variable_assignment: 'a variable assignment',
  variable_assignments: 'a variable assignment',
  heredoc_redirect: 'a here-document',
  herestring_redirect: 'a here-string',
  function_definition: 'a function definition',
  for_statement: 'a for/select loop (it sets a variable)',
};

/** Commands that run the command (or script) their arguments name. */
const wrappers = new Set([
  'env',
  'command',
  'builtin',
  'nohup',
  'time',
  'exec',
  'eval',
  'xargs',
  'sudo',
  'doas',
  'su',
  'runuser',
  'nice',
  'ionice',
  'timeout',
  'setsid',
  'stdbuf',
  'chrt',
  'taskset',
  'watch',
  'coproc',
  'sh',
  'bash',
  'dash',
  'zsh',
  'ksh',
  'fish',
  'busybox',
  'flock',
  'unbuffer',
  'script',
  'parallel',
  'strace',
  'ltrace',
  'chroot',
  'nsenter',
  'unshare',
  'trap',
  'source',
  '.',
]);

/** find's options that run a command. */
const findRunners = new Set(['-exec', '-execdir', '-ok', '-okdir']);

/** git's options that change what it runs. */
const gitRunners = new Set(['-c', '--config-env', '--exec-path']);

/** At most this many commands are derived from one wrapper's arguments. */
const maxDerived = 16;

class Walk {
  readonly commands: SimpleCommand[] = [];
  readonly unresolved = new Set<string>();

  constructor(private readonly source: string) {}

  visit(node: Node): void {
    if (node.isMissing) this.unresolved.add(`the command is incomplete (missing ${node.type})`);
    if (!node.isNamed) {
      if (node.type === '&') this.unresolved.add('a background job (&)');
      return;
    }
    if (node.type === 'comment') return;
    if (node.type === 'ERROR') this.unresolved.add(`bash syntax the parser could not read (${node.text.slice(0, 40)})`);
    else if (node.type === 'command') return this.command(node);
    else if (node.type === 'file_redirect') this.redirect(node);
    else if (unresolvedNodes[node.type]) this.unresolved.add(unresolvedNodes[node.type]!);
    else if (!structural.has(node.type))
      this.unresolved.add(`unsupported shell syntax (${node.type.replace(/_/g, ' ')})`);
    this.children(node);
  }

  private children(node: Node): void {
    for (const child of node.children) if (child) this.visit(child);
  }

  /** Only `/dev/null`, duplicating a descriptor (`2>&1`, `>&-`) and reading a literal file are certain. */
  private redirect(node: Node): void {
    const operator = node.children.find((child) => child !== null && !child.isNamed)?.type ?? '';
    const destination = node.childForFieldName('destination');
    const target = destination ? wordValue(destination, this.source) : undefined;
    const literal = target && 'value' in target ? target : undefined;
    const path = literal?.value;
    if (
      (operator === '>&' || operator === '<&' || operator === '>&-' || operator === '<&-') &&
      (path === undefined ? destination === null : /^(\d+|-)$/.test(path))
    )
      return;
    if (path === '/dev/null' && ['>', '>>', '&>', '&>>', '>|', '<', '>&'].includes(operator)) return;
    if (operator === '<' && path !== undefined && !literal?.glob && !path.startsWith('/dev/')) return;
    this.unresolved.add(`a redirection (${node.text.slice(0, 40)}); only > /dev/null, 2>&1 and < file are certain`);
  }

  private command(node: Node): void {
    const name = node.childForFieldName('name');
    const argumentIds = new Set(node.childrenForFieldName('argument').map((child) => child?.id));
    const parts: Node[] = [];
    for (const child of node.children) {
      if (!child) continue;
      if (child.id === name?.id) parts.push(child.firstNamedChild ?? child);
      else if (argumentIds.has(child.id)) parts.push(child);
      else if (
        !['variable_assignment', 'file_redirect', 'herestring_redirect', 'heredoc_redirect'].includes(child.type)
      ) {
        this.unresolved.add(`unsupported shell syntax (${child.text.slice(0, 40)})`);
      }
      this.visit(child);
    }
    const words: (string | null)[] = [];
    const globs: number[] = [];
    for (const part of parts) {
      const value = wordValue(part, this.source);
      if ('reason' in value) this.unresolved.add(value.reason);
      else if (value.glob) globs.push(words.length);
      words.push('value' in value ? value.value : null);
    }
    if (words.length === 0) return;
    const command: SimpleCommand = { text: node.text, words, globs };
    this.commands.push(command);
    this.checkName(command);
  }

  /** A command whose name is not certain, or that runs another: unresolved, with what it may run added for deny rules. */
  private checkName(command: SimpleCommand): void {
    const [name, ...args] = command.words;
    if (name === null || name === undefined) return void this.unresolved.add('a command name that is not literal');
    if (command.globs.includes(0)) this.unresolved.add(`a glob in the command name (${name})`);
    const base = name.split('/').pop() ?? name;
    if (wrappers.has(base)) {
      this.unresolved.add(`\`${base}\` runs another command`);
      this.derive(base, command, 1);
    }
    if (base === 'find') {
      const start = args.findIndex((arg) => arg !== null && findRunners.has(arg));
      if (start >= 0) {
        this.unresolved.add(`\`find ${args[start]}\` runs another command`);
        this.derive('find', command, start + 2);
      }
    }
    if (base === 'git' && args.some((arg) => arg !== null && gitRunners.has(arg.split('=')[0]!))) {
      this.unresolved.add('`git -c` (or --config-env, --exec-path) can make git run any program');
    }
  }

  /** Every literal tail of a wrapper's words, from `from` on, as a command it may run (`nice -n 5 rm x` → `rm x`). */
  private derive(via: string, command: SimpleCommand, from: number): void {
    let derived = 0;
    for (let index = from; index < command.words.length && derived < maxDerived; index++) {
      const words = command.words.slice(index);
      if (words[0] === null || words[0] === undefined) continue;
      const globs = command.globs.filter((glob) => glob >= index).map((glob) => glob - index);
      this.commands.push({ text: words.map((word) => word ?? '?').join(' '), words, globs, via });
      derived++;
    }
  }
}

/** The analysis of one command line (the parser already loaded). */
export function analyzeWithParser(parser: Awaited<ReturnType<typeof bashParser>>, line: string): CommandAnalysis {
  if (line.length > maxAnalysedLength) return unanalysed(`the command is longer than ${maxAnalysedLength} characters`);
  if (line.includes('\0')) return unanalysed('the command holds a NUL character');
  const tree = parser.parse(line);
  if (!tree) return unanalysed('the command could not be parsed');
  try {
    const walk = new Walk(line);
    walk.visit(tree.rootNode);
    if (tree.rootNode.hasError && walk.unresolved.size === 0)
      walk.unresolved.add('bash syntax the parser could not read');
    return { commands: walk.commands, unresolved: [...walk.unresolved] };
  } catch (error) {
    // A tree too deep to walk (thousands of nested groups) decides nothing.
    return unanalysed(`the command could not be analysed (${(error as Error).message})`);
  } finally {
    tree.delete();
  }
}

/** The analysis of one command line, loading the parser on first use. */
export async function analyzeCommand(line: string): Promise<CommandAnalysis> {
  return analyzeWithParser(await bashParser(), line);
}
