/** Pure string replacement for Edit, and the check that recognises an edit already applied before a crash. */
import { sha256 } from './file-record';

export interface EditSpec {
  oldString: string;
  newString: string;
  replaceAll: boolean;
}

/** Non-overlapping occurrences of `needle` (non-empty) in `text`. */
export function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let index = text.indexOf(needle); index !== -1; index = text.indexOf(needle, index + needle.length)) count += 1;
  return count;
}

/** Replaces the first or every occurrence literally (no `$` patterns, unlike String.replace). */
export function applyEdit(text: string, edit: EditSpec): string {
  if (edit.replaceAll) return text.split(edit.oldString).join(edit.newString);
  const index = text.indexOf(edit.oldString);
  return index === -1 ? text : text.slice(0, index) + edit.newString + text.slice(index + edit.oldString.length);
}

/** The same edit with \n turned into \r\n, for files with Windows line endings. */
export function withCrlf(edit: EditSpec): EditSpec {
  const toCrlf = (text: string) => text.replace(/\r?\n/g, '\r\n');
  return { ...edit, oldString: toCrlf(edit.oldString), newString: toCrlf(edit.newString) };
}

/** Candidate positions tried when the inserted text is empty (deletions), bounded to keep the check cheap. */
const maxDeletionCandidates = 16_384;
const maxOccurrenceCandidates = 1_000;

/** True when an earlier attempt already applied `edit`: undoing it somewhere gives the read text's sha256. */
export function isEditAlreadyApplied(current: string, edit: EditSpec, readSha256: string): boolean {
  const producesCurrent = (candidate: string): boolean => {
    if (!edit.replaceAll && countOccurrences(candidate, edit.oldString) !== 1) return false;
    return sha256(candidate) === readSha256 && applyEdit(candidate, edit) === current;
  };
  if (edit.replaceAll) {
    return edit.newString !== '' && producesCurrent(current.split(edit.newString).join(edit.oldString));
  }
  for (const position of candidatePositions(current, edit.newString)) {
    const candidate = current.slice(0, position) + edit.oldString + current.slice(position + edit.newString.length);
    if (producesCurrent(candidate)) return true;
  }
  return false;
}

function candidatePositions(text: string, inserted: string): number[] {
  if (inserted === '') {
    return text.length <= maxDeletionCandidates ? Array.from({ length: text.length + 1 }, (_, index) => index) : [];
  }
  const positions: number[] = [];
  for (
    let index = text.indexOf(inserted);
    index !== -1 && positions.length < maxOccurrenceCandidates;
    index = text.indexOf(inserted, index + 1)
  ) {
    positions.push(index);
  }
  return positions;
}
