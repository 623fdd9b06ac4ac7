// A team's worker: a plain Temporal Worker with the subagents plugin and one custom tool.
// Run: npm run example:worker  (TEMPORAL_ADDRESS, SUBAGENTS_TASK_QUEUE, ANTHROPIC_API_KEY or ANTHROPIC_BASE_URL; docs/configuration.md)
import { NativeConnection, Worker } from '@temporalio/worker';
import { subagentsPlugin } from 'durable-subagents/worker';
import { lookupTicket } from './tools';

const address = process.env.TEMPORAL_ADDRESS ?? 'localhost:7233';
const taskQueue = process.env.SUBAGENTS_TASK_QUEUE ?? 'subagents';

const connection = await NativeConnection.connect({ address });
const worker = await Worker.create({
  connection,
  namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
  taskQueue,
  plugins: [subagentsPlugin({ tools: [lookupTicket] })],
});
console.log(`example worker: task queue "${taskQueue}" on ${address}, custom tool lookup_ticket`);
// Runs until SIGINT/SIGTERM (the SDK shuts down gracefully).
await worker.run();
await connection.close();
