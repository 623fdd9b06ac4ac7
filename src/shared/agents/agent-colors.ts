/** Claude Code's named agent colours (front matter `color`): shown with the agent in `ls --tree` and progress lines. */
export const agentColors = ['red', 'blue', 'green', 'yellow', 'purple', 'orange', 'pink', 'cyan'] as const;

export type AgentColor = (typeof agentColors)[number];

/** ANSI foreground codes (256-colour for the two the 16-colour palette lacks). */
const ansiCodes: Record<AgentColor, string> = {
  red: '31',
  blue: '34',
  green: '32',
  yellow: '33',
  purple: '35',
  orange: '38;5;208',
  pink: '38;5;205',
  cyan: '36',
};

/** Whether a value names one of the colours. */
export function isAgentColor(value: unknown): value is AgentColor {
  return typeof value === 'string' && (agentColors as readonly string[]).includes(value);
}

/** `text` in the agent's colour when `enabled` (a terminal without NO_COLOR), else unchanged. */
export function colorize(text: string, color: AgentColor | undefined, enabled: boolean): string {
  if (!enabled || !color) return text;
  return `\u001b[${ansiCodes[color]}m${text}\u001b[39m`;
}

/** Colour output is on for a TTY unless NO_COLOR is set (https://no-color.org), or when FORCE_COLOR is set. */
export function colorEnabled(
  stream: { isTTY?: boolean },
  environment: Readonly<Record<string, string | undefined>>,
): boolean {
  if (environment.NO_COLOR !== undefined && environment.NO_COLOR !== '') return false;
  if (environment.FORCE_COLOR !== undefined && environment.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true;
}
