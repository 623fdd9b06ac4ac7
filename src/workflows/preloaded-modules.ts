/**
 * The runtime's workflow modules that hold no state of a run, loaded once into the worker's shared
 * workflow context (the bundler's `preloadModules`, src/plugin.ts) instead of at every workflow run.
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
 * them (approvals asks a patch), zod (src/workflows/zod-on-first-use.cjs) and shell-quote (it draws `Math.random` when
 * evaluated: a run's seeded random, which does not exist here).
 */
import '../shared/agent-colors';
import '../shared/agent-input';
import '../shared/agent-roster';
import '../shared/agent-tool-definitions';
import '../shared/agent';
import '../shared/board-limits';
import '../shared/board-requests';
import '../shared/board';
import '../shared/budget-leases';
import '../shared/budget-ledger';
import '../shared/builtin-agents';
import '../shared/command-analysis';
import '../shared/compaction';
import '../shared/context-estimate';
import '../shared/context-windows';
import '../shared/conversation-hash';
import '../shared/custom-tools';
import '../shared/definitions';
import '../shared/egress-domains';
import '../shared/errors';
import '../shared/fork-layout';
import '../shared/hooks';
import '../shared/limits';
import '../shared/mcp';
import '../shared/messages';
import '../shared/model-resolution';
import '../shared/models';
import '../shared/peek';
import '../shared/read-only-command';
import '../shared/resume';
import '../shared/run-transcript';
import '../shared/sandbox';
import '../shared/search-attributes';
import '../shared/step-output';
import '../shared/task-output-definition';
import '../shared/todos';
import '../shared/tool-classification';
import '../shared/tool-definitions';
import '../shared/tool-pool';
import '../shared/tool-results';
import '../shared/tool-summary';
import '../shared/web-tool-budget';
import '../shared/web-tool-definitions';
import './activity-proxies';
import './agent-state';
import './agent-tool-input';
import './best-effort-signal';
import './board/board-dependencies';
import './board/board-draft';
import './board/board-handlers';
import './board/board-leases';
import './board/board-run';
import './board/board-status';
import './board/board-tasks';
import './board/board-workflow';
import './budget-lease';
import './clock';
import './compaction-plan';
import './context-meter';
import './conversation';
import './fork';
import './inbox';
import './microtask-turns';
import './permissions';
import './progress';
import './projection';
import './resume-in-tree';
import './spawn-limits';
import './task-output';
import './tool-batches';
import './tool-failure';
import './tool-queue-text';
import './tree-coordinator';
import './truncation';
import './turn-control';
