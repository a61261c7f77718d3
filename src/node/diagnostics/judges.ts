/**
 * How a run's record names the service that judged a diagnostics check. Its own file, so the
 * editor's adapter can name the headless service without loading it.
 */
export const HEADLESS = 'the headless TypeScript language service';
