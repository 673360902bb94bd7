/**
 * One step of start-up, declared once: its name, what it starts from what it is given, and how it
 * stops what it started (given that and what it was given).
 */
export interface Step<I, T> {
  readonly name: string;
  readonly start: (input: I) => T | Promise<T>;
  readonly stop?: (value: T, input: I) => unknown;
}

/** Declares a step (see `Step`). */
export const step = <I, T>(
  name: string,
  start: (input: I) => T | Promise<T>,
  stop?: (value: T, input: I) => unknown,
): Step<I, T> => ({ name, start, ...(stop ? { stop } : {}) });

/**
 * The start of a process as one ordered list of steps, each with its stop. A step that fails
 * stops every step started before it, last first, and its error is the one reported; `stopAll`
 * stops them the same way when the process ends. The server, the worker and the CLI start through
 * it (`startProcess`), so nothing is left running whichever step fails.
 */
export class Steps {
  private readonly started: { readonly name: string; readonly stop: () => Promise<void> }[] = [];

  /** `observe` is told each step's name before it starts (tests make the N-th one fail). */
  constructor(private readonly observe?: (name: string) => void) {}

  /** Starts a step; `stop` (if any) is called with what `start` answered when the steps stop. */
  async run<T>(name: string, start: () => T | Promise<T>, stop?: (value: T) => unknown): Promise<T> {
    let value: T;
    try {
      this.observe?.(name);
      value = await start();
    } catch (error) {
      await this.stopAll();
      throw error;
    }
    if (stop) this.started.push({ name, stop: async () => void (await stop(value)) });
    return value;
  }

  /** Starts a declared step with `input`. */
  start<I, T>(declared: Step<I, T>, input: I): Promise<T> {
    const { stop } = declared;
    return this.run(declared.name, () => declared.start(input), stop && ((value: T) => stop(value, input)));
  }

  /**
   * Stops every started step, last first. A stop that fails is told to `failed` (by default
   * nowhere) and the others still run: a failed close must not keep the rest open.
   */
  async stopAll(failed?: (name: string, error: unknown) => void): Promise<void> {
    for (let step = this.started.pop(); step !== undefined; step = this.started.pop()) {
      try {
        await step.stop();
      } catch (error) {
        failed?.(step.name, error);
      }
    }
  }
}
