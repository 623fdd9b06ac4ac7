// Grep's fallback thread: a backtracking regex blocks only it; plain JavaScript so Node runs it from src or dist.
import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

/** The lines of a text as shown: split at \n, a trailing \r dropped, no empty line after a final newline. */
function splitLines(text) {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}

function lineIndexAt(lineStarts, offset) {
  let low = 0;
  let high = lineStarts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (lineStarts[middle] <= offset) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** Matching line indexes (ascending) and the number of matches as rg --count counts them (a multiline match is one). */
function findMatches(text, lines, regex, multiline, firstOnly) {
  if (!multiline) {
    const matching = [];
    for (let index = 0; index < lines.length; index += 1) {
      if (!regex.test(lines[index])) continue;
      matching.push(index);
      if (firstOnly) break;
    }
    return { matching, count: matching.length };
  }
  const lineStarts = [0];
  for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', newline + 1))
    lineStarts.push(newline + 1);
  const matching = new Set();
  let count = 0;
  let lastLine = -1;
  regex.lastIndex = 0;
  for (const match of text.matchAll(regex)) {
    const start = match.index;
    const end = Math.max(start, start + match[0].length - 1);
    const first = lineIndexAt(lineStarts, start);
    const last = Math.min(lineIndexAt(lineStarts, end), lines.length - 1);
    if (first > lastLine) count += 1;
    for (let line = first; line <= last; line += 1) matching.add(line);
    lastLine = Math.max(lastLine, last);
    if (firstOnly) break;
  }
  return { matching: [...matching].sort((left, right) => left - right), count };
}

function cutLine(line, limit) {
  return line.length > limit ? `${line.slice(0, limit)} [... omitted end of long line]` : line;
}

/** Adds one file's matches with their context to the output; false once the cap is passed. */
function addContent(output, request, shown, lines, matching) {
  const matchSet = new Set(matching);
  let lastPrinted = -2;
  for (const match of matching) {
    const from = Math.max(0, match - request.before, lastPrinted + 1);
    const to = Math.min(lines.length - 1, match + request.after);
    if (from > lastPrinted + 1 && request.before + request.after > 0 && output.printed > 0)
      output.separatorPending = true;
    for (let index = from; index <= to; index += 1) {
      if (output.printed >= request.cap) {
        output.truncated = true;
        return false;
      }
      if (output.separatorPending) output.lines.push('--');
      output.separatorPending = false;
      const separator = matchSet.has(index) ? ':' : '-';
      const number = request.lineNumbers ? `${index + 1}${separator}` : '';
      output.lines.push(`${shown}${separator}${number}${cutLine(lines[index], request.maxLineChars)}`);
      output.printed += 1;
    }
    lastPrinted = Math.max(lastPrinted, to);
  }
  return true;
}

function search(request) {
  const regex = new RegExp(request.pattern, `${request.ignoreCase ? 'i' : ''}${request.multiline ? 'gms' : ''}`);
  const files = [];
  const output = { lines: [], printed: 0, truncated: false, separatorPending: false };
  let skippedLarge = 0;
  for (const file of request.files) {
    let stat;
    try {
      stat = fs.statSync(file.path);
    } catch {
      continue;
    }
    if (!stat.isFile()) continue;
    if (stat.size > request.maxFileBytes) {
      skippedLarge += 1;
      continue;
    }
    let content;
    try {
      content = fs.readFileSync(file.path);
    } catch {
      continue;
    }
    if (content.subarray(0, 8192).includes(0)) continue;
    const text = content.toString('utf8');
    const lines = splitLines(text);
    const { matching, count } = findMatches(
      text,
      lines,
      regex,
      request.multiline,
      request.mode === 'files_with_matches',
    );
    if (matching.length === 0) continue;
    if (request.mode !== 'content') {
      files.push({ shown: file.shown, mtimeMs: stat.mtimeMs, count });
      continue;
    }
    if (!addContent(output, request, file.shown, lines, matching)) break;
  }
  return { files, lines: output.lines, truncated: output.truncated, skippedLarge };
}

parentPort.postMessage(search(workerData));
