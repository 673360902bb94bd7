/**
 * The dependency rule (README: Architecture). Run by `npm test` (lint step); never exempted.
 * Type-only imports count (tsPreCompilationDeps: true).
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'src/domain imports nothing outside src/domain: no npm package, no node: module.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { pathNot: '^src/domain/' },
    },
    {
      name: 'application-only-domain',
      comment: 'src/application imports only src/domain and src/application.',
      severity: 'error',
      from: { path: '^src/application/' },
      to: { pathNot: '^src/(domain|application)/' },
    },
    {
      name: 'adapters-never-import-main',
      severity: 'error',
      from: { path: '^src/adapters/' },
      to: { path: '^src/main/' },
    },
    {
      name: 'inbound-never-imports-outbound',
      severity: 'error',
      from: { path: '^src/adapters/inbound/' },
      to: { path: '^src/adapters/outbound/' },
    },
    {
      name: 'outbound-never-imports-inbound',
      severity: 'error',
      from: { path: '^src/adapters/outbound/' },
      to: { path: '^src/adapters/inbound/' },
    },
    {
      name: 'inversify-only-in-main',
      comment: 'Only src/main binds: Inversify stays in the composition root.',
      severity: 'error',
      from: { pathNot: '^src/main/' },
      to: { path: 'node_modules/(inversify|@inversifyjs)/' },
    },
    {
      name: 'cli-and-entry-points-new-no-adapter',
      comment:
        'The entry points and the CLI start through src/main/wiring and take their use cases from the modules: ' +
        'they import no outbound adapter (ARCHITECTURE rule 19).',
      severity: 'error',
      from: { path: '^src/main/(cli/|(server|worker|cli)[.]ts$)' },
      to: { path: '^src/adapters/outbound/' },
    },
    {
      name: 'main-infrastructure-is-no-wiring',
      comment:
        'src/main/infrastructure opens what the service runs on; the wiring composes it (and the CLI uses both): ' +
        'never the other way round.',
      severity: 'error',
      from: { path: '^src/main/(infrastructure|config)/' },
      to: { path: '^src/main/(wiring|cli)/' },
    },
    {
      name: 'http-runtime-through-its-entry-point',
      comment: 'The HTTP runtime (src/adapters/inbound/http/runtime) is reached through its index.ts only.',
      severity: 'error',
      from: { pathNot: '^src/adapters/inbound/http/runtime/' },
      to: { path: '^src/adapters/inbound/http/runtime/', pathNot: '^src/adapters/inbound/http/runtime/index\\.ts$' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.d.ts'],
    },
  },
};
