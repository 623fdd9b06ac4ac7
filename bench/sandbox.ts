// npm run bench:sandbox — what the OS sandbox adds to a Bash call (also in bench:overhead): the same commands
// through the Bash tool with the sandbox on and off, alternating, so both see the same minute of the machine.
import { measureSandboxTimes } from './helpers/sandbox-times';

const calls = Number(process.env.BENCH_SANDBOX_CALLS ?? 30);
const times = await measureSandboxTimes(calls);
if (!times.available) {
  console.error(`bench:sandbox needs bubblewrap: ${times.problem} (apt-get install bubblewrap socat)`);
  process.exitCode = 1;
} else {
  console.log(`sandbox benchmark: Bash tool calls, median of ${calls} each (ms)`);
  console.log(`${'command'.padEnd(48)}${'sandboxed'.padStart(11)}${'unconfined'.padStart(11)}${'added'.padStart(9)}`);
  for (const row of times.rows)
    console.log(
      `${row.command.padEnd(48)}${String(row.sandboxedMsP50).padStart(11)}${String(row.unconfinedMsP50).padStart(11)}${String(row.addedMsP50).padStart(9)}`,
    );
  const added = times.rows.map((row) => row.addedMsP50).sort((a, b) => a - b);
  console.log(JSON.stringify({ bashSandboxAddedMsP50: added[Math.floor(added.length / 2)], rows: times.rows, calls }));
}
