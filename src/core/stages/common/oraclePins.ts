/** A file the verdict rests on whose bytes are no longer what the run wrote or read. */
export interface TamperedFile {
  path: string;
  /** The hash the run recorded. */
  expected: string;
  /** The hash found now; null when the file is gone. */
  actual: string | null;
}

/** When a check of the oracle ran: around a test run, or before a verdict. */
export type OracleCheckpoint = 'beforeTests' | 'afterTests' | 'beforeVerdict';

/**
 * The oracle: the rendered test files, byte for byte as the materializer wrote them, and the
 * ticket as the run read it. The code under test runs in the same workspace and could rewrite
 * its own judge (a module the test imports can overwrite the test file), so these hashes are
 * checked before and after every test run and before every verdict. A mismatch is restored
 * from the recorded content and fails what was being judged. This check needs no sandbox; the
 * sandbox's read-only mounts are a second line in front of it.
 */
export class Oracle {
  private readonly files = new Map<string, { hash: string; content: string }>();

  constructor(private readonly hash: (content: string) => string) {}

  /** Records a file's trusted content (a rendered test, the ticket). */
  pin(path: string, content: string): void {
    this.files.set(path, { hash: this.hash(content), content });
  }

  /** Lets go of a file the run deletes again (a held-out test file, after its own run). */
  unpin(path: string): void {
    this.files.delete(path);
  }

  get paths(): string[] {
    return [...this.files.keys()];
  }

  /** The pinned files whose bytes on disk differ from what was pinned. */
  async changed(read: (path: string) => Promise<string | null>): Promise<TamperedFile[]> {
    const out: TamperedFile[] = [];
    for (const [path, pinned] of this.files) {
      const now = await read(path);
      const actual = now === null ? null : this.hash(now);
      if (actual !== pinned.hash) out.push({ path, expected: pinned.hash, actual });
    }
    return out;
  }

  /** The trusted content of a pinned file. */
  contentOf(path: string): string | undefined {
    return this.files.get(path)?.content;
  }
}

/** One line per changed file, for the failure text the Coder and the Debugger read. */
export function describeTampering(files: readonly TamperedFile[]): string[] {
  return files.map((f) =>
    f.actual === null
      ? `${f.path} was deleted during the attempt; Ticket Runner restored it. The code must not touch the tests or the ticket.`
      : `${f.path} was changed during the attempt; Ticket Runner restored it. The code must not write the tests or the ticket.`,
  );
}
