export type * from './candidates';
export type * from './checks';
export type * from './clock';
export type * from './model';
export type * from './ops';
export type * from './runStore';
export type * from './workspace';
export type * from './sandbox';
