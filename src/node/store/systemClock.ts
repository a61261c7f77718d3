import { randomBytes } from 'node:crypto';
import type { ClockPort } from '../../core/ports/clock';

/** Wall time, and run ids that sort by start time: 20261122-141503-ab12cd. */
export const systemClock: ClockPort = {
  now: () => new Date(),
  newRunId: () => {
    const iso = new Date().toISOString();
    const stamp = iso.slice(0, 10).replace(/-/g, '') + '-' + iso.slice(11, 19).replace(/:/g, '');
    return `${stamp}-${randomBytes(3).toString('hex')}`;
  },
};
