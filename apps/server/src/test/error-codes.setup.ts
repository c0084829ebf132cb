import { afterAll, expect } from 'vitest';
import { takeStrayErrorCodes } from '../lib/errors.ts';

// Every API test file ends by checking that no error it drove carried a code the contract's
// ErrorCode lacks (plugins/errors.ts notes them): a code built at run time, a framework error or
// a body sent past HttpError fails the file that sent it, not only what typecheck can see.
afterAll(() => {
  expect(takeStrayErrorCodes(), 'error codes missing from ERROR_CODE_MEANINGS in packages/contract/src/errors.ts').toEqual([]);
});
