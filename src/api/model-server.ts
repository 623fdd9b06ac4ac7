// `durable-subagents/model-server`: the local Messages API server for a team's own tests (docs/model-server.md).
export {
  startModelServer,
  type ModelServer,
  type ModelServerOptions,
  type Behaviour,
  type Scenario,
  type Turn,
  type FaultSpec,
  type RecordedRequest,
} from '../model-server/server';
