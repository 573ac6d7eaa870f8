// The import boundaries of docs/conventions.md ("Layers"), checked by `npm run lint` (dependency-cruiser).
// Arrows point one way: faces (routes, pages, CLI commands, MCP tools, job tasks) -> services -> repositories
// -> SQL; src/app is what every face shares; platforms and the sandbox know nothing of Herald's features.
// Tests may import anything, so rules start from non-test source files.
const TEST = '\\.test\\.ts$';
// Fixtures shared by a folder's tests (`*.fixture.ts`) are test code too.
const TEST_SUPPORT = '\\.(test|fixture)\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'No import cycle between files: each one is a knot that a reader must untie to understand either side.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'platforms-stand-alone',
      severity: 'error',
      comment: 'Adapters get their config and an HTTP client; they import no features, db, jobs or sandbox.',
      from: { path: '^src/platforms/', pathNot: TEST_SUPPORT },
      to: { path: '^src/(features|db|jobs|sandbox|app|http|mcp|cli|container|config|serve)' },
    },
    {
      name: 'sandbox-knows-no-features',
      severity: 'error',
      comment: "The simulators are written from the platforms' documentation, not from Herald's features.",
      from: { path: '^src/sandbox/', pathNot: TEST_SUPPORT },
      to: { path: '^src/(features|db|jobs|app|http|mcp|cli|container|config|serve)' },
    },
    {
      name: 'core-knows-no-transport',
      severity: 'error',
      comment: 'Services, repositories and the application layer are called by every face, so they import none.',
      from: { path: ['\\.service\\.ts$', '\\.repo\\.ts$', '^src/app/'], pathNot: TEST },
      to: {
        path: ['^src/(http|mcp|cli)/', '^src/cli\\.ts$', '^node_modules/(fastify|@fastify|@modelcontextprotocol)/'],
      },
    },
    {
      name: 'app-below-features',
      severity: 'error',
      comment: 'src/app sits below the features: it may use db and lib, never a feature, a job or a platform.',
      from: { path: '^src/app/', pathNot: TEST },
      to: { path: '^src/(features|jobs|platforms|sandbox|container|config|serve)' },
    },
    {
      name: 'features-enqueue-through-app',
      severity: 'error',
      comment: 'jobs/ holds runners and tasks; features enqueue through src/app, so a post enters jobs/ once.',
      from: { path: '^src/features/', pathNot: TEST },
      to: { path: '^src/jobs/' },
    },
    {
      name: 'lib-is-generic',
      severity: 'error',
      comment: 'src/lib holds small generic pieces: it imports nothing of Herald outside itself (config included).',
      from: { path: '^src/lib/', pathNot: TEST },
      to: { path: '^src/', pathNot: '^src/lib/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports are arrows too: a service that names FastifyRequest depends on Fastify.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^test/bluesky-pds/' },
  },
};
