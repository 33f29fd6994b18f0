/**
 * What an event may say about an error the site's own code threw: its class, never its message. A
 * message is the site's text and may hold a key, a token or a user's data (`new Error("... " +
 * siteKey)`); the error itself goes to the site's error hook only.
 */
export function errorClassOf(error: unknown): string {
  if (error instanceof Error) return `an error of class ${error.constructor.name || 'Error'}`;
  return `a non-Error value (${error === null ? 'null' : typeof error})`;
}
