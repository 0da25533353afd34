// How page values read in Toolgate's own texts (lint notes, errors, warnings):
// describe() and errorText(). Neither ever throws into the page.
//
// Imports: primordials.js only.

import { isArray, stringify, stringSlice, toString } from './primordials.js';

// How a value the page put where a boolean belongs reads in a lint note.
export function describe(value) {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string': return `the string ${stringify(value.length > 40 ? `${stringSlice(value, 0, 40)}…` : value)}`;
    case 'number': case 'bigint': return `the number ${toString(value)}`;
    case 'function': return 'a function';
    case 'symbol': return 'a symbol';
    default:
      try {
        return isArray(value) ? 'an array' : 'an object';
      } catch {
        return 'an object'; // a revoked Proxy
      }
  }
}

export function errorText(error) {
  try {
    return `${error?.name ?? 'Error'}: ${error?.message ?? toString(error)}`;
  } catch {
    return 'an error that could not be read';
  }
}
