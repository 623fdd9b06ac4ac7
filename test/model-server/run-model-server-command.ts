// Runs `subagents model-server` in a child process for cli.test.ts.
import { modelServerCommand } from '../../src/cli/commands/model-server';

process.exitCode = await modelServerCommand(process.argv.slice(2));
