import type { TestRunRequest } from '../../src/core/ports/checks';
import type { BuildPort, BuildResult, CoveragePort, CoverageResult, TypeCheckPort, TypeCheckResult } from '../../src/core/ports/gates';
import type { GateDeps, GateSettings } from '../../src/core/stages/common/gateConfig';
import { ask } from './questions';
import type { RecordedWorld } from './recordedWorld';

/**
 * Fakes of the end-of-ticket gates' own ports: the project-wide type-check (stands for
 * src/node/gates/, the workspace's tsc in the jail), the coverage runner and the build. Each
 * answers what the real one answered for the same question on the same candidate. The
 * type-check has no `prefetch`: it is checked when the gate asks, as a checker without one is.
 */
export class RecordedTypeCheck implements TypeCheckPort {
  constructor(private readonly world: RecordedWorld) {}

  check(_signal: AbortSignal, scope?: readonly string[]): Promise<TypeCheckResult> {
    return Promise.resolve(this.world.answer(ask.typecheck(scope)));
  }
}

export class RecordedCoverage implements CoveragePort {
  constructor(private readonly world: RecordedWorld) {}

  run(request: TestRunRequest & { measure: string[] }): Promise<CoverageResult> {
    return Promise.resolve(this.world.answer(ask.coverage(request)));
  }

  measuresAsItRuns(framework: TestRunRequest['framework']): boolean {
    return this.world.answer(ask.measuresAsItRuns(framework));
  }
}

export class RecordedBuild implements BuildPort {
  constructor(private readonly world: RecordedWorld) {}

  run(command: string): Promise<BuildResult> {
    return Promise.resolve(this.world.answer(ask.build(command)));
  }
}

/** The gates of `settings`, with the recorded ports behind them. */
export function recordedGates(world: RecordedWorld, settings: GateSettings): GateDeps {
  return { ...settings, typecheck: new RecordedTypeCheck(world), coverage: new RecordedCoverage(world), build: new RecordedBuild(world) };
}
