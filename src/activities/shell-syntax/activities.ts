import type { AnalyzeShellCommandInput, CommandAnalysis } from '../../shared/policy/command-analysis';
import { analyzeCommand } from './parse-command';

/** The shell-syntax activities: a Bash line's analysis for the workflow's permission decisions (run as a local activity). */
export function createShellSyntaxActivities() {
  return {
    analyzeShellCommand: async ({ command }: AnalyzeShellCommandInput): Promise<CommandAnalysis> =>
      analyzeCommand(command),
  };
}
