import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';

/**
 * A store's MAC key: made once in its folder with only its owner's permissions, and read from
 * there after. Undefined where it cannot be made or read: the store then keeps nothing.
 */
export async function storeSecret(dir: string): Promise<Buffer | undefined> {
  try {
    const file = path.join(dir, 'key');
    await mkdir(dir, { recursive: true });
    await writeFile(file, randomBytes(32).toString('hex'), { flag: 'wx', mode: 0o600 }).catch(() => undefined);
    const hex = (await readFile(file, 'utf8')).trim();
    return /^[0-9a-f]{64}$/.test(hex) ? Buffer.from(hex, 'hex') : undefined;
  } catch {
    return undefined;
  }
}
