import { describeEvent } from '../core/run/views/eventLines';
import type { RunEvent } from '../core/schema/events';

/** One short stderr line per event worth a glance while a run goes; null for the rest. */
export function progressLine(e: RunEvent): string | null {
  const line = describeEvent(e);
  if (!line?.glance) return null;
  if (e.type === 'run.started' || e.type === 'run.finished') return line.text;
  return `  ${line.attempt ? `attempt ${line.attempt}: ` : ''}${line.text}`;
}
