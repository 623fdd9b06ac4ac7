// The workflow bundle's entry point: every workflow type the worker registers.
export { agentWorkflow } from './agent-workflow';
export { boardWorkflow } from './board/board-workflow';
