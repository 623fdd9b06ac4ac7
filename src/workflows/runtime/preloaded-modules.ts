/**
 * The runtime's workflow modules that hold no state of a run, loaded once into the worker's shared
 * workflow context (the bundler's `preloadModules`, src/worker/plugin.ts) instead of at every workflow run.
 *
 * With the SDK's default `reuseV8Context`, each workflow run evaluates the bundle's modules anew, so
 * that state a module keeps belongs to one run; a preloaded module is evaluated once, before any run
 * exists, and its exports are frozen and shared by every run the worker starts. Evaluating these at
 * each start cost about three quarters of a run's module evaluation (docs/operations.md, "Worker tuning").
 *
 * A module belongs here only when it and everything it imports keep nothing of one run at module
 * level: no `let`, no mutable Map or Set, no statement run for its effect, no workflow API called
 * while it is evaluated (that would throw here: no run exists yet). test/unit/preloaded-modules.test.ts
 * checks this on the source, and that every such module of the bundle is listed. Left per run: the
 * modules that keep a run's state (patches, read-batch, local-abort, cancel-notice), those that import
 * them (approvals asks a patch), zod (src/workflows/runtime/zod-on-first-use.cjs) and shell-quote (it draws `Math.random` when
 * evaluated: a run's seeded random, which does not exist here).
 */
import '../../shared/agents/agent-colors';
import '../../shared/agents/agent-input';
import '../../shared/agents/agent-roster';
import '../../shared/tools/agent-tool-definitions';
import '../../shared/agents/agent';
import '../../shared/board/board-limits';
import '../../shared/board/board-requests';
import '../../shared/board/board';
import '../../shared/budget/budget-leases';
import '../../shared/budget/budget-ledger';
import '../../shared/agents/builtin-agents';
import '../../shared/policy/command-analysis';
import '../../shared/model/compaction';
import '../../shared/model/context-estimate';
import '../../shared/model/context-windows';
import '../../shared/model/conversation-hash';
import '../../shared/tools/custom-tools';
import '../../shared/protocol/definitions';
import '../../shared/policy/egress-domains';
import '../../shared/protocol/errors';
import '../../shared/agents/fork-layout';
import '../../shared/policy/hooks';
import '../../shared/protocol/limits';
import '../../shared/tools/mcp';
import '../../shared/model/messages';
import '../../shared/agents/model-resolution';
import '../../shared/agents/models';
import '../../shared/protocol/peek';
import '../../shared/policy/read-only-command';
import '../../shared/agents/resume';
import '../../shared/protocol/run-transcript';
import '../../shared/policy/sandbox';
import '../../shared/protocol/search-attributes';
import '../../shared/protocol/step-output';
import '../../shared/tools/task-output-definition';
import '../../shared/tools/todos';
import '../../shared/policy/tool-classification';
import '../../shared/tools/tool-definitions';
import '../../shared/tools/tool-pool';
import '../../shared/tools/tool-results';
import '../../shared/tools/tool-summary';
import '../../shared/budget/web-tool-budget';
import '../../shared/tools/web-tool-definitions';
import './activity-proxies';
import '../loop/agent-state';
import '../tree/agent-tool-input';
import './best-effort-signal';
import '../board/board-dependencies';
import '../board/board-draft';
import '../board/board-handlers';
import '../board/board-leases';
import '../board/board-run';
import '../board/board-status';
import '../board/board-tasks';
import '../board/board-workflow';
import '../budget/budget-lease';
import '../budget/input-count';
import './clock';
import '../context/compaction-plan';
import '../context/context-meter';
import '../context/conversation';
import '../tree/fork';
import '../loop/inbox';
import './microtask-turns';
import '../tools/permissions';
import '../loop/progress';
import '../context/projection';
import '../tree/resume-in-tree';
import '../tree/spawn-limits';
import '../tree/task-output';
import '../tools/tool-batches';
import '../tools/tool-failure';
import '../tools/tool-queue-text';
import '../tree/tree-coordinator';
import '../context/truncation';
import '../loop/turn-control';
