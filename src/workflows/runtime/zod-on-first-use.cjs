// The bundle's `zod`: the same `z`, evaluated on first use (docs/operations.md); CommonJS so webpack defers `require`.
'use strict';

let loaded;
Object.defineProperty(exports, 'z', {
  enumerable: true,
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  get: () => (loaded ??= require('zod/v4').z),
});
