import type { ClockPort } from '../../src/core/ports/clock';

/**
 * A fake of the clock (stands for src/node/store/systemClock.ts): time stands still unless a
 * test spends it (`advance`), or moves by `stepMs` each time it is read; run ids count up.
 * The run's wall-time budget reads this clock too (runClock in src/core/loop/openRun.ts).
 */
export class FakeClock implements ClockPort {
  private ms: number;
  private runs = 0;

  constructor(
    start = Date.UTC(2025, 0, 1),
    private readonly stepMs = 0,
  ) {
    this.ms = start;
  }

  now(): Date {
    const at = new Date(this.ms);
    this.ms += this.stepMs;
    return at;
  }

  newRunId(): string {
    this.runs += 1;
    return `20250101-000000-run${String(this.runs).padStart(3, '0')}`;
  }

  advance(ms: number): void {
    this.ms += ms;
  }
}
