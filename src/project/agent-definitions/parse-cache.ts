import { setRecent } from '../recent-map';
import type { DefinitionDirectory } from './discover';
import { parseDefinitionFile, type ParsedDefinitionFile } from './parse-definition';

interface Entry {
  text: string;
  parsed: ParsedDefinitionFile;
}

/** Parses by file, reused while the text is unchanged: every agent start reloads its types (docs/operations.md). */
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
