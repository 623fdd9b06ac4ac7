import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadAgentDefinitions } from '../../../src/project/agent-definitions/load';
import { builtinAgents } from '../../../src/shared/agents/builtin-agents';
import { createDefinitionTree, type DefinitionTree, definitionFile } from './helpers';

let tree: DefinitionTree;
beforeEach(async () => {
  tree = await createDefinitionTree();
});
afterEach(() => tree.cleanup());

const builtinNames = Object.keys(builtinAgents).sort();

function load(cwd: string) {
  return loadAgentDefinitions({ cwd, homeDir: tree.home });
}

describe('loadAgentDefinitions: discovery', () => {
  it('gives the built-ins, and no reports, when no directory exists', async () => {
    const loaded = await load(path.join(tree.root, 'project'));
    expect(Object.keys(loaded.definitions)).toEqual(builtinNames);
    expect(loaded.definitions.Explore).toEqual(builtinAgents.Explore);
    expect(loaded.reports).toEqual([]);
  });

  it('searches cwd and every ancestor, nearest first, then the user directory', async () => {
    const cwd = path.join(tree.root, 'work', 'app');
    const loaded = await load(cwd);
    expect(loaded.searched.slice(0, 3)).toEqual([
      path.join(cwd, '.claude', 'agents'),
      path.join(tree.root, 'work', '.claude', 'agents'),
      path.join(tree.root, '.claude', 'agents'),
    ]);
    expect(loaded.searched.at(-2)).toBe(path.join('/', '.claude', 'agents'));
    expect(loaded.searched.at(-1)).toBe(path.join(tree.home, '.claude', 'agents'));
  });

  it('finds definitions in subdirectories and ignores files that are not .md', async () => {
    await tree.write({
      'project/.claude/agents/team/backend/api-designer.md': definitionFile(
        'name: api-designer\ndescription: Designs APIs',
      ),
      'project/.claude/agents/top.md': definitionFile('name: top\ndescription: At the top'),
      'project/.claude/agents/notes.txt': definitionFile('name: notes\ndescription: Not a definition'),
      'home/.claude/agents/personal/deep/helper.md': definitionFile('name: helper\ndescription: Helps'),
    });
    const loaded = await load(path.join(tree.root, 'project'));
    expect(loaded.definitions['api-designer']?.file).toBe(
      path.join(tree.root, 'project/.claude/agents/team/backend/api-designer.md'),
    );
    expect(loaded.definitions.top?.source).toBe('project');
    expect(loaded.definitions.helper?.source).toBe('user');
    expect(loaded.definitions).not.toHaveProperty('notes');
  });

  it('loads definitions from an ancestor project directory', async () => {
    await tree.write({
      'repo/.claude/agents/shared.md': definitionFile('name: shared\ndescription: From the repo root'),
    });
    const loaded = await load(path.join(tree.root, 'repo', 'packages', 'web'));
    expect(loaded.definitions.shared).toMatchObject({
      source: 'project',
      file: path.join(tree.root, 'repo/.claude/agents/shared.md'),
    });
  });

  it('counts home .claude/agents as the user directory when home is an ancestor of cwd', async () => {
    await tree.write({ 'home/.claude/agents/mine.md': definitionFile('name: mine\ndescription: Mine') });
    const loaded = await load(path.join(tree.home, 'code', 'project'));
    expect(loaded.definitions.mine?.source).toBe('user');
    const userDirectory = path.join(tree.home, '.claude', 'agents');
    expect(loaded.searched.filter((dir) => dir === userDirectory)).toHaveLength(1);
    expect(loaded.reports).toEqual([]);
  });
});

describe('loadAgentDefinitions: precedence', () => {
  it('prefers project over user over built-in, and reports each shadowed or overriding file', async () => {
    const [projectReviewer, projectExplore, userReviewer, userPlan, userHelper] = await tree.write({
      'project/.claude/agents/reviewer.md': definitionFile(
        'name: reviewer\ndescription: Project reviewer',
        'Project prompt.',
      ),
      'project/.claude/agents/explore.md': definitionFile(
        'name: Explore\ndescription: Our own explorer\ntools: Read',
        'Explore our way.',
      ),
      'home/.claude/agents/reviewer.md': definitionFile('name: reviewer\ndescription: User reviewer', 'User prompt.'),
      'home/.claude/agents/plan.md': definitionFile('name: Plan\ndescription: My planner\nmodel: opus', 'Plan my way.'),
      'home/.claude/agents/helper.md': definitionFile('name: helper\ndescription: User helper'),
    });
    const loaded = await load(path.join(tree.root, 'project'));

    expect(loaded.definitions.reviewer).toMatchObject({
      source: 'project',
      file: projectReviewer,
      prompt: 'Project prompt.',
    });
    expect(loaded.definitions.Explore).toMatchObject({
      source: 'project',
      file: projectExplore,
      tools: ['Read'],
      prompt: 'Explore our way.',
    });
    expect(loaded.definitions.Explore).not.toHaveProperty('model');
    expect(loaded.definitions.Plan).toMatchObject({ source: 'user', file: userPlan, model: 'opus' });
    expect(loaded.definitions.helper).toMatchObject({ source: 'user', file: userHelper });
    expect(loaded.definitions['general-purpose']).toEqual(builtinAgents['general-purpose']);

    expect(loaded.reports).toEqual(
      [
        { file: projectExplore, level: 'warning', message: 'overrides built-in Explore' },
        { file: userPlan, level: 'warning', message: 'overrides built-in Plan' },
        {
          file: userReviewer,
          level: 'skipped',
          message: `agent "reviewer" is also defined in ${projectReviewer}, which is used: project definitions take precedence over user ones`,
        },
      ].sort((left, right) => ((left.file ?? '') < (right.file ?? '') ? -1 : 1)),
    );
  });

  it('lets the nearest project directory win a name clash', async () => {
    const [far, near] = await tree.write({
      'repo/.claude/agents/builder.md': definitionFile('name: builder\ndescription: Far builder', 'Far.'),
      'repo/app/.claude/agents/nested/builder.md': definitionFile('name: builder\ndescription: Near builder', 'Near.'),
      'home/.claude/agents/builder.md': definitionFile('name: builder\ndescription: User builder', 'User.'),
    });
    const loaded = await load(path.join(tree.root, 'repo', 'app', 'src'));
    expect(loaded.definitions.builder).toMatchObject({ prompt: 'Near.', file: near });
    const skipped = loaded.reports.filter((report) => report.level === 'skipped');
    expect(skipped.map((report) => report.file)).toEqual(
      [far, path.join(tree.home, '.claude/agents/builder.md')].sort(),
    );
    expect(skipped.find((report) => report.file === far)?.message).toContain(`also defined in ${near}`);
  });

  it('within one directory, the first file in path order wins', async () => {
    const [first, second] = await tree.write({
      'project/.claude/agents/a.md': definitionFile('name: twin\ndescription: First', 'First.'),
      'project/.claude/agents/b/twin.md': definitionFile('name: twin\ndescription: Second', 'Second.'),
    });
    const loaded = await load(path.join(tree.root, 'project'));
    expect(loaded.definitions.twin?.file).toBe(first);
    expect(loaded.reports).toEqual([expect.objectContaining({ file: second, level: 'skipped' })]);
  });
});

describe('loadAgentDefinitions: reports', () => {
  it('skips bad files with their path and reason, and keeps loading the rest', async () => {
    const [brokenYaml, noDescription, noFrontMatter, good] = await tree.write({
      'project/.claude/agents/broken-yaml.md': definitionFile('name: broken\ndescription: d\ntools: [Read'),
      'project/.claude/agents/no-description.md': definitionFile('name: nodesc'),
      'project/.claude/agents/no-front-matter.md': '# Just Markdown\n\nNo front matter here.\n',
      'project/.claude/agents/good.md': definitionFile('name: good\ndescription: Fine'),
    });
    const loaded = await load(path.join(tree.root, 'project'));
    expect(Object.keys(loaded.definitions)).toEqual([...builtinNames, 'good'].sort());
    expect(loaded.definitions.good?.file).toBe(good);
    expect(loaded.reports).toEqual([
      { file: brokenYaml, level: 'skipped', message: expect.stringMatching(/^invalid YAML in the front matter/) },
      { file: noDescription, level: 'skipped', message: 'field "description" is required' },
      { file: noFrontMatter, level: 'skipped', message: expect.stringMatching(/^no YAML front matter/) },
    ]);
  });

  it('reports unknown tools and unsupported fields per file', async () => {
    const [fetcher, painter] = await tree.write({
      'project/.claude/agents/fetcher.md': definitionFile(
        'name: fetcher\ndescription: Fetches\ntools: Read, NotebookEdit',
      ),
      'project/.claude/agents/painter.md': definitionFile(
        'name: painter\ndescription: Paints\ninitialPrompt: Paint\ntools: [Read, MultiEdit]',
      ),
    });
    const loaded = await load(path.join(tree.root, 'project'));
    const byFile = (file: string | undefined) =>
      loaded.reports.filter((report) => report.file === file).map((report) => report.message);
    expect(byFile(fetcher)).toEqual([expect.stringMatching(/^tools: NotebookEdit is not a tool of this runtime/)]);
    expect(byFile(painter)).toEqual([
      'field "initialPrompt" is accepted but not supported yet',
      expect.stringMatching(/^tools: MultiEdit is not a tool/),
    ]);
    expect(loaded.definitions.painter?.unsupported).toEqual({ initialPrompt: 'Paint' });
  });

  it('keeps a definition that resolves to no tools, with a warning', async () => {
    const [file] = await tree.write({
      'project/.claude/agents/web.md': definitionFile(
        'name: web\ndescription: Notebooks only\ntools: NotebookEdit, MultiEdit',
      ),
    });
    const loaded = await load(path.join(tree.root, 'project'));
    expect(loaded.definitions.web?.tools).toEqual([]);
    // Unknown names may be the worker's custom tools (docs/tools.md, "Custom tools"): the warning says so.
    expect(loaded.reports).toContainEqual({
      file,
      level: 'warning',
      message:
        'agent "web" has no runtime or MCP tools: it runs only if its worker defines the custom tool(s) NotebookEdit, MultiEdit',
    });
    expect(loaded.definitions.web?.customTools).toEqual(['NotebookEdit', 'MultiEdit']);
  });

  it('warns when Agent(...) names a type that does not exist', async () => {
    const [file] = await tree.write({
      'project/.claude/agents/lead.md': definitionFile('name: lead\ndescription: Leads\ntools: Agent(Explore, ghost)'),
    });
    const loaded = await load(path.join(tree.root, 'project'));
    expect(loaded.definitions.lead?.allowedAgentTypes).toEqual(['Explore', 'ghost']);
    expect(loaded.reports).toEqual([
      { file, level: 'warning', message: 'tools: Agent(...) names agent types that are not defined: ghost' },
    ]);
  });

  it('is deterministic: definitions keyed by sorted name, reports sorted, JSON-stable', async () => {
    await tree.write({
      'project/.claude/agents/zeta.md': definitionFile(
        'name: zeta\ndescription: z\ncolor: teal\ntools: Read, NotebookEdit',
      ),
      'project/.claude/agents/alpha.md': definitionFile('name: alpha\ndescription: a\ninitialPrompt: go'),
      'project/.claude/agents/broken.md': 'no front matter',
      'home/.claude/agents/middle.md': definitionFile('name: middle\ndescription: m\nhooks: { Stop: 1 }'),
    });
    const first = await load(path.join(tree.root, 'project'));
    const second = await load(path.join(tree.root, 'project'));
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
    expect(JSON.parse(JSON.stringify(first))).toEqual(first);
    expect(Object.keys(first.definitions)).toEqual(['Explore', 'Plan', 'alpha', 'general-purpose', 'middle', 'zeta']);
    const keys = first.reports.map((report) => `${report.file}\u0000${report.level}\u0000${report.message}`);
    expect(keys).toEqual([...keys].sort());
    expect(first.reports).toHaveLength(5);
  });

  // Permission bits do not stop root, so this can only be exercised as another user.
  it.skipIf(process.getuid?.() === 0)('never throws for an unreadable file', async () => {
    const [locked] = await tree.write({
      'project/.claude/agents/locked.md': definitionFile('name: locked\ndescription: d'),
    });
    await fs.chmod(locked as string, 0o000);
    const loaded = await load(path.join(tree.root, 'project'));
    expect(loaded.reports).toEqual([
      { file: locked, level: 'skipped', message: expect.stringMatching(/^cannot read the file/) },
    ]);
  });
});
