export function linkSharedPackages(root: string, shared: string): void;
export function linkWorkspacePackages(root: string): void;
