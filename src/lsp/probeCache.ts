import type { DiagnosticsPort } from '../core/ports/checks';
import type { CodeDiagnostic } from '../core/schema/checks';

/**
 * The language service with its type probes remembered: while the ticket is typed, most
 * keystrokes (a description, a criterion's text) render the same test file, and the type-check
 * of the same file against the same code says the same. A probe is answered from memory only
 * when the rendered text is the same and the workspace's code files are too (`fingerprint`:
 * their sizes and modification times); anything else is checked again.
 */
export function withProbeCache(port: DiagnosticsPort, fingerprint: () => Promise<string>): DiagnosticsPort {
  const remembered = new Map<string, { print: string; diagnostics: CodeDiagnostic[] }>();
  const probe = port.probe?.bind(port);
  return {
    check: (changed, signal) => port.check(changed, signal),
    autofix: (files, allow, signal) => port.autofix(files, allow, signal),
    resolveSymbol: (file, symbol) => port.resolveSymbol(file, symbol),
    symbolsOf: port.symbolsOf && ((file, owner) => port.symbolsOf!(file, owner)),
    dispose: () => port.dispose?.(),
    probe:
      probe &&
      (async (path, content, signal, overlays) => {
        if (overlays?.length) return probe(path, content, signal, overlays);
        const key = `${path}\0${content}`;
        // Taken afresh for every probe: one kept for even a moment answered a file changed within it.
        const now = await fingerprint();
        const hit = remembered.get(key);
        if (hit && hit.print === now) return hit.diagnostics;
        const diagnostics = await probe(path, content, signal);
        remembered.set(key, { print: now, diagnostics });
        // One ticket renders a few files: keep the latest few, not every text ever typed.
        if (remembered.size > 32) remembered.delete(remembered.keys().next().value!);
        return diagnostics;
      }),
  };
}
