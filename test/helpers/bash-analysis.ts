// A Bash line's analysis in tests, by the real parser (loaded once per test file).
import { bashParser } from '../../src/activities/shell-syntax/bash-parser';
import { analyzeWithParser } from '../../src/activities/shell-syntax/parse-command';
import type { BashReading, CommandAnalysis } from '../../src/shared/policy/command-analysis';

const parser = await bashParser();

/** The analysis the `analyzeShellCommand` activity gives for `command`. */
export function analyse(command: string): CommandAnalysis {
  return analyzeWithParser(parser, command);
}

/** The reading a workflow on the `bash-syntax-tree` patch passes to the deciders. */
export function parsedReading(command: string): BashReading {
  return { type: 'parsed', analysis: analyse(command) };
}
