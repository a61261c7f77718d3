/**
 * The typed error hierarchy. Each failure is classified where it is caught: shown to the
 * operator (a user error with a fix), retried, or it stops the run with a typed reason.
 */
export class TicketRunnerError extends Error {
  override readonly name: string = 'TicketRunnerError';
}

/**
 * Bad input from the user: the message says what is wrong and how to fix it. The message is the
 * command line's (its flags and commands); `inEditor`, when the fix reads differently in an editor,
 * says the same with the editor's settings and commands.
 */
export class UserInputError extends TicketRunnerError {
  override readonly name: string = 'UserInputError';
  constructor(
    message: string,
    readonly inEditor?: string,
  ) {
    super(message);
  }
}

/** A problem of a ticket or plan file, at its JSON path. */
export interface FileProblem {
  path: string;
  message: string;
}

/** A file the user writes that does not parse or validate: one line, so the CLI's error stays one line however many problems there are. */
abstract class InvalidFileError extends UserInputError {
  constructor(
    readonly file: string,
    readonly problems: FileProblem[],
    what: string,
  ) {
    super(`${file}: invalid ${what}: ` + problems.map((p) => `at ${p.path}: ${p.message}`).join('; '));
  }
}

/** A ticket file that does not parse or validate. */
export class TicketValidationError extends InvalidFileError {
  override readonly name = 'TicketValidationError';
  constructor(file: string, problems: FileProblem[]) {
    super(file, problems, 'ticket');
  }
}

/** A plan file that does not parse or validate, or whose order cannot be followed. */
export class PlanValidationError extends InvalidFileError {
  override readonly name = 'PlanValidationError';
  constructor(file: string, problems: FileProblem[]) {
    super(file, problems, 'plan');
  }
}

/** A path that escapes the workspace or is otherwise unusable. */
export class PathError extends UserInputError {
  override readonly name = 'PathError';
}

/** A model answer that breaks its contract (not JSON, fails its schema). */
export class ModelContractError extends TicketRunnerError {
  override readonly name = 'ModelContractError';
}

/**
 * What a tool, a worker or a runner wrote does not fit the shape it is read as. Their output
 * comes from processes that run the code under judgement, so it is checked at the door
 * (src/core/schema/toolOutput.ts) and a misfit names the tool instead of failing further in.
 */
export class ToolOutputError extends TicketRunnerError {
  override readonly name = 'ToolOutputError';
}

/** The model could not be reached, after the transport's own retries. */
export class ModelTransportError extends TicketRunnerError {
  override readonly name = 'ModelTransportError';
  constructor(
    message: string,
    readonly retries: number,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** Work stopped by the operator or a budget. */
export class CancelledError extends TicketRunnerError {
  override readonly name = 'CancelledError';
}

export function isAbort(err: unknown): boolean {
  return err instanceof CancelledError || (err instanceof Error && (err.name === 'AbortError' || err.name === 'APIUserAbortError'));
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** An error's message as an editor shows it: a user error's editor wording when it has one. */
export function editorErrorMessage(err: unknown): string {
  return err instanceof UserInputError && err.inEditor ? err.inEditor : errorMessage(err);
}
