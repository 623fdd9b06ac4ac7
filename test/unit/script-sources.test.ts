import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prepareScript } from '../../src/activities/scripts/prepare-script';
import { listSavedScripts, savedScriptDirectories } from '../../src/project/scripts/saved-scripts';
import { resolveScript } from '../../src/client/script-source';
import { scriptLimits } from '../../src/shared/scripts/script-run';

let base: string;
let workspace: string;
let home: string;

const script = (name: string, description = `the ${name} script`) =>
  `export const meta = { name: '${name}', description: '${description}' };\nreturn '${description}';\n`;

async function save(directory: string, fileName: string, source: string): Promise<string> {
  await fs.mkdir(directory, { recursive: true });
  const file = path.join(directory, fileName);
  await fs.writeFile(file, source);
  return file;
}

const projectDir = (...parts: string[]) => path.join(workspace, ...parts, '.claude', 'workflows');
const userDir = () => path.join(home, '.claude', 'workflows');

beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'script-sources-')));
  workspace = path.join(base, 'workspace');
  home = path.join(base, 'home');
  await fs.mkdir(path.join(workspace, 'packages', 'app', 'src'), { recursive: true });
  await fs.mkdir(home, { recursive: true });
});

afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

describe('saved scripts by name', () => {
  it('prefers the project over the user, and the closest project directory over farther ones', async () => {
    await save(userDir(), 'sweep.js', script('sweep', 'user sweep'));
    await save(userDir(), 'only-user.js', script('only-user'));
    await save(projectDir(), 'sweep.js', script('sweep', 'root sweep'));
    await save(projectDir('packages', 'app'), 'sweep.js', script('sweep', 'app sweep'));
    const cwd = path.join(workspace, 'packages', 'app', 'src');

    const fromApp = await prepareScript({ name: 'sweep', cwd, workspaceRoot: workspace }, home);
    expect(fromApp.ok && fromApp.script.meta.description).toBe('app sweep');
    expect(fromApp.ok && fromApp.script.origin).toBe('project');
    expect(fromApp.ok && fromApp.script.path).toBe(path.join(projectDir('packages', 'app'), 'sweep.js'));

    const fromRoot = await prepareScript({ name: 'sweep', cwd: workspace, workspaceRoot: workspace }, home);
    expect(fromRoot.ok && fromRoot.script.meta.description).toBe('root sweep');

    const user = await prepareScript({ name: 'only-user', cwd, workspaceRoot: workspace }, home);
    expect(user.ok && user.script.origin).toBe('user');

    const listed = await listSavedScripts({ cwd, workspaceRoot: workspace, homeDir: home });
    expect(listed.scripts).toEqual([
      {
        name: 'only-user',
        description: 'the only-user script',
        origin: 'user',
        path: path.join(userDir(), 'only-user.js'),
      },
      {
        name: 'sweep',
        description: 'app sweep',
        origin: 'project',
        path: path.join(projectDir('packages', 'app'), 'sweep.js'),
      },
    ]);
    expect(listed.warnings.filter((warning) => warning.includes('is shadowed by'))).toHaveLength(2);
  });

  it('stops the upward search at the workspace root', async () => {
    await save(path.join(base, '.claude', 'workflows'), 'above.js', script('above'));
    const found = await prepareScript({ name: 'above', cwd: workspace, workspaceRoot: workspace }, home);
    expect(found).toEqual({
      ok: false,
      error: expect.stringMatching(/^ScriptNotFound: no saved script named "above"/) as string,
    });
    expect(
      savedScriptDirectories(path.join(workspace, 'packages'), workspace, home).map((entry) => entry.directory),
    ).toEqual([projectDir('packages'), projectDir(), userDir()]);
  });

  it('finds a script by its meta name, warns when the file name differs, and lists broken files as warnings', async () => {
    await save(projectDir(), 'old-file-name.js', script('renamed'));
    await save(projectDir(), 'broken.js', 'export const meta = { name: "broken" };\n');
    await save(projectDir(), 'typed.js', `${script('typed')}const x: number = 1;\n`);
    await save(projectDir(), 'notes.txt', 'not a script');
    const found = await prepareScript({ name: 'renamed', cwd: workspace, workspaceRoot: workspace }, home);
    expect(found.ok && found.script.path).toBe(path.join(projectDir(), 'old-file-name.js'));
    const missing = await prepareScript({ name: 'broken', cwd: workspace, workspaceRoot: workspace }, home);
    expect(missing.ok ? '' : missing.error).toContain('Saved scripts: renamed.');

    const listed = await listSavedScripts({ cwd: workspace, workspaceRoot: workspace, homeDir: home });
    expect(listed.scripts.map((entry) => entry.name)).toEqual(['renamed']);
    expect(listed.warnings).toEqual([
      expect.stringMatching(/broken\.js skipped: InvalidScript: .*meta\.description/) as string,
      expect.stringMatching(/old-file-name\.js declares the name "renamed".*rename the file to renamed\.js/) as string,
      expect.stringMatching(/typed\.js skipped: InvalidScript: 3:8: syntax error/) as string,
    ]);
  });

  it('skips a saved script that links outside the workspace', async () => {
    const outside = await save(path.join(base, 'elsewhere'), 'secret.js', script('secret'));
    await fs.mkdir(projectDir(), { recursive: true });
    await fs.symlink(outside, path.join(projectDir(), 'secret.js'));
    const found = await prepareScript({ name: 'secret', cwd: workspace, workspaceRoot: workspace }, home);
    expect(found.ok).toBe(false);
    const listed = await listSavedScripts({ cwd: workspace, workspaceRoot: workspace, homeDir: home });
    expect(listed.scripts).toEqual([]);
    expect(listed.warnings[0]).toMatch(/secret\.js skipped: PathOutsideWorkspace: /);
  });

  it('refuses a name that is not a script name', async () => {
    const result = await prepareScript({ name: '../../etc/passwd', cwd: workspace, workspaceRoot: workspace }, home);
    expect(result).toEqual({
      ok: false,
      error: expect.stringMatching(/^ScriptNotFound: "\.\.\/\.\.\/etc\/passwd" is not a saved script name/) as string,
    });
  });
});

describe('prepareScript by path and inline', () => {
  it('reads a scriptPath relative to the cwd, and it wins over script and name', async () => {
    await save(path.join(workspace, 'scripts'), 'run.js', script('from-file'));
    const result = await prepareScript(
      {
        scriptPath: '../scripts/run.js',
        script: script('inline'),
        name: 'other',
        cwd: path.join(workspace, 'packages'),
        workspaceRoot: workspace,
      },
      home,
    );
    expect(result.ok && result.script.meta.name).toBe('from-file');
    expect(result.ok && result.script.origin).toBe('path');
    expect(result.ok && result.script.path).toBe(path.join(workspace, 'scripts', 'run.js'));
  });

  it("allows a scriptPath in the user's workflows directory", async () => {
    const file = await save(userDir(), 'mine.js', script('mine'));
    const result = await prepareScript({ scriptPath: file, cwd: workspace, workspaceRoot: workspace }, home);
    expect(result.ok && result.script.meta.name).toBe('mine');
  });

  it('refuses a scriptPath outside the workspace, directly or through a symlink', async () => {
    const outside = await save(path.join(base, 'elsewhere'), 'evil.js', script('evil'));
    const direct = await prepareScript({ scriptPath: outside, cwd: workspace, workspaceRoot: workspace }, home);
    expect(direct).toEqual({
      ok: false,
      error: expect.stringMatching(/^PathOutsideWorkspace: the script file /) as string,
    });
    const climbing = await prepareScript(
      { scriptPath: '../elsewhere/evil.js', cwd: workspace, workspaceRoot: workspace },
      home,
    );
    expect(climbing.ok ? '' : climbing.error).toMatch(/^PathOutsideWorkspace: /);

    await fs.symlink(outside, path.join(workspace, 'link.js'));
    const linked = await prepareScript({ scriptPath: 'link.js', cwd: workspace, workspaceRoot: workspace }, home);
    expect(linked.ok ? '' : linked.error).toMatch(/^PathOutsideWorkspace: the script file link\.js is/);
    // The target of the link is not told.
    expect(linked.ok ? '' : linked.error).not.toContain('elsewhere');

    await fs.symlink(path.join(base, 'elsewhere'), path.join(workspace, 'linked-dir'));
    const throughDir = await prepareScript(
      { scriptPath: 'linked-dir/evil.js', cwd: workspace, workspaceRoot: workspace },
      home,
    );
    expect(throughDir.ok ? '' : throughDir.error).toMatch(/^PathOutsideWorkspace: /);
  });

  it('refuses an oversize file before reading it, a missing file, and a directory', async () => {
    const big = path.join(workspace, 'big.js');
    await fs.writeFile(big, script('big'));
    await fs.truncate(big, scriptLimits.maxScriptBytes + 1);
    const oversize = await prepareScript({ scriptPath: 'big.js', cwd: workspace, workspaceRoot: workspace }, home);
    expect(oversize).toEqual({
      ok: false,
      error: `FileTooLarge: the script file big.js is ${scriptLimits.maxScriptBytes + 1} bytes; scripts are at most ${scriptLimits.maxScriptBytes} bytes. Move data into \`args\` or split the script.`,
    });
    const missing = await prepareScript({ scriptPath: 'nope.js', cwd: workspace, workspaceRoot: workspace }, home);
    expect(missing.ok ? '' : missing.error).toBe('FileNotFound: the script file nope.js does not exist.');
    const directory = await prepareScript({ scriptPath: 'packages', cwd: workspace, workspaceRoot: workspace }, home);
    expect(directory.ok ? '' : directory.error).toMatch(/^NotAFile: packages is not a regular file/);
  });

  it('checks an inline script and refuses missing or conflicting sources', async () => {
    const inline = await prepareScript({ script: script('inline'), cwd: workspace, workspaceRoot: workspace }, home);
    expect(inline.ok && inline.script.origin).toBe('inline');
    const bad = await prepareScript({ script: 'return 1;', cwd: workspace, workspaceRoot: workspace }, home);
    expect(bad.ok ? '' : bad.error).toMatch(/^InvalidScript: 1:1: a script must start with its header/);
    const none = await prepareScript({ cwd: workspace, workspaceRoot: workspace }, home);
    expect(none.ok ? '' : none.error).toMatch(/^InvalidToolInput: Workflow: give one of script/);
    const both = await prepareScript(
      { script: script('a'), name: 'a', cwd: workspace, workspaceRoot: workspace },
      home,
    );
    expect(both.ok ? '' : both.error).toMatch(/^InvalidToolInput: Workflow: give either script .* or name .*not both/);
  });
});

describe('one lookup for the Workflow tool and the client', () => {
  it('finds saved scripts the same way on both sides: by meta name, closest first, then the user', async () => {
    await save(projectDir(), 'old-file-name.js', script('renamed', 'root renamed'));
    await save(projectDir('packages'), 'renamed.js', script('renamed', 'packages renamed'));
    await save(userDir(), 'mine.js', script('mine'));
    const cwd = path.join(workspace, 'packages', 'app', 'src');
    for (const name of ['renamed', 'mine']) {
      const fromTool = await prepareScript({ name, cwd, workspaceRoot: workspace }, home);
      const fromClient = await resolveScript({ name }, { cwd, homeDir: home });
      expect(fromTool).toEqual({ ok: true, script: fromClient });
    }
    expect((await resolveScript({ name: 'renamed' }, { cwd, homeDir: home })).meta.description).toBe(
      'packages renamed',
    );
  });

  it('says why a saved <name>.js was refused, in the same words on both sides', async () => {
    const broken = await save(projectDir(), 'broken.js', `${script('broken')}const x = ;\n`);
    const fromTool = await prepareScript({ name: 'broken', cwd: workspace, workspaceRoot: workspace }, home);
    const fromClient = await resolveScript({ name: 'broken' }, { cwd: workspace, homeDir: home }).catch(
      (error: unknown) => (error as Error).message,
    );
    const refusal = `Refused ${broken}: InvalidScript: 3:`;
    expect(fromTool.ok ? '' : fromTool.error).toMatch(/^ScriptNotFound: no saved script named "broken" in /);
    expect(fromTool.ok ? '' : fromTool.error).toContain(refusal);
    expect(fromClient).toMatch(/^ScriptNotFound: no saved script named "broken" in /);
    expect(fromClient).toContain(refusal);
  });

  it('lets a person name any readable file, where a model is kept to its workspace', async () => {
    const outside = await save(path.join(base, 'elsewhere'), 'theirs.js', script('theirs'));
    const fromTool = await prepareScript({ scriptPath: outside, cwd: workspace, workspaceRoot: workspace }, home);
    expect(fromTool.ok ? '' : fromTool.error).toMatch(/^PathOutsideWorkspace: /);
    const fromClient = await resolveScript({ path: outside }, { cwd: workspace, homeDir: home });
    expect(fromClient).toMatchObject({ origin: 'path', path: outside, meta: { name: 'theirs' } });
    // A person's saved script may link to their own files elsewhere; a model's may not.
    await fs.mkdir(projectDir(), { recursive: true });
    await fs.symlink(outside, path.join(projectDir(), 'theirs.js'));
    expect((await resolveScript({ name: 'theirs' }, { cwd: workspace, homeDir: home })).meta.name).toBe('theirs');
    const linked = await prepareScript({ name: 'theirs', cwd: workspace, workspaceRoot: workspace }, home);
    expect(linked.ok ? '' : linked.error).toContain(
      `Refused ${path.join(projectDir(), 'theirs.js')}: PathOutsideWorkspace`,
    );
  });

  it('refuses the same missing file, directory and oversize file in the same words', async () => {
    const big = path.join(workspace, 'big.js');
    await fs.writeFile(big, script('big'));
    await fs.truncate(big, scriptLimits.maxScriptBytes + 1);
    for (const scriptPath of ['nope.js', 'packages', 'big.js']) {
      const fromTool = await prepareScript({ scriptPath, cwd: workspace, workspaceRoot: workspace }, home);
      const fromClient = await resolveScript({ path: scriptPath }, { cwd: workspace, homeDir: home }).catch(
        (error: unknown) => (error as Error).message,
      );
      expect(fromTool).toEqual({ ok: false, error: fromClient });
    }
  });
});
