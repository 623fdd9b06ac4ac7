/** Defaults shared by the worker, client and CLI; each overridable by the environment variable named beside it. */
export const defaultTemporalAddress = '127.0.0.1:7233'; // TEMPORAL_ADDRESS
export const defaultNamespace = 'default'; // TEMPORAL_NAMESPACE
export const defaultTaskQueue = 'subagents'; // SUBAGENTS_TASK_QUEUE
export const defaultUiPort = 8233;
export const defaultModelServerPort = 8788; // SUBAGENTS_MODEL_SERVER_PORT
