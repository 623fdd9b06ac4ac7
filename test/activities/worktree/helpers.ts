import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { simpleGit, type SimpleGit } from 'simple-git';

/** A real git repository in a temporary directory (`repo` inside `root`, so siblings can be made). */
export interface TestRepository {
  root: string;
  repo: string;
  git: SimpleGit;
  /** Writes a file relative to the repository (or to `base`). */
  write(relative: string, content: string, base?: string): Promise<string>;
  read(relative: string, base?: string): Promise<string>;
  /** Stages everything in `directory` (default: the repository) and commits. */
  commit(message: string, directory?: string): Promise<string>;
  /** `git status --porcelain` of a checkout (default: the main one). */
  status(directory?: string): Promise<string>;
  branches(): Promise<string[]>;
  /** Paths of `git worktree list`. */
  worktreePaths(): Promise<string[]>;
  cleanup(): Promise<void>;
}

/** Initialises a repository on `main` with README.md and src/app.ts committed (unless `empty`). */
export async function createTestRepository(options: { empty?: boolean } = {}): Promise<TestRepository> {
  const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'worktree-test-')));
  const repo = path.join(root, 'repo');
  await fs.mkdir(repo);
  const git = simpleGit({ baseDir: repo });
  await git.init(['--initial-branch=main']);
  await git.addConfig('user.name', 'Test User');
  await git.addConfig('user.email', 'test@example.com');
  await git.addConfig('commit.gpgsign', 'false');
  const testRepository: TestRepository = {
    root,
    repo,
    git,
    async write(relative, content, base = repo) {
      const file = path.join(base, relative);
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, content);
      return file;
    },
    read: (relative, base = repo) => fs.readFile(path.join(base, relative), 'utf8'),
    async commit(message, directory = repo) {
      const checkout = simpleGit({ baseDir: directory });
      await checkout.add(['--all']);
      await checkout.commit(message);
      return (await checkout.revparse(['HEAD'])).trim();
    },
    status: async (directory = repo) => (await simpleGit({ baseDir: directory }).raw(['status', '--porcelain'])).trim(),
    branches: async () => (await git.branchLocal()).all,
    async worktreePaths() {
      const output = await git.raw(['worktree', 'list', '--porcelain']);
      return output
        .split('\n')
        .filter((line) => line.startsWith('worktree '))
        .map((line) => line.slice('worktree '.length));
    },
    cleanup: () => fs.rm(root, { recursive: true, force: true }),
  };
  if (!options.empty) {
    await testRepository.write('README.md', '# Test\n');
    await testRepository.write('src/app.ts', 'export const answer = 42;\n');
    await testRepository.commit('initial commit');
  }
  return testRepository;
}

/** Whether a path exists. */
export async function exists(target: string): Promise<boolean> {
  return fs.lstat(target).then(
    () => true,
    () => false,
  );
}
