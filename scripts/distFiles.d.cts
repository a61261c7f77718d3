export function writeByRename(to: string, contents: string | Uint8Array, mode?: number): void;
export function copyByRename(from: string, to: string, mode?: number): void;
