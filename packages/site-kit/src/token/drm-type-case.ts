// The service's own player samples ship demo tokens with "widevine": read, and said. Both token
// readers (by hand and by schema) word it here, so their warnings are the same text.

/** The warning for a drm_type sent in another case than its canonical spelling; else none. */
export function drmTypeCaseWarning(
  sent: string | undefined,
  canonical: string | undefined,
): string[] {
  return sent !== undefined && sent !== canonical
    ? [
        `drm_type: "${sent}" read as "${canonical}" (writers write that spelling; the hash covers the text as sent)`,
      ]
    : [];
}
