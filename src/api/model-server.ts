/**
 * `durable-subagents/model-server`: the local Messages API server (docs/model-server.md), for a
 * team's own tests: scripted model turns, recorded requests, faults.
 */
export { startModelServer, type ModelServer, type ModelServerOptions, type Behaviour, type Scenario, type Turn, type FaultSpec, type RecordedRequest } from '../model-server/server';
