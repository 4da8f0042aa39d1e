'use strict';
// Every rejection of the package is a HippoError (Node). The browser, bundler and workerd
// entries use the same class from errors.js.
class HippoError extends Error {
  constructor(message, code) {
    super(message);
    this.name = 'HippoError';
    /** invalid_request | not_found | conflict | not_configured | internal_error */
    this.code = code;
  }
}

module.exports = { HippoError };
