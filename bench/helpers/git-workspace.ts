// Workspaces for benches that checkpoint files: shared clones of this repository and what their object stores hold.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** This repository's root (bench/helpers/ is two levels below it). */
export const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A `git clone --shared` of this repository at `directory`: its own index and objects dir, the source's packs borrowed. */
export function cloneRepository(directory: string): string {
  execFileSync('git', ['clone', '--quiet', '--shared', repositoryRoot, directory]);
  return directory;
}

/** Bytes (apparent, and on disk in whole blocks) of a repository's loose objects. */
export async function looseObjectBytes(repository: string): Promise<{ bytes: number; disk: number }> {
  const objects = path.join(repository, '.git', 'objects');
  let bytes = 0;
  let disk = 0;
  for (const folder of await fs.readdir(objects)) {
    if (!/^[0-9a-f]{2}$/.test(folder)) continue;
    for (const file of await fs.readdir(path.join(objects, folder))) {
      const stat = await fs.stat(path.join(objects, folder, file));
      bytes += stat.size;
      disk += stat.blocks * 512;
    }
  }
  return { bytes, disk };
}

/** How many refs a repository has under `prefix` (e.g. an agent's checkpoint refs). */
export function refCount(repository: string, prefix: string): number {
  const listed = execFileSync('git', ['for-each-ref', '--format=%(refname)', prefix], {
    cwd: repository,
    encoding: 'utf8',
  });
  return listed.split('\n').filter((line) => line.length > 0).length;
}
