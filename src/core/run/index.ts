export * from './baseline';
export * from './logCodec';
export * from './reducer';
export * from './runLog';
