/** How `subagents watch` draws a frame: the tree (TTY) or one line per change (plain). */
import { styleText } from 'node:util';
import { spendingText } from '../budget-status';
import type { BudgetReached, WatchBudget, WatchFrame, WatchNode } from './watch-model';

/** Agent definition `color` values (Claude Code's) mapped to terminal styles. */
const colourStyles: Record<string, Parameters<typeof styleText>[0]> = {
  red: 'red',
  blue: 'blue',
  green: 'green',
  yellow: 'yellow',
  purple: 'magenta',
  orange: 'yellow',
  pink: 'magenta',
  cyan: 'cyan',
  magenta: 'magenta',
  white: 'white',
  gray: 'gray',
  grey: 'gray',
};

/** Options of the renderers. */
export interface RenderOptions {
  nowMs: number;
  /** Agent type → its definition's `color`. */
  colours?: ReadonlyMap<string, string>;
  /** Use terminal styles (colours, bold); off for plain output. */
  styled: boolean;
  /** Characters per line (the terminal's width). */
  width?: number;
  /** Lines of the root's streamed text shown below the tree. */
  rootTextLines?: number;
}

const compactTokens = (tokens: number): string => (tokens >= 1000 ? `${(tokens / 1000).toFixed(1)}k` : String(tokens));

function elapsed(node: WatchNode, nowMs: number): string {
  const seconds = Math.max(0, Math.round(((node.finishedAtMs ?? nowMs) - node.startedAtMs) / 1000));
  return seconds >= 60 ? `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s` : `${seconds}s`;
}

const cut = (text: string, width: number | undefined): string =>
  width && text.length > width ? `${text.slice(0, Math.max(1, width - 1))}…` : text;

/** One agent's summary: id, type, name, state (with its tool), turn, tokens, elapsed. */
export function nodeSummary(node: WatchNode, options: RenderOptions): string {
  const label = `${node.agentType}${node.name ? ` "${node.name}"` : ''}`;
  const state = `${node.stalled ? 'STALLED ' : ''}${node.state}${node.currentTool ? `: ${node.currentTool}` : ''}`;
  return `${node.agentId}  ${label}  [${state}] turn ${node.turn} · ${compactTokens(node.tokens)} tok · ${elapsed(node, options.nowMs)}`;
}

function style(text: string, format: Parameters<typeof styleText>[0] | undefined, options: RenderOptions): string {
  // Styled or not is decided by the caller (the tree mode draws on a terminal).
  return options.styled && format ? styleText(format, text, { validateStream: false }) : text;
}

/** A capped tree's spending against its caps: "budget: 12,340 / 20,000 tokens · $0.41 / $2.00 · 7 tool calls · 3 turns". */
export function budgetLine(budget: WatchBudget, nowMs: number): string {
  return `budget: ${spendingText(budget.tree, nowMs)}`;
}

/** A cap reached: "budget reached: the tree's budget of 20,000 tokens, 19,870 used". */
export const budgetReachedLine = (reached: BudgetReached): string => `budget reached: ${reached.reason}`;

/** The time of day a plain line starts with. */
const timeOfDay = (nowMs: number): string => new Date(nowMs).toISOString().slice(11, 19);

/** A capped tree's spending above the tree and its caps reached (in red), then one line per agent (and its last live line under it), then the root's streamed text. */
export function renderTree(frame: WatchFrame, options: RenderOptions): string {
  const lines: string[] = [];
  if (frame.budget) {
    lines.push(cut(budgetLine(frame.budget, options.nowMs), options.width));
    for (const reached of frame.budget.reached)
      lines.push(style(cut(budgetReachedLine(reached), options.width), 'red', options));
  }
  for (const node of frame.nodes) {
    const indent = node.depth === 0 ? '' : `${'  '.repeat(node.depth - 1)}└ `;
    const colour = colourStyles[options.colours?.get(node.agentType)?.toLowerCase() ?? ''];
    const summary = cut(`${indent}${nodeSummary(node, options)}`, options.width);
    lines.push(style(node.stalled ? style(summary, 'red', options) : summary, colour, options));
    if (node.lastLine && node.depth > 0 && node.currentTool !== undefined)
      lines.push(style(cut(`${'  '.repeat(node.depth)}  › ${node.lastLine}`, options.width), 'dim', options));
  }
  const textLines = frame.rootText
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(-(options.rootTextLines ?? 8));
  if (textLines.length > 0) {
    lines.push('', style('── root is writing ──', 'dim', options));
    for (const line of textLines) lines.push(cut(line, options.width));
  }
  return lines.join('\n');
}

/** Plain mode: a timestamped summary line for an agent that appeared or changed. */
export function plainLine(node: WatchNode, options: RenderOptions): string {
  return `${timeOfDay(options.nowMs)} ${'  '.repeat(node.depth)}${nodeSummary(node, options)}${node.lastLine ? ` › ${node.lastLine}` : ''}`;
}

/** Plain mode: a timestamped line of its own (a cap reached, the tree's spending). */
export const plainNote = (text: string, options: RenderOptions): string => `${timeOfDay(options.nowMs)} ${text}`;
