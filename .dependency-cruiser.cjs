/**
 * `npm run lint:deps`: the module boundaries of src/ (issue 12). Type-only imports count: a cycle of types
 * ties domains together as much as one of values.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Import cycle in src/: move the shared part down (platform/ or the owning domain) or call through the public index.ts of one side only.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'domain-internals',
      severity: 'error',
      comment: "A domain imports another domain's internals: import its public src/domains/<d>/index.ts instead.",
      from: { path: '^src/domains/([^/]+)/' },
      to: { path: '^src/domains/[^/]+/', pathNot: ['^src/domains/$1/', '^src/domains/[^/]+/index\\.ts$'] },
    },
    {
      name: 'platform-not-to-domains',
      severity: 'error',
      comment: 'src/platform/ is shared plumbing below every domain: it must not import src/domains/.',
      from: { path: '^src/platform/' },
      to: { path: '^src/domains/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/generated/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js'] },
  },
};
