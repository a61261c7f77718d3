export * from './checks';
export * from './correction';
export * from './diagnosis';
export * from './events';
export * from './gates';
export * from './manifest';
export * from './testPlan';
export * from './ticket';
