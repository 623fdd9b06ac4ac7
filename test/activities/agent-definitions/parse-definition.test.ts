import { describe, expect, it } from 'vitest';
import { parseDefinitionFile } from '../../../src/project/agent-definitions/parse-definition';
import { definitionFile } from './helpers';

const file = '/project/.claude/agents/agent.md';

function parse(frontMatter: string, body?: string) {
  return parseDefinitionFile(definitionFile(frontMatter, body), file, 'project');
}

function messages(result: ReturnType<typeof parse>): string[] {
  return result.reports.map((report) => report.message);
}

describe('parseDefinitionFile: the basics', () => {
  it('reads name, description and the trimmed body as the system prompt', () => {
    const result = parse(
      'name: reviewer\ndescription: Reviews diffs',
      '\n\n  Review the diff carefully.\n\nThen report.  \n\n',
    );
    expect(result).toEqual({
      definition: {
        name: 'reviewer',
        description: 'Reviews diffs',
        prompt: 'Review the diff carefully.\n\nThen report.',
        source: 'project',
        file,
      },
      reports: [],
    });
  });

  it('reads every supported field', () => {
    const result = parse(
      [
        'name: worker',
        'description: Does work',
        'model: haiku',
        'permissionMode: acceptEdits',
        'maxTurns: 7',
        'background: true',
        'isolation: worktree',
      ].join('\n'),
    );
    expect(result.reports).toEqual([]);
    expect(result.definition).toMatchObject({
      model: 'haiku',
      permissionMode: 'acceptEdits',
      maxTurns: 7,
      background: true,
      isolation: 'worktree',
    });
  });

  it('reads thinking as adaptive, off, or a budget of at least 1024 tokens', () => {
    expect(parse('name: a\ndescription: d\nthinking: adaptive').definition?.thinking).toEqual({ type: 'adaptive' });
    expect(parse('name: a\ndescription: d\nthinking: 4096').definition?.thinking).toEqual({
      type: 'enabled',
      budgetTokens: 4096,
    });
    expect(parse('name: a\ndescription: d\nthinking: off').definition?.thinking).toBeUndefined();
    expect(messages(parse('name: a\ndescription: d\nthinking: 100'))[0]).toMatch(
      /"thinking" must be adaptive, off, or a thinking budget/,
    );
    expect(messages(parse('name: a\ndescription: d\nthinking: lots'))[0]).toMatch(/"thinking" must be/);
  });

  it('tolerates a byte-order mark and CRLF line endings', () => {
    const text = '\uFEFF---\r\nname: windows\r\ndescription: Written on Windows\r\n---\r\nLine one.\r\nLine two.\r\n';
    const result = parseDefinitionFile(text, file, 'user');
    expect(result.definition).toMatchObject({
      name: 'windows',
      description: 'Written on Windows',
      prompt: 'Line one.\nLine two.',
      source: 'user',
    });
  });

  it('treats an optional field left empty as absent', () => {
    const result = parse('name: empty-fields\ndescription: d\nmodel:\ntools:');
    expect(result.reports).toEqual([]);
    expect(result.definition).not.toHaveProperty('model');
    expect(result.definition).not.toHaveProperty('tools');
  });

  it('reads a one-line description with an unquoted colon, with a warning to quote it', () => {
    const result = parse('name: colon\ndescription: Use this agent when: the user asks for a review\ntools: Read');
    expect(result.definition?.description).toBe('Use this agent when: the user asks for a review');
    expect(result.definition?.tools).toEqual(['Read']);
    expect(messages(result)).toEqual([expect.stringContaining('not valid YAML')]);
    expect(result.reports[0]?.level).toBe('warning');
  });
});

describe('parseDefinitionFile: tools and disallowedTools', () => {
  it('reads tools as a comma-separated string, in runtime order', () => {
    const result = parse('name: a\ndescription: d\ntools: Read, Grep,Bash');
    expect(result.definition?.tools).toEqual(['Bash', 'Grep', 'Read']);
    expect(result.reports).toEqual([]);
  });

  it('reads tools as a YAML list', () => {
    const result = parse('name: a\ndescription: d\ntools:\n  - Write\n  - Read');
    expect(result.definition?.tools).toEqual(['Read', 'Write']);
  });

  it('reads * as every tool', () => {
    expect(parse('name: a\ndescription: d\ntools: "*"').definition).not.toHaveProperty('tools');
    expect(parse('name: a\ndescription: d\ntools: ["*"]').definition).not.toHaveProperty('tools');
  });

  it('reads disallowedTools as a string or a list, keeping every other tool', () => {
    expect(parse('name: a\ndescription: d\ndisallowedTools: Write, Edit').definition).toMatchObject({
      disallowedTools: ['Edit', 'Write'],
    });
    const listed = parse('name: a\ndescription: d\ntools: Read, Write, Bash\ndisallowedTools: [Bash]');
    expect(listed.definition).toMatchObject({ tools: ['Bash', 'Read', 'Write'], disallowedTools: ['Bash'] });
    expect(listed.reports).toEqual([]);
  });

  it('turns Agent(Explore,Plan) into the Agent tool plus allowedAgentTypes', () => {
    const compact = parse('name: a\ndescription: d\ntools: Read, Agent(Explore,Plan)');
    expect(compact.definition).toMatchObject({ tools: ['Agent', 'Read'], allowedAgentTypes: ['Explore', 'Plan'] });
    const spaced = parse('name: a\ndescription: d\ntools:\n  - Agent(Explore, Plan)\n  - Grep');
    expect(spaced.definition).toMatchObject({ tools: ['Agent', 'Grep'], allowedAgentTypes: ['Explore', 'Plan'] });
    expect(compact.reports).toEqual([]);
  });

  it('leaves allowedAgentTypes unset for a plain Agent, and reads the legacy name Task', () => {
    expect(parse('name: a\ndescription: d\ntools: Agent, Read').definition).not.toHaveProperty('allowedAgentTypes');
    expect(parse('name: a\ndescription: d\ntools: Task(Explore)').definition).toMatchObject({
      tools: ['Agent'],
      allowedAgentTypes: ['Explore'],
    });
  });

  it("keeps Claude Code's task-list tools (once dropped as unknown), in runtime order", () => {
    const result = parse(
      'name: lead\ndescription: d\ntools: TaskUpdate, Read, TaskCreate, TaskGet, TaskList, SendMessage',
    );
    expect(result.definition?.tools).toEqual([
      'SendMessage',
      'Read',
      'TaskCreate',
      'TaskList',
      'TaskGet',
      'TaskUpdate',
    ]);
    expect(result.reports).toEqual([]);
  });

  it('keeps mcp__ names in mcpTools, out of tools', () => {
    const result = parse('name: a\ndescription: d\ntools: Read, mcp__github__get_pull_request, mcp__jira');
    expect(result.definition).toMatchObject({
      tools: ['Read'],
      mcpTools: ['mcp__github__get_pull_request', 'mcp__jira'],
    });
    expect(result.reports).toEqual([]);
  });

  it('drops tools the runtime does not have, naming them in one warning', () => {
    const result = parse('name: a\ndescription: d\ntools: Read, WebFetch, TodoWrite, NotebookEdit, MultiEdit, grep');
    expect(result.definition?.tools).toEqual(['Read', 'WebFetch', 'TodoWrite']);
    expect(result.reports).toHaveLength(1);
    expect(result.reports[0]).toMatchObject({ file, level: 'warning' });
    expect(result.reports[0]?.message).toMatch(
      /^tools: NotebookEdit, MultiEdit, grep \(did you mean Grep\?\) are not tools of this runtime/,
    );
    expect(result.droppedTools).toEqual(['NotebookEdit', 'MultiEdit', 'grep']);
  });

  it('keeps unknown names as custom tool names: allowed in tools, denied in disallowedTools', () => {
    const result = parse(
      'name: a\ndescription: d\ntools: Read, lookup_weather, Bash(git:*), mcp__x__y\ndisallowedTools: shell_exec',
    );
    // Bash(git:*) grants Bash narrowed to its rule (tool rules), not a custom tool.
    expect(result.definition?.tools).toEqual(['Bash', 'Read']);
    expect(result.definition?.toolRules?.allow).toEqual([{ tool: 'Bash', content: 'git:*' }]);
    expect(result.definition?.customTools).toEqual(['lookup_weather']);
    expect(result.definition?.disallowedCustomTools).toEqual(['shell_exec']);
    expect(result.definition?.mcpTools).toEqual(['mcp__x__y']);
    const denied = parse('name: b\ndescription: d\ntools: lookup_weather\ndisallowedTools: lookup_weather');
    expect(messages(denied)).toContain('agent "b" resolves to no tools; spawning it will be refused');
  });

  it('reports unknown names in disallowedTools too', () => {
    const result = parse('name: a\ndescription: d\ndisallowedTools: NotebookEdit, Bash');
    expect(result.definition?.disallowedTools).toEqual(['Bash']);
    expect(messages(result)).toEqual([
      expect.stringMatching(/^disallowedTools: NotebookEdit is not a tool of this runtime/),
    ]);
  });

  it('keeps tool rules: an allow rule narrows its tool to matching calls, a deny rule refuses matching calls', () => {
    const allowed = parse('name: a\ndescription: d\ntools: Read, Bash(git diff:*), Bash(git status), Edit(src/**)');
    expect(allowed.definition?.tools).toEqual(['Bash', 'Read', 'Edit']);
    expect(allowed.definition?.toolRules).toEqual({
      allow: [
        { tool: 'Bash', content: 'git diff:*' },
        { tool: 'Bash', content: 'git status' },
        { tool: 'Edit', content: 'src/**' },
      ],
    });
    expect(allowed.reports).toEqual([]);
    expect(allowed.droppedTools).toBeUndefined();
    const denied = parse('name: a\ndescription: d\ndisallowedTools: Bash(rm:*), Read(./.env)');
    expect(denied.definition).not.toHaveProperty('disallowedTools');
    expect(denied.definition?.toolRules).toEqual({
      deny: [
        { tool: 'Bash', content: 'rm:*' },
        { tool: 'Read', content: './.env' },
      ],
    });
    expect(denied.reports).toEqual([]);
  });

  it('a tool listed whole (or as Tool(*)) is not narrowed by its rules; a whole deny wins over rules', () => {
    expect(parse('name: a\ndescription: d\ntools: Bash, Bash(git diff:*)').definition).not.toHaveProperty('toolRules');
    expect(parse('name: a\ndescription: d\ntools: Bash(*)').definition).toMatchObject({ tools: ['Bash'] });
    expect(parse('name: a\ndescription: d\ntools: Bash(*)').definition).not.toHaveProperty('toolRules');
    const both = parse('name: a\ndescription: d\ndisallowedTools: Bash, Bash(rm:*)').definition;
    expect(both?.disallowedTools).toEqual(['Bash']);
    expect(both).not.toHaveProperty('toolRules');
  });

  it('anchors /path rules at the project root and ~/path rules at home', () => {
    const result = parseDefinitionFile(
      definitionFile('name: a\ndescription: d\ntools: Edit(/src/**), Read(~/notes/*.md), Read(docs/*)'),
      file,
      'project',
      '/home/me',
    );
    expect(result.definition?.toolRules?.allow).toEqual([
      { tool: 'Edit', content: '/src/**', root: '/project' },
      { tool: 'Read', content: '//home/me/notes/*.md' },
      { tool: 'Read', content: 'docs/*' },
    ]);
  });

  it('never widens: a rule on a tool rules cannot narrow grants nothing in tools and denies the whole tool in disallowedTools', () => {
    const allowed = parse('name: a\ndescription: d\ntools: Read, TodoWrite(x)');
    expect(allowed.definition?.tools).toEqual(['Read']);
    expect(messages(allowed)).toEqual([expect.stringContaining('TodoWrite(x) is dropped')]);
    const denied = parse('name: a\ndescription: d\ndisallowedTools: TodoWrite(x), Agent(general-purpose)');
    expect(denied.definition?.disallowedTools).toEqual(['Agent', 'TodoWrite']);
    expect(messages(denied)).toHaveLength(2);
  });

  it('keeps a definition whose tools resolve to none, with a warning', () => {
    const result = parse('name: web-only\ndescription: d\ntools: NotebookEdit');
    expect(result.definition?.tools).toEqual([]);
    expect(messages(result)).toContain(
      'agent "web-only" has no runtime or MCP tools: it runs only if its worker defines the custom tool(s) NotebookEdit',
    );
    const deniedAll = parse('name: deny-all\ndescription: d\ndisallowedTools: "*"');
    expect(messages(deniedAll)).toEqual(['agent "deny-all" resolves to no tools; spawning it will be refused']);
    const emptyList = parse('name: none\ndescription: d\ntools: []');
    expect(emptyList.definition?.tools).toEqual([]);
    expect(messages(emptyList)).toEqual(['agent "none" resolves to no tools; spawning it will be refused']);
  });
});

describe('parseDefinitionFile: permission mode and model', () => {
  it('reads manual as default, and auto as default with a warning', () => {
    expect(parse('name: a\ndescription: d\npermissionMode: manual')).toMatchObject({
      definition: { permissionMode: 'default' },
      reports: [],
    });
    const auto = parse('name: a\ndescription: d\npermissionMode: auto');
    expect(auto.definition?.permissionMode).toBe('default');
    expect(messages(auto)).toEqual([expect.stringContaining('"auto" is not supported yet')]);
    expect(parse('name: a\ndescription: d\npermissionMode: bubble').definition?.permissionMode).toBe('bubble');
  });

  it('keeps model aliases, full ids and inherit as written; warns about a name it cannot place', () => {
    for (const model of ['sonnet', 'claude-opus-5', 'inherit']) {
      expect(parse(`name: a\ndescription: d\nmodel: ${model}`)).toMatchObject({ definition: { model }, reports: [] });
    }
    const unknown = parse('name: a\ndescription: d\nmodel: fable');
    expect(unknown.definition?.model).toBe('fable');
    expect(messages(unknown)).toEqual([expect.stringContaining('model "fable" is not an alias')]);
  });
});

describe('parseDefinitionFile: skills', () => {
  it('reads a list or a comma-separated string of names, and ignores names that are not directory names', () => {
    expect(parse('name: a\ndescription: d\nskills: [pdf, review]').definition?.skills).toEqual(['pdf', 'review']);
    expect(parse('name: a\ndescription: d\nskills: pdf, review, pdf').definition?.skills).toEqual(['pdf', 'review']);
    const hostile = parse('name: a\ndescription: d\nskills: ["../../etc", "/abs", "ok", "a/b", ".."]');
    expect(hostile.definition?.skills).toEqual(['ok']);
    expect(messages(hostile)).toEqual([
      'skills: "../../etc", "/abs", "a/b", ".." are not skill names (a directory name under .claude/skills); ignored',
    ]);
    expect(messages(parse('name: a\ndescription: d\nskills: { a: 1 }'))).toEqual([
      expect.stringMatching(/^field "skills" must be/),
    ]);
  });
});

describe('parseDefinitionFile: effort', () => {
  it('reads the five levels and skips the file for anything else, naming them', () => {
    for (const level of ['low', 'medium', 'high', 'xhigh', 'max']) {
      expect(parse(`name: a\ndescription: d\neffort: ${level}`).definition?.effort).toBe(level);
    }
    for (const bad of ['extreme', 'High', '3', '[low]']) {
      const result = parse(`name: a\ndescription: d\neffort: ${bad}`);
      expect(result.definition).toBeUndefined();
      expect(messages(result)).toEqual(['field "effort" must be one of low, medium, high, xhigh, max']);
    }
  });
});

describe('parseDefinitionFile: color', () => {
  it("reads Claude Code's eight named colours, in any case", () => {
    for (const color of ['red', 'blue', 'green', 'yellow', 'purple', 'orange', 'pink', 'cyan']) {
      const result = parse(`name: a\ndescription: d\ncolor: ${color}`);
      expect(result.definition?.color).toBe(color);
      expect(result.reports).toEqual([]);
    }
    expect(parse('name: a\ndescription: d\ncolor: " Orange "').definition?.color).toBe('orange');
  });

  it('keeps the agent with a warning when the colour is unknown or not a string', () => {
    for (const value of ['magenta', '42', '[red]', '{ rgb: 1 }', 'true']) {
      const result = parse(`name: a\ndescription: d\ncolor: ${value}`);
      expect(result.definition).toBeDefined();
      expect(result.definition).not.toHaveProperty('color');
      expect(result.definition).not.toHaveProperty('unsupported');
      expect(messages(result)).toEqual([
        expect.stringMatching(
          /^color .* is not one of red, blue, green, yellow, purple, orange, pink, cyan; the agent is shown without a colour$/,
        ),
      ]);
    }
  });
});

describe('parseDefinitionFile: unsupported fields', () => {
  it('keeps them verbatim and reports each one', () => {
    const result = parse(
      [
        'name: rich',
        'description: d',
        'mcpServers:',
        '  - github',
        '  - slack: { command: slack-mcp, args: [--verbose] }',
        'hooks:',
        '  PreToolUse:',
        '    - matcher: Bash',
        'skills: [pdf]',
        'memory: project',
        'color: blue',
        'effort: high',
        'initialPrompt: Start here',
        'omitClaudeMd: true',
        'favouriteFood: pizza',
      ].join('\n'),
    );
    expect(result.definition?.mcpServers).toEqual([
      { name: 'github' },
      { name: 'slack', spec: { type: 'stdio', command: 'slack-mcp', args: ['--verbose'] } },
    ]);
    expect(result.definition?.unsupported).toEqual({
      initialPrompt: 'Start here',
      favouriteFood: 'pizza',
    });
    // omitClaudeMd is supported: a slim prompt without CLAUDE.md and git status.
    expect(result.definition?.oneShot).toBe(true);
    expect(result.definition?.color).toBe('blue');
    expect(result.definition?.effort).toBe('high');
    expect(result.definition?.skills).toEqual(['pdf']);
    expect(result.definition?.memory).toBe('project');
    const fields = ['initialPrompt'];
    expect(messages(result)).toEqual([
      ...fields.map((field) => `field "${field}" is accepted but not supported yet`),
      'field "favouriteFood" is accepted but not supported yet (it is not a documented Claude Code field either: check the spelling)',
      'hooks.PreToolUse[0]: hooks: must be a list of hook handlers ({type: "command", command: "..."}, …); dropped (the agent loads without it)',
    ]);
    expect(result.reports.every((report) => report.level === 'warning' && report.file === file)).toBe(true);
  });
});

describe('parseDefinitionFile: files that are skipped', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['no front matter', '# Reviewer\nYou review code.\n', /no YAML front matter/],
    ['unclosed front matter', '---\nname: a\ndescription: d\nbody\n', /not closed/],
    [
      'broken YAML',
      definitionFile('name: a\ndescription: d\ntools: [Read, Grep'),
      /^invalid YAML in the front matter: .*line 3/,
    ],
    ['duplicate keys', definitionFile('name: a\nname: b\ndescription: d'), /invalid YAML.*unique/],
    ['a list as front matter', definitionFile('- name\n- description'), /must be a YAML mapping/],
    ['empty front matter', '---\n---\nbody\n', /front matter is empty/],
    ['missing description', definitionFile('name: a'), /^field "description" is required$/],
    ['missing name', definitionFile('description: d'), /^field "name" is required$/],
    ['a blank description', definitionFile('name: a\ndescription: "  "'), /field "description" must not be empty/],
    ['a name that is not a string', definitionFile('name: [a]\ndescription: d'), /field "name" must be a string/],
    [
      'maxTurns not a positive integer',
      definitionFile('name: a\ndescription: d\nmaxTurns: 0'),
      /field "maxTurns" must be a positive integer/,
    ],
    [
      'maxTurns as text',
      definitionFile('name: a\ndescription: d\nmaxTurns: ten'),
      /field "maxTurns" must be a positive integer/,
    ],
    [
      'background not a boolean',
      definitionFile('name: a\ndescription: d\nbackground: "yes"'),
      /field "background" must be true or false/,
    ],
    [
      'isolation other than worktree',
      definitionFile('name: a\ndescription: d\nisolation: container'),
      /field "isolation" must be "worktree"/,
    ],
    [
      'an unknown permission mode',
      definitionFile('name: a\ndescription: d\npermissionMode: yolo'),
      /field "permissionMode" must be one of default, acceptEdits/,
    ],
    [
      'tools as a number',
      definitionFile('name: a\ndescription: d\ntools: 3'),
      /field "tools" must be a comma-separated string or a YAML list/,
    ],
    ['an empty body', definitionFile('name: a\ndescription: d', '   \n\n'), /the body is empty/],
    ['the reserved name fork', definitionFile('name: fork\ndescription: d'), /name "fork" is reserved/],
  ];

  it.each(cases)('skips a file with %s, saying why', (_label, text, reason) => {
    const result = parseDefinitionFile(text, file, 'project');
    expect(result.definition).toBeUndefined();
    expect(result.reports).toHaveLength(1);
    expect(result.reports[0]).toMatchObject({ file, level: 'skipped' });
    expect(result.reports[0]?.message).toMatch(reason);
  });

  it('lists every field problem of one file', () => {
    const result = parse('name: a\nmaxTurns: -1\nbackground: 1');
    expect(messages(result)).toEqual([
      'field "description" is required; field "maxTurns" must be a positive integer; field "background" must be true or false',
    ]);
  });
});
