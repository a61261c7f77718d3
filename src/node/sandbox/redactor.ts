import { isSecretName } from './childEnv';

/** Shorter values are too likely to occur by chance ("1", "true") to be worth hiding. */
const MIN_SECRET_LENGTH = 8;
export const REDACTED = '[redacted]';

/**
 * Removes secret values from text before it is logged, shown or put into a prompt: the values
 * of the user's secret-looking variables and any key the caller adds (the API key from the
 * editor's SecretStorage). A child never gets these variables, but a test can read a file, and
 * a tool running in this process (ESLint) sees this process's environment.
 */
export class Redactor {
  private readonly needles: string[];

  constructor(secrets: Iterable<string>) {
    const set = new Set<string>();
    for (const s of secrets) {
      const v = s.trim();
      if (v.length < MIN_SECRET_LENGTH) continue;
      set.add(v);
      // The same value inside a JSON string, where quotes and backslashes are escaped.
      set.add(JSON.stringify(v).slice(1, -1));
    }
    // Longest first, so a secret that contains another is replaced whole.
    this.needles = [...set].sort((a, b) => b.length - a.length);
  }

  /** The values of every secret-looking variable of `env`, plus `extra`. */
  static fromEnv(env: Readonly<Record<string, string | undefined>>, extra: Iterable<string | undefined> = []): Redactor {
    const values: string[] = [];
    for (const [name, value] of Object.entries(env)) if (value && isSecretName(name)) values.push(value);
    for (const v of extra) if (v) values.push(v);
    return new Redactor(values);
  }

  get empty(): boolean {
    return this.needles.length === 0;
  }

  text(s: string): string {
    let out = s;
    for (const n of this.needles) if (out.includes(n)) out = out.split(n).join(REDACTED);
    return out;
  }
}
