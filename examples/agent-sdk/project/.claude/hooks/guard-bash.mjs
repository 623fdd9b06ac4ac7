// PreToolUse on Bash: exit 2 blocks the call, and its stderr is what the model is told.
let text = '';
process.stdin.on('data', (chunk) => (text += chunk));
process.stdin.on('end', () => {
  const command = JSON.parse(text).tool_input?.command ?? '';
  if (/\brm\s+-rf\b|\bgit\s+push\b/.test(command)) {
    process.stderr.write(`Blocked by guard-bash: "${command}" deletes or publishes; review without it.`);
    process.exit(2);
  }
});
