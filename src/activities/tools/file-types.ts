/** Grep's `type` filter: file types by extension (lower case, without the dot). */
export const fileTypeExtensions: Readonly<Record<string, readonly string[]>> = {
  c: ['c', 'h'],
  cpp: ['cc', 'cpp', 'cxx', 'c++', 'hh', 'hpp', 'hxx', 'h', 'inl'],
  cs: ['cs'],
  css: ['css', 'scss', 'sass', 'less'],
  go: ['go'],
  html: ['html', 'htm', 'xhtml'],
  java: ['java'],
  js: ['js', 'jsx', 'mjs', 'cjs'],
  json: ['json', 'jsonc', 'json5'],
  kotlin: ['kt', 'kts'],
  md: ['md', 'markdown', 'mdx'],
  php: ['php'],
  py: ['py', 'pyi'],
  rb: ['rb'],
  rust: ['rs'],
  sh: ['sh', 'bash', 'zsh'],
  sql: ['sql'],
  swift: ['swift'],
  toml: ['toml'],
  ts: ['ts', 'tsx', 'mts', 'cts'],
  txt: ['txt'],
  xml: ['xml'],
  yaml: ['yaml', 'yml'],
};

/** Aliases models commonly use. */
const typeAliases: Readonly<Record<string, string>> = {
  typescript: 'ts',
  javascript: 'js',
  python: 'py',
  markdown: 'md',
  rs: 'rust',
  ruby: 'rb',
  yml: 'yaml',
  shell: 'sh',
  bash: 'sh',
};

/** The extensions of a type name, or undefined when unknown. */
export function extensionsOfType(type: string): readonly string[] | undefined {
  const key = type.toLowerCase();
  return fileTypeExtensions[typeAliases[key] ?? key];
}
