import { describeEvent } from '../core/run/views/eventLines';
import { sandboxLabel } from '../core/run/views/report';
import type { RunEvent } from '../core/schema/events';

/** One short stderr line per event worth a glance while a run goes; null for the rest. */
export function progressLine(e: RunEvent): string | null {
  const line = describeEvent(e);
  if (!line?.glance) return null;
  // Where the run's processes run gets a line of its own: a run without the sandbox must say so plainly.
  if (e.type === 'run.started') return [line.text, e.sandbox && `  ${sandboxLabel(e.sandbox)}`].filter(Boolean).join('\n');
  if (e.type === 'run.finished') return line.text;
  return `  ${line.attempt ? `attempt ${line.attempt}: ` : ''}${line.text}`;
}
