// `node -r ./test/support/registerTypeScript.js src/cli.ts`: runs the CLI from its TypeScript
// sources, as Jest does (swc), so a test of real processes needs no `npm run build` first.
const { readFileSync } = require('node:fs');
const { transformSync } = require('@swc/core');

require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(readFileSync(filename, 'utf8'), {
    filename,
    jsc: { target: 'es2022', parser: { syntax: 'typescript' } },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  });
  module._compile(code, filename);
};
