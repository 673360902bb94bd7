import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { apiDocument } from '../../../../src/main/wiring/apiDocument.js';
import { MODULES } from '../../../../src/main/modules/index.js';
import { resourceModule } from '../../../../src/main/modules/resource.js';
import { Poster } from '../../../support/fileResources.js';
import { testConfig } from '../../../support/config.js';
import { runCommand } from '../../../support/process.js';

/** One problem as `redocly lint --format json` reports it. */
interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location?: { pointer?: string }[];
}

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: LintProblem[];
}

const REDOCLY = join(process.cwd(), 'node_modules', '.bin', 'redocly');
// No telemetry, no update check (the test runs offline and must not call out).
const QUIET = { REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };

/**
 * The JSON report in Redocly's output. Its banners (Node 20's deprecation notice, "validating …")
 * go to stderr today; the report is still found if one ever lands on stdout before it.
 */
function reportOf(stdout: string, stderr: string): LintReport {
  const start = stdout.search(/^\{\s*$/m);
  if (start < 0) throw new Error(`no JSON report from redocly lint:\n${stdout}\n${stderr}`);
  return JSON.parse(stdout.slice(start)) as LintReport;
}

const describeProblem = (p: LintProblem): string =>
  `${p.severity} ${p.ruleId}: ${p.message} at ${(p.location ?? []).map((l) => l.pointer ?? '?').join(', ')}`;

describe('the API document under Redocly CLI (recommended rules, redocly.yaml)', function () {
  this.timeout(60_000);
  let dir: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'portico-openapi-lint-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function lint(document: unknown, name: string): Promise<LintReport> {
    const file = join(dir, `${name}.json`);
    writeFileSync(file, JSON.stringify(document, null, 2));
    const args = ['lint', file, '--config', 'redocly.yaml', '--format', 'json'];
    const { code, stdout, stderr } = await runCommand(process.cwd(), REDOCLY, args, QUIET, 50_000);
    const report = reportOf(stdout, stderr);
    // Redocly exits 1 on errors only; a run that failed for another reason has no report to trust.
    expect(code, stderr).to.equal(report.totals.errors > 0 ? 1 : 0);
    return report;
  }

  function expectClean(report: LintReport): void {
    const problems = report.problems.map(describeProblem);
    expect(problems, `Redocly found problems:\n${problems.join('\n')}`).to.deep.equal([]);
    expect(report.totals.errors).to.equal(0);
    expect(report.totals.warnings).to.equal(0);
  }

  it('passes with no error and no warning with every route in it (api.mode both, docs on)', async () => {
    const config = testConfig({ SVC_API_MODE: 'both', SVC_DOCS_ENABLED: 'true' });
    expectClean(await lint(apiDocument(MODULES, config), 'full'));
  });

  it('passes with no error and no warning with a resource with file fields (its upload, download and direct-upload routes)', async () => {
    const config = testConfig({ SVC_API_MODE: 'both', SVC_DOCS_ENABLED: 'true' });
    expectClean(await lint(apiDocument([...MODULES, resourceModule(Poster)], config), 'files'));
  });

  it('passes with no error and no warning with the default configuration', async () => {
    expectClean(await lint(apiDocument(MODULES, testConfig()), 'default'));
  });

  it('passes with no error and no warning with the docs off and resources over GraphQL only', async () => {
    const config = testConfig({ SVC_API_MODE: 'graphql', SVC_DOCS_ENABLED: 'false' });
    expectClean(await lint(apiDocument(MODULES, config), 'minimal'));
  });

  /** The full document, with `break` applied to its GET and PUT /api/v1/products/{id}. */
  function brokenDocument(brk: (get: Record<string, unknown>, put: Record<string, unknown>) => void) {
    const document = structuredClone(apiDocument(MODULES, testConfig({ SVC_API_MODE: 'both' })));
    const product = document.paths['/api/v1/products/{id}'];
    expect(product?.get, 'GET /api/v1/products/{id} in the document').to.be.an('object');
    expect(product?.put, 'PUT /api/v1/products/{id} in the document').to.be.an('object');
    brk(product!.get! as Record<string, unknown>, product!.put! as Record<string, unknown>);
    return document;
  }

  /** Asserts that the check above fails on `report`, and that the failure names `ruleId`. */
  function expectRejected(report: LintReport, ruleId: string, severity: LintProblem['severity']): void {
    expect(() => expectClean(report)).to.throw(/Redocly found problems/);
    const found = report.problems.map(describeProblem);
    expect(
      report.problems.some((p) => p.ruleId === ruleId && p.severity === severity),
      found.join('\n'),
    ).to.equal(true);
  }

  it('fails a document with a warning only: an operation without a 2xx answer', async () => {
    const report = await lint(
      brokenDocument((get) => (get.responses = {})),
      'no-2xx',
    );
    expect(report.totals).to.include({ errors: 0, warnings: 1 });
    expectRejected(report, 'rule/operation-success-response', 'warn');
  });

  it('fails a document with an error: a $ref to nothing', async () => {
    const broken = brokenDocument((_get, put) => (put.requestBody = { $ref: '#/components/requestBodies/Nothing' }));
    const report = await lint(broken, 'bad-ref');
    expect(report.totals.errors).to.be.greaterThan(0);
    expectRejected(report, 'no-unresolved-refs', 'error');
  });
});
