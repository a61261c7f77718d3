/**
 * The environment a child process of a run gets: an allowlist, never the user's whole
 * environment. The code under test is untrusted, and so is everything it prints: a variable
 * it never sees cannot end up in a log or a prompt.
 */

/** Passed through as they are: what tools need to find programs and print text. */
const PASSED = ['PATH', 'LANG', 'LANGUAGE', 'TERM', 'CI', 'NODE_ENV', 'TZ'];
/** Windows cannot start most programs without these. */
const PASSED_WINDOWS = ['SystemRoot', 'SystemDrive', 'ComSpec', 'PATHEXT', 'WINDIR'];

/** A name that looks like it holds a secret; never passed unless the user names it. */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL/i;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

export interface ChildEnvOptions {
  /** Names the user added (the `ticketRunner.passEnv` setting, `--pass-env`): passed even when secret-looking. */
  pass?: readonly string[];
  /** The private home folder: tools write caches and dotfiles there, never in the user's home. */
  home: string;
  /** The private temp folder. */
  tmp: string;
}

/** The allowlisted environment of a child, from the parent's. */
export function childEnvironment(parent: Readonly<Record<string, string | undefined>>, o: ChildEnvOptions): Record<string, string> {
  const out: Record<string, string> = {};
  const explicit = new Set(o.pass ?? []);
  const windows = process.platform === 'win32';
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    const key = windows ? name.toUpperCase() : name;
    const allowed =
      explicit.has(name) ||
      (!isSecretName(name) &&
        (PASSED.some((p) => (windows ? p.toUpperCase() : p) === key) ||
          name.startsWith('LC_') ||
          (windows && PASSED_WINDOWS.some((p) => p.toUpperCase() === key))));
    if (allowed) out[name] = value;
  }
  out['HOME'] = o.home;
  if (windows) out['USERPROFILE'] = o.home;
  out['TMPDIR'] = o.tmp;
  out['TMP'] = o.tmp;
  out['TEMP'] = o.tmp;
  // Colour codes would only get in the way of the reports parsed from the output.
  out['NO_COLOR'] = '1';
  out['FORCE_COLOR'] = '0';
  return out;
}
