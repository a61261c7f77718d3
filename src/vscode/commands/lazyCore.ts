/** The core loads on the first command that needs it, never at activation. */
export const core = () => import('../../core/index.js');

/** The modules a run's dependencies come from (see depsForFolder); loaded once per window. */
export const warmRunModules = () => Promise.all([core(), import('../../node/wire.js')]).catch(() => undefined);
