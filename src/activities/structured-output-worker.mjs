// StructuredOutput's check of a schema with model-written regexes: a backtracking match blocks only this thread.
// Plain JavaScript so Node runs it from src or dist (scripts/build.mjs copies .mjs files).
import Ajv from 'ajv';
import { parentPort, workerData } from 'node:worker_threads';

const { schema, value, ajvOptions } = workerData;
const validate = new Ajv(ajvOptions).compile(schema);
// The time limit starts here: loading ajv and compiling never run a model's regex.
parentPort.postMessage({ type: 'compiled' });
const valid = validate(value);
parentPort.postMessage({ type: 'verdict', valid: Boolean(valid), errors: validate.errors ?? [] });
