// A CommonJS script: require() of every entry point (Node's require of ES modules, Node >= 20.19).
const entries = ['durable-subagents', 'durable-subagents/worker', 'durable-subagents/workflows', 'durable-subagents/model-server', 'durable-subagents/testing'];
const loaded = Object.fromEntries(entries.map((entry) => [entry, Object.keys(require(entry)).sort()]));
const { SubagentsClient } = require('durable-subagents');
const { subagentsPlugin } = require('durable-subagents/worker');
console.log(JSON.stringify({ loaded, client: typeof SubagentsClient, plugin: subagentsPlugin().name }));
