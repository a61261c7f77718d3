/** The order `test/fixtures/tasks/speckit/tasks.md` gives its open tasks: each task and the tasks it runs after. */
export const SPECKIT_ORDER: Readonly<Record<string, string[]>> = {
  T002: [],
  T003: [],
  T004: ['T002', 'T003'],
  T005: ['T004'],
  T006: ['T005'],
  T007: ['T005'],
  T008: ['T006', 'T007'],
  T009: ['T008'],
  T010: ['T009'],
  'line-39': ['T010'],
  T011: ['line-39'],
};
