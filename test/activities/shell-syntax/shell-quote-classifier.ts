// The shell-quote classifier the parse replaced, unsafe (`a#b` reads as a comment): kept only for the corpus to catch.
import { parse, type ParseEntry } from 'shell-quote';
import { checkSimpleCommand, type CommandVerdict } from '../../../src/shared/policy/read-only-command';

/** Operators that only join commands; everything else (redirections, subshells, jobs) is checked or refused. */
const joiners = new Set(['&&', '||', ';', '|']);

/** Classifies a command line for a read-only agent, as the runtime once did (before the tree-sitter parse). */
export function legacyClassifyReadOnlyCommand(command: string): CommandVerdict {
  const refuse = (reason: string): CommandVerdict => ({ readOnly: false, reason });
  if (command.trim() === '') return refuse('the command is empty');
  if (/[`\n\r\0]/.test(command) || command.includes('$('))
    return refuse('command substitution and multi-line commands are not allowed');
  let entries: ParseEntry[];
  try {
    entries = parse(command, (name) => ({ op: `$${name}` }) as unknown as string);
  } catch (error) {
    return refuse(`the command could not be parsed (${(error as Error).message})`);
  }
  const commands: string[][] = [[]];
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index]!;
    if (typeof entry === 'string') {
      commands[commands.length - 1]!.push(entry);
      continue;
    }
    if ('comment' in entry) continue;
    if (!('op' in entry)) return refuse('unsupported shell syntax');
    if (entry.op === 'glob') {
      commands[commands.length - 1]!.push((entry as { pattern: string }).pattern);
      continue;
    }
    if (entry.op.startsWith('$')) return refuse('variables and expansions are not allowed');
    if (joiners.has(entry.op)) {
      commands.push([]);
      continue;
    }
    const target = entries[index + 1];
    const readsFile = entry.op === '<' && typeof target === 'string';
    if (
      (entry.op === '>' && target === '/dev/null') ||
      (entry.op === '>&' && (target === '1' || target === '2')) ||
      readsFile
    ) {
      index += 1;
      continue;
    }
    return refuse(
      `the shell operator ${entry.op} is not allowed (no redirection to files, subshells or background jobs)`,
    );
  }
  for (const words of commands) {
    const problem = checkSimpleCommand(words);
    if (problem) return refuse(problem);
  }
  return { readOnly: true };
}
