import assert from 'node:assert/strict';
import type { Diagnosis } from '../../../src/core/schema/diagnosis';
import type { Manifest } from '../../../src/core/schema/manifest';
import { buildManifest } from '../../../src/core/stages/manifest/manifestBuilder';
import { route } from '../../../src/core/stages/router/router';
import { parseTicket } from '../../../src/core/ticket/ticketLoader';
import { createLanguageServiceDiagnostics } from '../../../src/node/diagnostics/languageService';
import { FsWorkspace } from '../../../src/node/workspace/fsWorkspace';
import { TempProject } from '../../support/tempProject';

/**
 * The "ticket is wrong" guard over a ticket's `refs`, through the real headless TypeScript
 * language service: the manifest's facts come from it as a run builds them, and the router
 * reads only those. A Debugger that says a ref "does not resolve" when it names a static member,
 * a namespace member or an enum member that exists must be vetoed (the code path), or the
 * operator is asked to edit a ticket that is right.
 */

const MONEY = `export class Money {
  static readonly currency = 'EUR';
  static zero(): Money { return new Money(0); }
  constructor(readonly cents: number) {}
}
export namespace Units {
  export function toCents(euros: number): number { return euros * 100; }
}
export enum Tier { Bronze = 'bronze', Gold = 'gold' }
`;

const ticketWith = (refs: string[]) =>
  parseTicket(
    '.tickets/PAY-1.ticket.json',
    JSON.stringify({
      id: 'PAY-1',
      title: 'A gold customer pays no fee',
      description: 'fee(tier) answers Money.zero() for Tier.Gold and Units.toCents(2) cents otherwise, in Money.currency.',
      scope: { write: ['src/fee.ts'], read: ['src/money.ts'] },
      acceptance: [{ id: 'AC1', text: 'fee(Tier.Gold) is zero' }],
      testPlan: {
        files: [
          {
            path: 'test/fee.test.ts',
            suite: 'fee',
            cases: [{ name: 'gold pays nothing', expect: [{ kind: 'equal', actual: 'fee(Tier.Gold).cents', expected: '0' }] }],
          },
        ],
      },
      refs: refs.map((symbol) => ({ symbol, file: 'src/money.ts' })),
    }),
  );

/** What a Debugger blaming the ticket for one ref says. */
const unresolvedClaim = (ref: string): Diagnosis => ({
  kind: 'ticket',
  claim: `The ticket names ${ref} in src/money.ts, which does not resolve.`,
  evidence: [{ source: 'manifest', quote: ref }],
  brief: `Correct the ticket's ref ${ref}.`,
  avoid: [],
});

describe('ticket guard: refs to static, namespace and enum members, through the real language service', function () {
  this.timeout(60_000);
  let project: TempProject;
  let ls: ReturnType<typeof createLanguageServiceDiagnostics>;
  const manifestOf = (refs: string[]): Promise<Manifest> =>
    buildManifest({
      ticket: ticketWith(refs),
      ticketPath: '.tickets/PAY-1.ticket.json',
      workspace: new FsWorkspace(project.root),
      diagnostics: ls,
    });
  const routeClaim = (m: Manifest, ref: string) =>
    route({ manifest: m, diagnosis: unresolvedClaim(ref), diagnostics: [], workspaceRoot: project.root });

  before(() => {
    project = new TempProject({
      'package.json': JSON.stringify({ name: 'pay', private: true, devDependencies: { tsx: '*' } }),
      'tsconfig.json': JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'commonjs', strict: true, noEmit: true, skipLibCheck: true },
        include: ['src', 'test'],
      }),
      'src/money.ts': MONEY,
      'src/fee.ts':
        "import { Money, Tier } from './money';\nexport function fee(tier: Tier): Money { return new Money(tier === Tier.Gold ? 1 : 200); }\n",
    });
    ls = createLanguageServiceDiagnostics(project.root);
  });
  after(() => {
    ls.dispose();
    project.remove();
  });

  it('vetoes "the ref does not resolve" for a static member, a namespace member and an enum member that exist: the router does not send it to the operator', async () => {
    const refs = ['Money.zero', 'Money.currency', 'Units.toCents', 'Tier.Gold'];
    const m = await manifestOf(refs);
    // The facts the guard reads: each ref resolved to its type, none null.
    assert.deepEqual(
      m.facts.map((f) => [f.symbol, f.signature]),
      [
        ['Money.zero', '() => Money'],
        ['Money.currency', "'EUR'"],
        ['Units.toCents', '(euros: number) => number'],
        ['Tier.Gold', 'Tier.Gold'],
      ],
    );
    for (const ref of refs) {
      const d = routeClaim(m, ref);
      assert.deepEqual([ref, d.claimed, d.route, d.guard.verdict, d.guard.fact], [ref, 'ticket', 'code', 'overridden', undefined]);
    }
  });

  it("still confirms it for a member that is not there, beside the ones that are: the veto is the facts', not a blanket one", async () => {
    const m = await manifestOf(['Money.zero', 'Money.nope', 'Tier.Silver']);
    const d = routeClaim(m, 'Money.nope');
    assert.deepEqual([d.route, d.guard.verdict, d.guard.fact?.kind], ['ticket', 'confirmed', 'unresolvedTicketSymbol']);
    assert.match(d.guard.fact?.detail ?? '', /the ticket names Money\.nope in src\/money\.ts/);
  });
});
