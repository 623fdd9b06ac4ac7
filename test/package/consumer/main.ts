import { runAgent } from './agent.js';

const [address, cwd] = process.argv.slice(2);
if (!address || !cwd) throw new Error('usage: main.js ADDRESS CWD');
const outcome = await runAgent(address, cwd);
console.log(JSON.stringify(outcome));
