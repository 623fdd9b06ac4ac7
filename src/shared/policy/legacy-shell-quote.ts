// LEGACY, unsafe (`a#b` reads as a comment): kept only so runs before the `bash-syntax-tree` patch replay. Never call.
import { parse, type ParseEntry } from 'shell-quote';
import { checkSimpleCommand, type CommandVerdict } from './read-only-command';

/** Operators that only join commands; everything else (redirections, subshells, jobs) is checked or refused. */
const joiners = new Set(['&&', '||', ';', '|']);

/** Classifies a command line for a read-only agent, as recorded runs decided it. */
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

/** The simple commands of a line (joined at `&&`, `||`, `;`, `|`; redirections dropped), or why it cannot be split. */
export function legacySimpleCommands(line: string): { commands: string[] } | { problem: string } {
  if (/[`\n\r\0]/.test(line) || line.includes('$(') || line.includes('<(') || line.includes('>(')) {
    return { problem: 'command substitution and multi-line commands cannot be matched against rules' };
  }
  let entries: ParseEntry[];
  try {
    entries = parse(line, (name) => `$${name}`);
  } catch (error) {
    return { problem: `the command could not be parsed (${(error as Error).message})` };
  }
  const commands: string[][] = [[]];
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index]!;
    if (typeof entry === 'string') commands[commands.length - 1]!.push(entry);
    else if ('comment' in entry) continue;
    else if ('op' in entry && entry.op === 'glob')
      commands[commands.length - 1]!.push((entry as { pattern: string }).pattern);
    else if ('op' in entry && ['&&', '||', ';', '|', '|&'].includes(entry.op)) commands.push([]);
    else if ('op' in entry && ['>', '>>', '>&', '<', '<&', '&>'].includes(entry.op)) index += 1;
    else return { problem: `the shell syntax ${'op' in entry ? entry.op : '?'} cannot be matched against rules` };
  }
  return { commands: commands.filter((words) => words.length > 0).map((words) => words.join(' ')) };
}
