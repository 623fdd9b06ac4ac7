import type { CarriedAgentState } from '../../shared/agents/agent';
import { structuredOutputAttempts } from '../../shared/tools/structured-output';

/** An `outputSchema` agent's StructuredOutput attempts (carried across runs) and its accepted answer (this run's). */
export class StructuredOutputRecord {
  private attemptCount: number;
  private lastFailureText?: string;
  /** Boxed, as the answer may itself be any JSON value. */
  private answer?: { value: unknown };

  constructor(carried: Pick<CarriedAgentState, 'structuredOutput'> | undefined) {
    this.attemptCount = carried?.structuredOutput?.attempts ?? 0;
    this.lastFailureText = carried?.structuredOutput?.lastFailure;
  }

  get attempts(): number {
    return this.attemptCount;
  }

  get lastFailure(): string | undefined {
    return this.lastFailureText;
  }

  get accepted(): { value: unknown } | undefined {
    return this.answer;
  }

  /** Every attempt was used without a valid call. */
  get exhausted(): boolean {
    return this.answer === undefined && this.attemptCount >= structuredOutputAttempts;
  }

  /** A valid call: the agent's answer. */
  accept(value: unknown): void {
    this.answer = { value };
  }

  /** An attempt that gave no valid answer: an invalid call (with its errors) or a turn ended in text; returns its number. */
  countFailure(validationErrors?: string): number {
    this.attemptCount += 1;
    if (validationErrors !== undefined) this.lastFailureText = validationErrors;
    return this.attemptCount;
  }

  /** The state continue-as-new carries. */
  carry(): Pick<CarriedAgentState, 'structuredOutput'> {
    if (this.attemptCount === 0) return {};
    return {
      structuredOutput: {
        attempts: this.attemptCount,
        ...(this.lastFailureText !== undefined ? { lastFailure: this.lastFailureText } : {}),
      },
    };
  }
}
