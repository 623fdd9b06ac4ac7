// PostToolUse and Stop: one line per event in hook-log.txt (event, tool, the agent that called it).
import { appendFileSync } from 'node:fs';
import path from 'node:path';

let text = '';
process.stdin.on('data', (chunk) => (text += chunk));
process.stdin.on('end', () => {
  const input = JSON.parse(text);
  const line = [input.hook_event_name, input.tool_name ?? '-', input.agent_id ?? 'root'].join(' ');
  appendFileSync(path.join(process.env.CLAUDE_PROJECT_DIR ?? '.', 'hook-log.txt'), `${line}\n`);
});
