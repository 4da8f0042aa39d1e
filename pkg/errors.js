// Every rejection of the package is a HippoError (browsers, bundlers, workerd). Node's entry
// defines the same class in node/errors.cjs (one class per module system; a process loads one).
export class HippoError extends Error {
  constructor(message, code) {
    super(message);
    this.name = 'HippoError';
    /** invalid_request | not_found | conflict | not_configured | internal_error */
    this.code = code;
  }
}
