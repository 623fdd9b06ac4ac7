// A real bash parse of a command line, as the wire type the pure permission deciders read (from a local activity).

/** One simple command found anywhere in the line (lists, pipelines, subshells, substitutions, bodies). */
export interface SimpleCommand {
  /** Its source text. */
  text: string;
  /** Its words with quotes and escapes removed; null for a word that is not fully literal (an expansion). */
  words: (string | null)[];
  /** Indexes of words with an unquoted glob character (`*`, `?`, `[`): bash may replace them with file names. */
  globs: number[];
  /** Set for a command found in another's arguments (`xargs rm x`, `find -exec rm`): the command that runs it. */
  via?: string;
}

/** A command line read by the parser. */
export interface CommandAnalysis {
  commands: SimpleCommand[];
  /** Why the line cannot be decided with certainty (expansions, redirections to files, wrappers, ...); empty when it can. */
  unresolved: string[];
}

/** The input of the `analyzeShellCommand` activity. */
export interface AnalyzeShellCommandInput {
  command: string;
}

/** An analysis that decides nothing (the parse failed or never ran): not read-only, matched by no allow rule. */
export function unanalysed(reason: string): CommandAnalysis {
  return { commands: [], unresolved: [reason] };
}

/** The literal words of a command, or undefined when one of them is not literal. */
export function literalWords(command: SimpleCommand): string[] | undefined {
  return command.words.every((word): word is string => word !== null) ? command.words : undefined;
}

/** Whether a glob word could expand to a file name that reads as an option (`*` matches a file named `--output=x`). */
export function globCanBeOption(command: SimpleCommand): boolean {
  return command.globs.some((index) => index > 0 && /^[*?[]/.test(command.words[index] ?? ''));
}

/** How the deciders read a Bash line: the parser's analysis. */
export type BashReading = { type: 'parsed'; analysis: CommandAnalysis };
