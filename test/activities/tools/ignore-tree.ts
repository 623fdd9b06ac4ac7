/** A workspace tree exercising every .gitignore rule the file listing must honour. */
import fs from 'node:fs/promises';
import path from 'node:path';

/** Files the listing must return for the tree, relative to its root, sorted. */
export const expectedListing = [
  '.gitignore',
  '.hidden/x.ts',
  'a.ts',
  'docs/readme.md',
  'important.log',
  'nested/.gitignore',
  'nested/n.log',
  'nested/n.ts',
  'src/.gitignore',
  'src/build/keep.ts',
  'src/keep.gen.ts',
  'src/main.ts',
  'weird name.txt',
];

export async function buildIgnoreTree(root: string): Promise<void> {
  const files: Record<string, string> = {
    '.gitignore': '# root rules\n*.log\n!important.log\n/build/\ncache/\nsecret*\n',
    '.git/HEAD': 'ref: refs/heads/main\n',
    '.hidden/x.ts': '',
    'a.ts': '',
    'b.log': '',
    'important.log': '',
    'secret.txt': '',
    'build/out.js': '',
    'docs/readme.md': '',
    'weird name.txt': '',
    'node_modules/pkg/index.js': '',
    'src/.gitignore': '*.gen.ts\n!keep.gen.ts\n',
    'src/a.gen.ts': '',
    'src/keep.gen.ts': '',
    'src/main.ts': '',
    'src/build/keep.ts': '',
    'src/cache/x.ts': '',
    'src/debug.log': '',
    'src/node_modules/x.js': '',
    // A nested repository: the outer rules (*.log) do not apply inside it.
    'nested/.git/HEAD': '',
    'nested/.gitignore': 'ignored.ts\n',
    'nested/ignored.ts': '',
    'nested/n.log': '',
    'nested/n.ts': '',
  };
  for (const [relative, content] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(root, relative)), { recursive: true });
    await fs.writeFile(path.join(root, relative), content);
  }
  await fs.symlink(path.join(root, 'a.ts'), path.join(root, 'link.ts'));
  await fs.symlink(path.join(root, 'src'), path.join(root, 'src-link'));
}
