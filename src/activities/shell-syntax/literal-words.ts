// A syntax-tree word as bash would pass it, when certain; anything else is not literal, with the reason.
import type { Node } from 'web-tree-sitter';

/** A word's value, whether it holds an unquoted glob character, or why it is not literal. */
export type WordValue = { value: string; glob: boolean } | { reason: string };

/** `a{b,c}` and `{1..3}`: bash makes several words of one. */
const braceExpansion = /\{[^{}]*(,|\.\.)[^{}]*\}/;

/** An unquoted glob character (`*`, `?`, `[`) not escaped by a backslash. */
const unquotedGlob = /(^|[^\\])(\\\\)*[*?[]/;

/** Bash's removal of backslashes in an unquoted word: `\x` is `x`. */
function unescapeUnquoted(text: string): string {
  return text.replace(/\\(.)/gs, '$1');
}

/** Inside double quotes a backslash escapes only `$`, backquote, `"`, `\` (and a newline, removed). */
function unescapeDoubleQuoted(text: string): string {
  return text.replace(/\\([$`"\\\n])/g, (_, character: string) => (character === '\n' ? '' : character));
}

/** A line continuation (`\` + newline) touching the word: tree-sitter splits `a\<newline>b` in two, bash joins it. */
function touchesContinuation(node: Node, source: string): boolean {
  return (
    source.slice(node.endIndex, node.endIndex + 2) === '\\\n' ||
    source.slice(Math.max(0, node.startIndex - 2), node.startIndex) === '\\\n'
  );
}

/** The value of one word node. */
export function wordValue(node: Node, source: string): WordValue {
  switch (node.type) {
    case 'word':
    case 'number': {
      if (touchesContinuation(node, source)) return { reason: 'a line continuation inside a word' };
      if (braceExpansion.test(node.text)) return { reason: `brace expansion (${node.text})` };
      return { value: unescapeUnquoted(node.text), glob: unquotedGlob.test(node.text) };
    }
    case 'raw_string':
      return { value: node.text.slice(1, -1), glob: false };
    case 'string': {
      const plain = node.children.every(
        (child) => child !== null && (child.type === 'string_content' || child.type === '"'),
      );
      if (!plain) return { reason: `an expansion inside ${node.text}` };
      return { value: unescapeDoubleQuoted(node.text.slice(1, -1)), glob: false };
    }
    case 'concatenation': {
      if (braceExpansion.test(node.text)) return { reason: `brace expansion (${node.text})` };
      let value = '';
      let glob = false;
      for (const child of node.children) {
        if (!child) return { reason: 'an incomplete word' };
        const part = wordValue(child, source);
        if ('reason' in part) return part;
        value += part.value;
        glob ||= part.glob;
      }
      return { value, glob };
    }
    default:
      return { reason: `${node.type.replace(/_/g, ' ')} (${node.text.slice(0, 40)})` };
  }
}
