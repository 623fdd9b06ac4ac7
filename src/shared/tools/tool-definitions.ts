// Workspace tool definitions: cache-prefix data imported by workflow code, so no Node imports or load-time work.
import type { ToolDefinition } from '../model/messages';
import type { WorkspaceToolName } from '../policy/tool-classification';

/** Every number the workspace tools enforce, in one place (docs/tools.md lists them all). */
export const toolLimits = {
  /** Lines Read returns when no limit is given. */
  readDefaultLines: 2000,
  /** Longer lines are cut by Read and Grep. */
  maxLineChars: 2000,
  /** Files larger than this need offset/limit to be read. */
  readMaxBytesWithoutRange: 256 * 1024,
  /** Glob returns at most this many paths. */
  globMaxResults: 100,
  /** Grep returns at most this many entries (lines or files) unless head_limit is given. */
  grepDefaultMaxEntries: 250,
  /** Grep skips files larger than this. */
  grepMaxFileBytes: 32 * 1024 * 1024,
  bashDefaultTimeoutMs: 120_000,
  bashMaxTimeoutMs: 600_000,
  /** Bash keeps the head and tail of longer output. */
  bashMaxOutputChars: 30_000,
  /** Delay between SIGTERM and SIGKILL when a command is stopped. */
  bashKillGraceMs: 2_000,
  heartbeatIntervalMs: 1_000,
  /** Default of ToolContext.maxResultChars: longer results are saved to a file. */
  defaultMaxResultChars: 50_000,
  /** Characters of an oversized result shown inline. */
  resultPreviewChars: 2_000,
} as const;

const readDescription = `Reads a text file and returns its lines numbered like \`cat -n\`: the line number, a tab, then the line.
- file_path may be absolute or relative to the working directory, and must be inside the workspace (saved tool outputs mentioned in earlier results may be read too).
- Returns up to 2000 lines from the start by default. To read part of a file, give offset (1-based line number to start at) and limit (number of lines). Files larger than 256 KiB must be read in parts this way.
- Lines longer than 2000 characters are cut.
- Directories and binary files cannot be read; use Glob to list files.
- Read a file before you Edit it or overwrite it with Write.
- The line-number prefix is not part of the file: never copy it into old_string or new_string.`;

const globDescription = `Finds files whose path matches a glob pattern, e.g. "**/*.ts" or "src/**/*.{ts,tsx}".
- Supports ** (any number of directories), * and ? (within one path segment), {a,b} alternatives and [abc] character classes.
- The pattern is matched against paths relative to path (default: the working directory), so "*.ts" only matches files directly in it; use "**/*.ts" for every depth.
- Files ignored by .gitignore files, and everything inside .git and node_modules, are skipped. Only files are returned, not directories.
- Returns at most 100 paths, most recently modified first; narrow the pattern when told the results were truncated.
- Use Grep to search inside files.`;

const grepDescription = `Searches file contents with ripgrep: a regular expression in ripgrep's (Rust regex) syntax, e.g. "function\\s+\\w+" or "log.*Error"; escape literal characters such as ( ) { } . with a backslash; no look-around or backreferences.
- output_mode: "files_with_matches" (default) lists matching files, most recently modified first; "content" shows matching lines as path:line:text (context lines as path-line-text, groups separated by --); "count" shows path:number of matching lines.
- path: a directory to search (default: the working directory) or a single file.
- glob filters files, e.g. "*.ts", "*.{ts,tsx}", "src/**/*.py" (a glob without / matches file names at any depth; a leading ! excludes). type filters by language: ts, js, py, go, md, json, rust, java, c, cpp, sh, yaml, html, css, and more.
- "-i": case-insensitive. "-n": line numbers in content mode (default true). "-A"/"-B"/"-C": lines of context after/before/around each match (content mode).
- multiline: true lets . match newlines and patterns span lines.
- Files ignored by .gitignore, .git, node_modules and binary files are skipped.
- At most 250 entries (lines or files) are returned unless head_limit is given; narrow the search when told the results were truncated.
- Use Grep rather than running grep or rg through Bash.`;

const writeDescription = `Writes a file, replacing it if it exists; parent directories are created as needed.
- Creating a new file needs no Read first.
- Overwriting an existing file is refused unless you have Read it in this conversation and it has not changed since; Read it (again) first.
- Prefer Edit to change part of an existing file.
- The content is written exactly as given, as UTF-8.`;

const editDescription = `Replaces exact text in an existing file.
- Read the file first; the edit is refused if you have not, or if the file changed since you read it (then Read it again).
- old_string must match the file exactly, including indentation, whitespace and line breaks. Do not include the line-number prefix that Read shows.
- old_string must occur exactly once in the file: include enough surrounding lines to make it unique. Or set replace_all: true to replace every occurrence (useful for renaming).
- old_string and new_string must differ. Use Write to create a new file.`;

const bashDescription = `Runs a command with \`bash -c\` in the working directory and returns its combined stdout and stderr, and its exit code when it is not 0.
- timeout is in milliseconds: default 120000 (2 minutes), maximum 600000 (10 minutes). A command that runs longer is killed together with every process it started.
- Output longer than 30000 characters is cut in the middle.
- There is no terminal and no input: avoid interactive commands (use flags such as -y, --no-edit, git --no-pager).
- Each call starts a new shell in the working directory: cd and variables do not carry over to the next call. Use absolute paths, or "cd dir && command" in one call.
- Quote paths that contain spaces ("path with spaces/file.txt").
- Prefer Glob, Grep, Read, Edit and Write over find, grep, cat, sed or echo for files.
- Independent commands can go in separate Bash calls of one message; chain dependent ones with && (use ; only when a failure must not stop the next command).
- Agents whose type is read-only (Explore, Plan) may run read-only commands only (git log/diff/show/status/blame, ls, cat, head, grep, find without -exec, ...); anything else is refused before it runs.
- description: say in 5-10 words what the command does.

Git safety:
- Never change git config, never skip hooks (--no-verify, --no-gpg-sign) and never force-push unless the user asked for exactly that. Run destructive commands (reset --hard, checkout -- ., restore ., clean -f, branch -D, rebase) only when asked, and warn before force-pushing to main or master.
- Commit only when asked. First look at git status, git diff (staged and unstaged) and git log for the message style. Stage the files you mean by name rather than git add -A or git add ., and never commit likely secrets (.env, keys, credentials).
- Write the commit message with a heredoc so it keeps its lines: git commit -m "$(cat <<'EOF' ... EOF)". Say why, not only what.
- If a pre-commit hook fails, the commit did not happen: fix the problem, stage again and make a NEW commit; do not --amend a commit you did not just make.
- Do not push unless asked. Never use interactive flags (git rebase -i, git add -i).`;

/** Definitions sent to the model, in a fixed order. */
export const toolDefinitions: Record<WorkspaceToolName, ToolDefinition> = {
  Read: {
    name: 'Read',
    description: readDescription,
    input_schema: {
      type: 'object',
      properties: {
        file_path: {
          type: 'string',
          description: 'Path of the file to read (absolute, or relative to the working directory).',
        },
        offset: {
          type: 'integer',
          minimum: 1,
          description: 'Line number to start reading at (1-based). Only needed for large files.',
        },
        limit: {
          type: 'integer',
          minimum: 1,
          description: 'Number of lines to read (default 2000). Only needed for large files.',
        },
      },
      required: ['file_path'],
      additionalProperties: false,
    },
  },
  Glob: {
    name: 'Glob',
    description: globDescription,
    input_schema: {
      type: 'object',
      properties: {
        pattern: { type: 'string', description: 'Glob pattern to match file paths against, e.g. "**/*.ts".' },
        path: { type: 'string', description: 'Directory to search in (default: the working directory).' },
      },
      required: ['pattern'],
      additionalProperties: false,
    },
  },
  Grep: {
    name: 'Grep',
    description: grepDescription,
    input_schema: {
      type: 'object',
      properties: {
        pattern: { type: 'string', description: "Regular expression (ripgrep's syntax) to search for." },
        path: { type: 'string', description: 'File or directory to search (default: the working directory).' },
        glob: { type: 'string', description: 'Only search files matching this glob, e.g. "*.ts" or "*.{ts,tsx}".' },
        type: { type: 'string', description: 'Only search files of this type, e.g. ts, js, py, go, md, json.' },
        output_mode: {
          type: 'string',
          enum: ['files_with_matches', 'content', 'count'],
          description:
            'files_with_matches (default): matching file paths; content: matching lines; count: matches per file.',
        },
        '-i': { type: 'boolean', description: 'Case-insensitive search.' },
        '-n': { type: 'boolean', description: 'Show line numbers (content mode; default true).' },
        '-A': { type: 'integer', minimum: 0, description: 'Lines of context after each match (content mode).' },
        '-B': { type: 'integer', minimum: 0, description: 'Lines of context before each match (content mode).' },
        '-C': {
          type: 'integer',
          minimum: 0,
          description: 'Lines of context before and after each match (content mode).',
        },
        head_limit: {
          type: 'integer',
          minimum: 1,
          description: 'Return at most this many entries (lines or files); default 250.',
        },
        multiline: { type: 'boolean', description: 'Let . match newlines so patterns can span lines (default false).' },
      },
      required: ['pattern'],
      additionalProperties: false,
    },
  },
  Write: {
    name: 'Write',
    description: writeDescription,
    input_schema: {
      type: 'object',
      properties: {
        file_path: {
          type: 'string',
          description: 'Path of the file to write (absolute, or relative to the working directory).',
        },
        content: { type: 'string', description: 'The complete new content of the file.' },
      },
      required: ['file_path', 'content'],
      additionalProperties: false,
    },
  },
  Edit: {
    name: 'Edit',
    description: editDescription,
    input_schema: {
      type: 'object',
      properties: {
        file_path: {
          type: 'string',
          description: 'Path of the file to edit (absolute, or relative to the working directory).',
        },
        old_string: { type: 'string', description: 'The exact text to replace.' },
        new_string: { type: 'string', description: 'The text to replace it with (must differ from old_string).' },
        replace_all: { type: 'boolean', description: 'Replace every occurrence of old_string (default false).' },
      },
      required: ['file_path', 'old_string', 'new_string'],
      additionalProperties: false,
    },
  },
  Bash: {
    name: 'Bash',
    description: bashDescription,
    input_schema: {
      type: 'object',
      properties: {
        command: { type: 'string', description: 'The command to run.' },
        timeout: {
          type: 'integer',
          minimum: 1,
          maximum: 600000,
          description: 'Timeout in milliseconds (default 120000, maximum 600000).',
        },
        description: { type: 'string', description: 'What the command does, in 5-10 words.' },
      },
      required: ['command'],
      additionalProperties: false,
    },
  },
};
