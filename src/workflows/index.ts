// The workflow bundle's entry point: every workflow type the worker registers.
export { agentWorkflow } from './loop/agent-workflow';
export { boardWorkflow } from './board/board-workflow';
export { scriptRunWorkflow } from './scripts/script-run-workflow';
