import { setRecent } from '../recent-map';
import type { DefinitionDirectory } from './discover';
import { parseDefinitionFile, type ParsedDefinitionFile } from './parse-definition';

interface Entry {
  text: string;
  parsed: ParsedDefinitionFile;
}

/**
 * Parsed agent files, by file (docs/operations.md, "Worker tuning"). Every agent a worker starts
 * loads its agent types again (the roster in its first message, the types its Agent calls may start),
 * so each start reads every `.claude/agents` file in reach, and parsing them (front matter, schemas)
 * was nine tenths of that time: 100 files cost ~45 ms of CPU per agent started. A file whose text is
 * the same as when it was last parsed gets a copy of that parse, so a load still reads every file,
 * sees every change, and gives exactly what a fresh parse would.
 */
export class ParsedDefinitionsCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly maxEntries = 2_000) {}

  /** `parseDefinitionFile`, reusing the parse of the same text of the same file; the result is the caller's own copy. */
  parse(text: string, file: string, source: DefinitionDirectory['source'], homeDir: string): ParsedDefinitionFile {
    const key = `${source}\0${homeDir}\0${file}`;
    const cached = this.entries.get(key);
    if (cached?.text === text) return structuredClone(cached.parsed);
    const parsed = parseDefinitionFile(text, file, source, homeDir);
    // When full, the entry read longest ago goes (a worker serving many workspaces keeps the files it reads).
    setRecent(this.entries, key, { text, parsed: structuredClone(parsed) }, this.maxEntries);
    return parsed;
  }

  get size(): number {
    return this.entries.size;
  }
}

/** The worker process's cache, shared by every load of agent types in it. */
export const parsedDefinitions = new ParsedDefinitionsCache();
