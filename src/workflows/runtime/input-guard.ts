import { isCancellation, log, setHandler, type QueryDefinition, type SignalDefinition } from '@temporalio/workflow';
import type { UpdateDefinition } from '@temporalio/common';
import type { RejectedInputs } from '../../shared/agents/agent';
import { describeInputError, type InputSchema } from '../../shared/protocol/input-schemas';
import { workflowNowMs } from './clock';

/** Handlers that parse input at the boundary: a bad signal is dropped and counted, a bad update or query refused. */
export class InputGuard {
  constructor(
    private readonly onRejected: (rejections: Readonly<RejectedInputs>) => void = () => undefined,
    /** Where refusals are counted: an agent passes its state's record, carried across continue-as-new. */
    private readonly rejections: RejectedInputs = { count: 0 },
  ) {}

  /** What was refused so far (for the status query). */
  get rejected(): Readonly<RejectedInputs> {
    return this.rejections;
  }

  signal<T>(
    definition: SignalDefinition<[T]>,
    schema: InputSchema<T>,
    handler: (input: T) => void | Promise<void>,
  ): void {
    setHandler(definition, ((...args: unknown[]) => {
      const parsed = schema.safeParse(args[0]);
      if (!parsed.success) {
        this.reject(definition.name, describeInputError(parsed.error));
        return;
      }
      try {
        const running = handler(parsed.data);
        if (running) return running.catch((error: unknown) => this.failed(definition.name, error));
      } catch (error) {
        this.failed(definition.name, error);
      }
      return undefined;
    }) as (input: T) => void | Promise<void>);
  }

  /** A signal without a payload (any input is ignored). */
  plainSignal(definition: SignalDefinition<[]>, handler: () => void): void {
    setHandler(definition, handler);
  }

  update<T, Result>(
    definition: UpdateDefinition<Result, [T]>,
    schema: InputSchema<T>,
    handler: (input: T) => Promise<Result> | Result,
    check: (input: T) => void = () => undefined,
  ): void {
    setHandler(definition, ((input: T) => handler(schema.parse(input))) as (input: T) => Promise<Result>, {
      validator: ((...args: unknown[]) => {
        const parsed = schema.safeParse(args[0]);
        if (!parsed.success) throw new Error(`Invalid ${definition.name} input: ${describeInputError(parsed.error)}.`);
        check(parsed.data);
      }) as (input: T) => void,
    });
  }

  query<T, Result>(
    definition: QueryDefinition<Result, [T]>,
    schema: InputSchema<T>,
    handler: (input: T) => Result,
  ): void {
    setHandler(definition, ((...args: unknown[]) => {
      const parsed = schema.safeParse(args[0]);
      if (!parsed.success)
        throw new Error(`Invalid ${definition.name} query input: ${describeInputError(parsed.error)}.`);
      return handler(parsed.data);
    }) as (input: T) => Result);
  }

  private failed(name: string, error: unknown): void {
    // The agent's own stop arriving while a handler sends something is not a bad input.
    if (isCancellation(error)) return;
    this.reject(name, `the handler failed: ${error instanceof Error ? error.message : String(error)}`);
  }

  private reject(name: string, reason: string): void {
    this.rejections.count += 1;
    this.rejections.last = { name, reason: reason.slice(0, 1000), atMs: workflowNowMs() };
    log.warn(`rejected ${name} signal: ${reason}`, { signal: name });
    this.onRejected(this.rejections);
  }
}
