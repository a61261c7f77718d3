import { SideEffectGuard, type SideEffectGuardOptions } from './sideEffects';

interface Shared {
  guard: SideEffectGuard;
  users: number;
  /** The command under way: one at a time looks at the tree, before and after. */
  turn: Promise<unknown>;
}

/** The guards of each run's jail, by the folder they look at and how. */
const guardsOf = new WeakMap<object, Map<string, Shared>>();

/** One user's hold on a shared guard. */
export interface GuardHold {
  guard: SideEffectGuard;
  /** Runs `command` (a look before, the command, the look after) once no other user's is under way. */
  exclusive<T>(command: () => Promise<T>): Promise<T>;
  /** This user is done; the last one disposes the guard (its snapshots, its watches). */
  release(): void;
}

/**
 * The side-effect guard of `root` for every test runner of one run (`owner`: the run's jail)
 * that looks at it the same way: the checks' runner, and the coverage gate's, made afresh for
 * each measure. One guard reads only what changed since the last look, whichever runner ran the
 * command before, and watches the installed packages once for the run. A guard of its own would
 * read every file of the tree, and set a watch on each of the thousands of package folders, again
 * for every measured run: about half a second of the run's thread each time, on a project with a
 * usual node_modules. Commands take turns, so each look before and after is still its command's.
 */
export function holdGuard(owner: object, root: string, options: SideEffectGuardOptions): GuardHold {
  let guards = guardsOf.get(owner);
  if (!guards) guardsOf.set(owner, (guards = new Map<string, Shared>()));
  const key = JSON.stringify([root, options.packagesOf ?? null, options.snapshotBudget ?? null]);
  let shared = guards.get(key);
  if (!shared) guards.set(key, (shared = { guard: new SideEffectGuard(root, options), users: 0, turn: Promise.resolve() }));
  shared.users++;
  const entry = shared;
  const map = guards;
  let released = false;
  return {
    guard: entry.guard,
    exclusive<T>(command: () => Promise<T>): Promise<T> {
      const next = entry.turn.then(command, command);
      entry.turn = next.catch(() => undefined);
      return next;
    },
    release(): void {
      if (released) return;
      released = true;
      if (--entry.users > 0) return;
      entry.guard.dispose();
      if (map.get(key) === entry) map.delete(key);
    },
  };
}
