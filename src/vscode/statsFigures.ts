import type { RunState } from '../core/run/runState';
import { NO_RUNS, runStats, statsSections, statsTable } from '../core/run/views/stats';
import type { StatsHostMessage } from '../shared/statsProtocol';

/** The panel's figures: the same sections and table `ticket-runner stats` prints, from the same function. */
export function statsMessage(states: readonly RunState[]): StatsHostMessage {
  const st = runStats(states);
  return {
    type: 'stats/figures',
    runs: st.runs,
    empty: NO_RUNS.replace('ticket-runner run .tickets/<ID>.ticket.json', 'Ticket Runner: Run Ticket'),
    sections: statsSections(st),
    table: statsTable(st),
  };
}
