import type ts from 'typescript';

/**
 * A file of a library rather than of the project: TypeScript's lib files, a package's files
 * under node_modules (and any file outside the workspace, which is where a linked package's
 * real path leads). Forward slashes: TypeScript's paths always have them.
 */
export function isLibraryFile(path: string, root: string): boolean {
  return path.includes('/node_modules/') || !path.startsWith(`${root.replace(/\\/g, '/').replace(/\/$/, '')}/`);
}

/**
 * A DocumentRegistry that keeps the libraries' parsed files when the services that used them
 * let go (a run ends): the next run's services, in the same worker, take them from it instead of
 * parsing lib.d.ts and the packages' types again, the most of a small project's program. The
 * registry hands a kept file out only for the same version (a hash of its text, WorkspaceHost's)
 * under the same parse settings, as it does between the services of one run; a changed library
 * file replaces its entry, so what is kept is bounded by the libraries' files, one each per set
 * of parse settings. The project's own files are let go as before.
 */
export function keepingLibraries(registry: ts.DocumentRegistry, isLibrary: (path: string) => boolean): ts.DocumentRegistry {
  // The release methods have overloads: the arguments are passed on as they came.
  type Release = (path: string, ...rest: unknown[]) => void;
  const release =
    (name: 'releaseDocument' | 'releaseDocumentWithKey'): Release =>
    (path, ...rest) => {
      if (!isLibrary(path)) (registry[name] as (this: ts.DocumentRegistry, ...args: unknown[]) => void).call(registry, path, ...rest);
    };
  return {
    acquireDocument: (...a) => registry.acquireDocument(...a),
    acquireDocumentWithKey: (...a) => registry.acquireDocumentWithKey(...a),
    updateDocument: (...a) => registry.updateDocument(...a),
    updateDocumentWithKey: (...a) => registry.updateDocumentWithKey(...a),
    getKeyForCompilationSettings: (settings) => registry.getKeyForCompilationSettings(settings),
    releaseDocument: release('releaseDocument'),
    releaseDocumentWithKey: release('releaseDocumentWithKey'),
    reportStats: () => registry.reportStats(),
  };
}
